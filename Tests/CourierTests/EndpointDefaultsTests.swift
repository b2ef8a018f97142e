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
        XCTAssertTrue(Ping.Response.self == JSON.self)
        try assertDocumentedDefaults(Ping())
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

/// Asserts that every property of `endpoint` but `path` has the value `Endpoint` documents as
/// its default.
func assertDocumentedDefaults(_ endpoint: some Endpoint, file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(endpoint.method, .get, file: file, line: line)
    XCTAssertEqual(endpoint.query, [], file: file, line: line)
    XCTAssertEqual(endpoint.headers, [:], file: file, line: line)
    XCTAssertNil(try endpoint.body.encoded(using: JSONEncoder()).data, file: file, line: line)
    XCTAssertNil(endpoint.timeout, file: file, line: line)
    XCTAssertNil(endpoint.retryPolicy, file: file, line: line)
    XCTAssertTrue(endpoint.requiresAuthentication, file: file, line: line)
    XCTAssertEqual(endpoint.sampleData, Data(), file: file, line: line)
    XCTAssertEqual(endpoint.acceptedStatusCodes, .successful, file: file, line: line)
    XCTAssertNil(endpoint.requestModifier, file: file, line: line)
    XCTAssertNil(endpoint.redirectPolicy, file: file, line: line)
}
