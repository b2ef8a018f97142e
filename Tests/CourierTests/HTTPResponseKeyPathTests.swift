import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPResponse.decoded(_:atKeyPath:using:)`: Moya's `map(_:atKeyPath:)`.
final class HTTPResponseKeyPathTests: XCTestCase {
    private struct Product: Decodable, Equatable {
        let name: String
        let unitPrice: Int
    }

    private let wrapped = HTTPResponse(statusCode: 200, body: Data(#"""
        {"data":{"products":[{"name":"Tea","unit_price":3},{"name":"Cake","unit_price":5}],
                 "id":9007199254740993},
         "metadata":{"status":"0000"}}
        """#.utf8))

    private var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    func test_givenANestedPath_thenOnlyThatValueIsDecodedWithTheDecodersStrategies() throws {
        let products = try wrapped.decoded([Product].self, atKeyPath: "data.products", using: snakeCase)
        XCTAssertEqual(products, [Product(name: "Tea", unitPrice: 3), Product(name: "Cake", unitPrice: 5)])
    }

    func test_givenAnArrayIndexInThePath_thenItPicksThatElement() throws {
        XCTAssertEqual(try wrapped.decoded(String.self, atKeyPath: "data.products.1.name"), "Cake")
        XCTAssertEqual(try wrapped.decoded(String.self, atKeyPath: "metadata.status"), "0000")
    }

    /// 2^53 + 1 is not a Double: going through `JSON` (numbers as Double) would change it.
    func test_givenA64BitID_thenItKeepsItsPrecision() throws {
        XCTAssertEqual(try wrapped.decoded(Int64.self, atKeyPath: "data.id"), 9_007_199_254_740_993)
    }

    func test_givenNoPath_thenTheWholeBodyIsDecoded() throws {
        struct Envelope: Decodable { let metadata: [String: String] }
        XCTAssertEqual(try wrapped.decoded(Envelope.self).metadata, ["status": "0000"])
        XCTAssertEqual(try wrapped.decoded(Envelope.self, atKeyPath: "").metadata, ["status": "0000"])
    }

    func test_givenAPathThatLeadsNowhere_thenDecodingFailedSaysWhereItStopped() {
        for (path, missing, at) in [("data.items", "items", "data"), ("data.products.7", "7", "data.products"),
                                    ("data.products.01", "01", "data.products"), ("data.products.+1", "+1", "data.products"),
                                    ("nothing", "nothing", ""), ("data.id.x", "x", "data.id")] {
            XCTAssertThrowsError(try wrapped.decoded([Product].self, atKeyPath: path)) { error in
                guard case .decodingFailed(let underlying, let response)? = error as? NetworkError else {
                    return XCTFail("expected decodingFailed, got \(error)")
                }
                XCTAssertEqual(underlying as? ResponseKeyPathError, .notFound(keyPath: path, missing: missing, at: at))
                XCTAssertEqual(response, self.wrapped)
            }
        }
        XCTAssertEqual(ResponseKeyPathError.notFound(keyPath: "data.items", missing: "items", at: "data").description,
                       #"No "items" in the body at "data" (key path "data.items")"#)
    }

    func test_givenABodyThatIsNotJSON_thenDecodingFailedWithNotJSON() {
        let page = HTTPResponse(statusCode: 200, body: Data("<html>502</html>".utf8))
        XCTAssertThrowsError(try page.decoded(String.self, atKeyPath: "data")) { error in
            guard case .decodingFailed(let underlying, _)? = error as? NetworkError else {
                return XCTFail("expected decodingFailed, got \(error)")
            }
            XCTAssertEqual(underlying as? ResponseKeyPathError, .notJSON)
        }
    }

    func test_givenAValueOfAnotherType_thenDecodingFailedCarriesTheDecodersError() {
        XCTAssertThrowsError(try wrapped.decoded(Int.self, atKeyPath: "data.products")) { error in
            guard case .decodingFailed(let underlying, _)? = error as? NetworkError else {
                return XCTFail("expected decodingFailed, got \(error)")
            }
            XCTAssertTrue(underlying is DecodingError, "\(underlying)")
        }
    }

    func test_givenABodyInAFile_thenItIsNotRead() {
        let downloaded = HTTPResponse(statusCode: 200, bodyFileURL: URL(fileURLWithPath: "/tmp/never-read.json"))
        XCTAssertThrowsError(try downloaded.decoded(String.self, atKeyPath: "data")) { error in
            guard case .decodingFailed(let underlying, _)? = error as? NetworkError else {
                return XCTFail("expected decodingFailed, got \(error)")
            }
            XCTAssertEqual(underlying as? ResponseKeyPathError, .bodyInFile)
        }
    }

    func test_givenAClient_thenARawResponseDecodesAtItsKeyPath() async throws {
        let client = NetworkClient.stubbing().body(wrapped.body).makeClient()
        let products = try await client.send(Request<HTTPResponse>("products"))
            .decoded([Product].self, atKeyPath: "data.products", using: snakeCase)
        XCTAssertEqual(products.map(\.name), ["Tea", "Cake"])
    }
}
