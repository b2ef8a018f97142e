import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `LoggingPlugin(options:)`: bodies and response headers, redacted, only when asked for.
final class LoggingPluginOptionsTests: XCTestCase {
    private func plugin(_ options: LoggingPlugin.Options, into lines: SharedValue<[String]>) -> LoggingPlugin {
        LoggingPlugin(options: options, log: { line in lines.withLock { $0.append(line) } }, clock: { 0 })
    }

    private func post(_ body: String, contentType: String) throws -> URLRequest {
        var request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/login")))
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body.utf8)
        return request
    }

    func test_givenRequestBodies_whenLogged_thenJSONAndFormsShowRedactedAndOthersAsAPlaceholder() throws {
        let lines = SharedValue<[String]>([])
        let logger = plugin(.requestBody, into: lines)
        logger.willSend(try post(#"{"user":"ada","password":"hunter2","remember":true}"#, contentType: "application/json"))
        logger.willSend(try post("user=ada&password=hunter2", contentType: "application/x-www-form-urlencoded"))
        logger.willSend(try post("password is hunter2", contentType: "text/plain"))
        let bodies = lines.withLock { $0 }.filter { $0.hasPrefix("  body: ") }
        XCTAssertEqual(bodies, [
            #"  body: {"password":"<redacted>","remember":true,"user":"ada"}"#,
            "  body: user=ada&password=<redacted>",
            "  body: <19 bytes of text/plain not shown>",
        ])
        XCTAssertFalse(lines.withLock { $0 }.joined().contains("hunter2"))
    }

    func test_givenResponses_whenLoggedWithHeadersAndErrorBodies_thenOnlyTheErrorsBodyIsShown() throws {
        let lines = SharedValue<[String]>([])
        let logger = plugin([.responseHeaders, .errorResponseBody], into: lines)
        let request = try post("{}", contentType: "application/json")
        let ok = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json", "Set-Cookie": "sid=S3CRET"],
                              body: Data(#"{"token":"S3CRET","id":7}"#.utf8))
        logger.didReceive(.success(ok), for: request)
        let refused = HTTPResponse(statusCode: 422, headers: ["Content-Type": "application/json"],
                                   body: Data(#"{"error":{"message":"name taken","status":"E42"}}"#.utf8))
        logger.didReceive(.failure(.clientError(statusCode: 422, metadata: nil, response: refused)), for: request)
        let logged = lines.withLock { $0 }
        XCTAssertEqual(logged.filter { $0.hasPrefix("  ") }, [
            "  headers: Content-Type: application/json, Set-Cookie: <redacted>",
            "  headers: Content-Type: application/json",
            #"  body: {"error":{"message":"name taken","status":"E42"}}"#,
        ])
        XCTAssertFalse(logged.joined().contains("S3CRET"))
    }

    func test_givenSuccessBodies_whenLogged_thenTheyAreRedactedAndLargeOnesArePlaceholders() throws {
        let lines = SharedValue<[String]>([])
        let logger = plugin(.verbose, into: lines)
        let request = try post("{}", contentType: "application/json")
        let small = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"],
                                 body: Data(#"{"access_token":"S3CRET","id":7}"#.utf8))
        logger.didReceive(.success(small), for: request)
        let large = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"],
                                 body: Data(("[" + String(repeating: "1,", count: 3_000) + "1]").utf8))
        logger.didReceive(.success(large), for: request)
        let bodies = lines.withLock { $0 }.filter { $0.hasPrefix("  body: ") }
        XCTAssertEqual(bodies, [#"  body: {"access_token":"<redacted>","id":7}"#, "  body: <6003 bytes of application/json not shown>"])
    }

    func test_givenNoOptions_whenLogged_thenOnlyTheSummaryLinesAppear() throws {
        let lines = SharedValue<[String]>([])
        let logger = plugin([], into: lines)
        let request = try post(#"{"a":1}"#, contentType: "application/json")
        logger.willSend(request)
        logger.didReceive(.success(HTTPResponse(statusCode: 200, headers: ["X": "y"], body: Data("{}".utf8))), for: request)
        XCTAssertEqual(lines.withLock { $0 }.count, 2)
    }

    func test_givenAClientWithVerboseLogging_whenARequestRuns_thenItsBodyAndResponseAreLogged() {
        let lines = SharedValue<[String]>([])
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = [LoggingPlugin(options: .verbose) { line in lines.withLock { $0.append(line) } }]
        let client = NetworkClient.stubbing().body(json: #"{"id":7}"#).makeClient(configuration: configuration)
        XCTAssertEqual(outcomeName(settle(client.request(Request<JSON>.post("items", body: .jsonObject(["name": "pen"]))))), "ok")
        let details = lines.withLock { $0 }.filter { $0.hasPrefix("  ") }
        XCTAssertEqual(details.first, #"  body: {"name":"pen"}"#)
        XCTAssertEqual(details.last, #"  body: {"id":7}"#)
    }
}

extension LoggingPluginOptionsTests {
    /// The example in Docs/Requests.md ("Bodies and headers"), line for line.
    func test_givenTheGuidesExample_whenLogged_thenTheLinesAreTheGuides() throws {
        let lines = SharedValue<[String]>([])
        var request = try post(#"{"user":"ada","password":"hunter2"}"#, contentType: "application/json")
        request.url = URL(string: "https://blog.example.com/api/signup")
        let clock = SharedValue<UInt64>(0)
        let timed = LoggingPlugin(options: [.requestBody, .errorResponseBody], log: { line in lines.withLock { $0.append(line) } },
                                  clock: { clock.withLock { $0 } })
        timed.willSend(request)
        clock.withLock { $0 = 31_000_000 }
        let refused = HTTPResponse(statusCode: 422, headers: ["Content-Type": "application/json"],
                                   body: Data(#"{"error":{"message":"name taken","status":"E42"}}"#.utf8), url: request.url)
        let metadata = ServerMetadata.parse(refused)
        timed.didReceive(.failure(.clientError(statusCode: 422, metadata: metadata, response: refused)), for: request)
        XCTAssertEqual(lines.withLock { $0 }, [
            "→ POST https://blog.example.com/api/signup [Content-Type: application/json] body 35 bytes",
            #"  body: {"password":"<redacted>","user":"ada"}"#,
            #"← failed POST https://blog.example.com/api/signup (31 ms): HTTP 422 Unprocessable Content — "name taken" (status "E42") https://blog.example.com/api/signup"#,
            #"  body: {"error":{"message":"name taken","status":"E42"}}"#,
        ])
    }
}

extension LoggingPluginOptionsTests {
    func test_givenNestedAndArrayFormNames_whenLogged_thenCredentialPartsAreRedacted() throws {
        let lines = SharedValue<[String]>([])
        let logger = plugin(.requestBody, into: lines)
        // As form encoders send them: brackets percent-encoded (`user%5Bpass%5D` is `user[pass]`).
        let body = "user%5Bname%5D=ada&user%5Bpass%5D=hunter2&pass%5B%5D=hunter2&code%5B%5D=hunter2"
            + "&auth.key=hunter2&filter%5Bstatus%5D=open"
        logger.willSend(try post(body, contentType: "application/x-www-form-urlencoded"))
        XCTAssertEqual(lines.withLock { $0 }.last,
                       "  body: user%5Bname%5D=ada&user%5Bpass%5D=<redacted>&pass%5B%5D=<redacted>&code%5B%5D=<redacted>"
                       + "&auth.key=<redacted>&filter%5Bstatus%5D=open")
        let request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/a?user%5Bpass%5D=hunter2&page=2")))
        XCTAssertEqual(Redaction.describe(request), "GET https://api.example.com/a?user%5Bpass%5D=<redacted>&page=2")
    }
}
