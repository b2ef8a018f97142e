import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class EndpointDefaultsTests: XCTestCase {
    private struct Ping: Endpoint { var path: String { "ping" } }

    private struct CreateUser: Endpoint {
        typealias Response = [String: Int]
        var path: String { "users" }
        var method: HTTPMethod { .post }
        var query: [URLQueryItem] { [URLQueryItem(name: "dry", value: "1")] }
        var headers: [String: String] { ["X-Trace": "t"] }
        var body: RequestBody { .form(["name": "Ada"]) }
        var timeout: TimeInterval? { 5 }
        var retryPolicy: RetryPolicy? { .default }
        var requiresAuthentication: Bool { false }
        var sampleData: Data { Data("{}".utf8) }
    }

    func test_givenOnlyPath_whenDefaultsRead_thenDocumentedDefaults() throws {
        let endpoint = Ping()
        XCTAssertTrue(Ping.Response.self == JSON.self)
        XCTAssertEqual(endpoint.method, .get)
        XCTAssertEqual(endpoint.query, [])
        XCTAssertEqual(endpoint.headers, [:])
        XCTAssertNil(try endpoint.body.encoded(using: JSONEncoder()).data)
        XCTAssertNil(endpoint.timeout)
        XCTAssertNil(endpoint.retryPolicy)
        XCTAssertTrue(endpoint.requiresAuthentication)
        XCTAssertEqual(endpoint.sampleData, Data())
    }

    func test_givenOverrides_whenReadThroughExistential_thenOverridesWin() throws {
        let endpoint: any Endpoint = CreateUser()
        XCTAssertEqual(endpoint.method, .post)
        XCTAssertEqual(endpoint.query, [URLQueryItem(name: "dry", value: "1")])
        XCTAssertEqual(endpoint.headers, ["X-Trace": "t"])
        XCTAssertEqual(try endpoint.body.encoded(using: JSONEncoder()).data, Data("name=Ada".utf8))
        XCTAssertEqual(endpoint.timeout, 5)
        XCTAssertEqual(endpoint.retryPolicy?.maximumRetryCount, 3)
        XCTAssertFalse(endpoint.requiresAuthentication)
        XCTAssertEqual(endpoint.sampleData, Data("{}".utf8))
    }
}
