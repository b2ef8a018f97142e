import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Endpoint.decoding(_:atKeyPath:)`: one call of an untyped endpoint answered with a type.
final class EndpointDecodingTests: XCTestCase {
    private struct User: Decodable, Sendable, Equatable { let id: Int; let name: String }

    /// One endpoint type for a whole API, as Moya's `TargetType` enums are written.
    private enum Shop: Endpoint {
        case user(Int), wrapped(Int)
        var path: String {
            switch self {
            case .user(let id): "users/\(id)"
            case .wrapped(let id): "wrapped/users/\(id)"
            }
        }
        var method: HTTPMethod { .put }
        var headers: [String: String] { ["X-Shop": "1"] }
        var query: [URLQueryItem] { [URLQueryItem(name: "v", value: "2")] }
        var acceptedStatusCodes: StatusCodeSet { .successful.union([409]) }
        var timeout: TimeInterval? { 12 }
        var idleTimeout: TimeInterval? { 4 }
        var sharesIdenticalRequests: Bool? { false }
        var redirectPolicy: URLSessionTransport.RedirectPolicy? { .sameOrigin }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 5, delayBeforeRetry: .seconds(1)) }
        var requiresAuthentication: Bool { false }
        var sampleData: Data { Data("sample".utf8) }
        var cachePolicy: URLRequest.CachePolicy? { .reloadIgnoringLocalCacheData }
        var baseURL: URL? { URL(string: "https://shop.example.net/api") }
        var decoder: JSONDecoder? { Shop.sharedDecoder }
        var requestAdapters: [any RequestAdapter] { [Shop.adapter] }
        var requestRetriers: [any RequestRetrier] { [Shop.retrier] }
        static let sharedDecoder = JSONDecoder()
        static let adapter = RequestAdapterTests.HeaderAdapter()
        static let retrier = RequestRetrierTests.ScriptedRetrier()
        var responseKeyPath: String? {
            switch self {
            case .user: nil
            case .wrapped: "data"
            }
        }
    }

    private func client(_ body: String, status: Int = 200) -> NetworkClient {
        NetworkClient.stubbing().status(status).body(json: body).makeClient()
    }

    func test_givenAnUntypedEndpoint_whenDecodingAType_thenTheCallIsTheSameAndTheAnswerIsTyped() throws {
        let client = client(#"{"id":7,"name":"Ada"}"#)
        let typed = Shop.user(7).decoding(User.self)
        XCTAssertEqual(try client.makeURLRequest(for: typed), try client.makeURLRequest(for: Shop.user(7)))
        XCTAssertEqual(typed.acceptedStatusCodes, Shop.user(7).acceptedStatusCodes)
        XCTAssertTrue(typed.base is Shop, "plugins still see the endpoint it was made from")
        XCTAssertEqual(try settle(client.request(typed))?.get(), User(id: 7, name: "Ada"))
    }

    func test_givenAnEndpointThatSetsEveryProperty_whenDecodingAType_thenTheRequestKeepsEachOne() throws {
        let typed = Shop.wrapped(1).decoding(User.self)
        XCTAssertEqual(typed.path, "wrapped/users/1")
        XCTAssertEqual(typed.method, .put)
        XCTAssertEqual(typed.query, [URLQueryItem(name: "v", value: "2")])
        XCTAssertEqual(typed.headers, ["X-Shop": "1"])
        XCTAssertEqual(typed.timeout, 12)
        XCTAssertEqual(typed.idleTimeout, 4)
        XCTAssertEqual(typed.sharesIdenticalRequests, false)
        XCTAssertEqual(Shop.wrapped(1).withHTTPResponse().sharesIdenticalRequests, false)
        XCTAssertEqual(typed.redirectPolicy, .sameOrigin)
        XCTAssertEqual(Shop.wrapped(1).withHTTPResponse().redirectPolicy, .sameOrigin)
        XCTAssertEqual(Request(Shop.user(1)).redirectPolicy, .sameOrigin)
        XCTAssertEqual(typed.retryPolicy?.maximumRetryCount, 5)
        XCTAssertFalse(typed.requiresAuthentication)
        XCTAssertEqual(typed.sampleData, Data("sample".utf8))
        XCTAssertEqual(typed.cachePolicy, .reloadIgnoringLocalCacheData)
        XCTAssertEqual(typed.baseURL, Shop.wrapped(1).baseURL)
        XCTAssertTrue(typed.decoder === Shop.sharedDecoder)
        XCTAssertEqual(typed.responseKeyPath, "data")
        XCTAssertTrue(typed.requestAdapters.first as? RequestAdapterTests.HeaderAdapter === Shop.adapter)
        XCTAssertTrue(typed.requestRetriers.first as? RequestRetrierTests.ScriptedRetrier === Shop.retrier)
        XCTAssertEqual(typed.acceptedStatusCodes, Shop.wrapped(1).acceptedStatusCodes)
    }

    func test_givenAKeyPath_whenDecoding_thenItReplacesTheEndpointsAndNilKeepsIt() throws {
        let client = client(#"{"data":{"id":1,"name":"Grace"},"other":{"id":2,"name":"Linus"}}"#)
        XCTAssertEqual(try settle(client.request(Shop.wrapped(1).decoding(User.self)))?.get(), User(id: 1, name: "Grace"))
        XCTAssertEqual(
            try settle(client.request(Shop.wrapped(1).decoding(User.self, atKeyPath: "other")))?.get(), User(id: 2, name: "Linus"))
    }

    func test_givenAnAcceptedErrorStatus_whenDecodingTheRawResponse_thenItIsDelivered() throws {
        let client = client(#"{"conflict":true}"#, status: 409)
        let response = try settle(client.request(Shop.user(1).decoding(HTTPResponse.self)))?.get()
        XCTAssertEqual(response?.statusCode, 409)
        XCTAssertEqual(try response.map { try JSON(data: $0.body) }, ["conflict": true])
    }

    func test_givenABodyOfAnotherShape_whenDecoding_thenDecodingFailedCarriesTheResponse() {
        let client = client(#"{"id":"seven"}"#)
        let result = settle(client.request(Shop.user(7).decoding(User.self)))
        XCTAssertEqual(networkError(result)?.shortName, "decodingFailed")
    }
}
