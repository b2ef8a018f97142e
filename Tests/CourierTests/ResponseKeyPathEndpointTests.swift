import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Endpoint.responseKeyPath`: the response is decoded from the value at the path, for each
/// kind of `Response`, and the errors keep the whole response.
final class ResponseKeyPathEndpointTests: XCTestCase {
    private struct Product: Decodable, Equatable, Sendable {
        let name: String
        let unitPrice: Int
    }

    /// An endpoint answered with `Response` found at `keyPath`.
    private struct Wrapped<Response: Decodable & Sendable>: Endpoint {
        var path = "products"
        var responseKeyPath: String?
        var decoder: JSONDecoder?
    }

    private let wrappedBody = #"{"data":{"products":[{"name":"Tea","unitPrice":3}],"token":"t-1","none":null},"metadata":{"status":"0000"}}"#

    private func client(status: Int = 200, body: String? = nil, headers: [String: String] = [:]) -> NetworkClient {
        NetworkClient.stubbing().status(status).body(json: body ?? wrappedBody).headers(headers).makeClient()
    }

    func test_givenATypedResponseAtAKeyPath_thenOnlyThatValueIsDecoded() throws {
        let products = try settle(client().request(Wrapped<[Product]>(responseKeyPath: "data.products")))?.get()
        XCTAssertEqual(products, [Product(name: "Tea", unitPrice: 3)])
    }

    func test_givenJSONAtAKeyPath_thenTheValueFoundIsTheRoot() throws {
        let json = try XCTUnwrap(settle(client().request(Wrapped<JSON>(responseKeyPath: "data.products.0")))?.get())
        XCTAssertEqual(json["name"].string, "Tea")
        XCTAssertEqual(json["data"], JSON.null, "the wrapper is gone")
    }

    func test_givenAStringAtAKeyPath_thenItIsTheJSONStringWithoutQuotes() throws {
        XCTAssertEqual(try settle(client().request(Wrapped<String>(responseKeyPath: "data.token")))?.get(), "t-1")
        let none = try XCTUnwrap(settle(client().request(Wrapped<String?>(responseKeyPath: "data.none")))).get()
        XCTAssertNil(none, "a JSON null at the path is nil")
        let token = try XCTUnwrap(settle(client().request(Wrapped<String?>(responseKeyPath: "data.token")))).get()
        XCTAssertEqual(token, "t-1")
    }

    func test_givenAnOptionalResponseAndAnEmptyBody_thenItIsNilWithoutLookingForThePath() throws {
        let empty = NetworkClient.stubbing().status(204).body(Data()).makeClient()
        let value = try XCTUnwrap(settle(empty.request(Wrapped<Product?>(responseKeyPath: "data.product")))).get()
        XCTAssertNil(value)
    }

    func test_givenWithHTTPResponse_thenTheValueIsAtThePathAndTheHeadersStay() throws {
        let decoded = try XCTUnwrap(settle(client(headers: ["X-Total": "1"]).request(
            Wrapped<[Product]>(responseKeyPath: "data.products").withHTTPResponse()))?.get())
        XCTAssertEqual(decoded.value.map(\.name), ["Tea"])
        XCTAssertEqual(decoded.header("x-total"), "1")
        XCTAssertEqual(String(decoding: decoded.response.body, as: UTF8.self), wrappedBody, "the whole response, body included")
        let token = try XCTUnwrap(settle(client().request(Wrapped<String>(responseKeyPath: "data.token").withHTTPResponse()))?.get())
        XCTAssertEqual(token.value, "t-1", "a String inside DecodedResponse is the JSON string too")
        let none = try XCTUnwrap(settle(client().request(Wrapped<String?>(responseKeyPath: "data.none").withHTTPResponse()))?.get())
        XCTAssertNil(none.value)
    }

    func test_givenAPathThatLeadsNowhere_thenDecodingFailedCarriesTheWholeResponse() throws {
        let result = settle(client().request(Wrapped<[Product]>(responseKeyPath: "data.items")))
        guard case .decodingFailed(let underlying, let response)? = networkError(result) else {
            return XCTFail("expected decodingFailed, got \(String(describing: result))")
        }
        XCTAssertEqual(underlying as? ResponseKeyPathError, .notFound(keyPath: "data.items", missing: "items", at: "data"))
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), wrappedBody)
    }

    func test_givenAValueThatDoesNotFit_thenTheDecodersErrorCarriesTheWholeResponse() throws {
        let result = settle(client().request(Wrapped<[Product]>(responseKeyPath: "data.token")))
        guard case .decodingFailed(let underlying, let response)? = networkError(result) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertTrue(underlying is DecodingError, "\(underlying)")
        XCTAssertEqual(response.body.count, wrappedBody.utf8.count)
    }

    func test_givenAnErrorStatus_thenTheMetadataComesFromTheWholeBody() {
        let failing = client(status: 404, body: #"{"metadata":{"status":"4040","desc":"gone"},"data":{}}"#)
        guard case .clientError(404, let metadata?, _)? = networkError(settle(failing.request(Wrapped<[Product]>(responseKeyPath: "data.products")))) else {
            return XCTFail("expected clientError(404) with metadata")
        }
        XCTAssertEqual(metadata.message, "gone")
    }

    func test_givenRawResponseTypes_thenTheKeyPathIsIgnored() throws {
        let raw = try XCTUnwrap(settle(client().request(Wrapped<HTTPResponse>(responseKeyPath: "data.products")))?.get())
        XCTAssertEqual(raw.body.count, wrappedBody.utf8.count)
        let data = try XCTUnwrap(settle(client().request(Wrapped<Data>(responseKeyPath: "data.products")))?.get())
        XCTAssertEqual(data.count, wrappedBody.utf8.count)
    }

    func test_givenTheEndpointsDecoder_thenItDecodesTheValueFound() throws {
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        let body = #"{"data":[{"name":"Tea","unit_price":3}]}"#
        let products = try settle(client(body: body).request(Wrapped<[Product]>(responseKeyPath: "data", decoder: snake)))?.get()
        XCTAssertEqual(products, [Product(name: "Tea", unitPrice: 3)])
    }

    func test_givenARequest_thenItCopiesTheKeyPathAndCanSetItsOwn() throws {
        let copied = Request(Wrapped<[Product]>(responseKeyPath: "data.products"))
        XCTAssertEqual(copied.responseKeyPath, "data.products")
        XCTAssertEqual(try settle(client().request(copied))?.get().count, 1)
        var own = Request<String>("products")
        own.responseKeyPath = "data.token"
        XCTAssertEqual(try settle(client().request(own))?.get(), "t-1")
    }

    func test_givenAnEmptyKeyPath_thenTheWholeBodyIsDecoded() throws {
        let json = try XCTUnwrap(settle(client().request(Wrapped<JSON>(responseKeyPath: "")))?.get())
        XCTAssertEqual(json["metadata"]["status"].string, "0000")
    }
}
