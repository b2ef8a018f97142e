import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Endpoint.requestModifier`: changes to the built `URLRequest` that no other property covers.
final class RequestModifierTests: XCTestCase {
    private struct Export: Endpoint {
        typealias Response = JSON
        var path: String { "exports/latest" }
        var headers: [String: String] { ["X-Trace": "t"] }
        var requestModifier: (@Sendable (inout URLRequest) -> Void)? {
            { request in
                request.allowsCellularAccess = false
                request.httpShouldHandleCookies = false
                request.setValue("export", forHTTPHeaderField: "X-Purpose")
            }
        }
    }

    private func assertModified(_ request: URLRequest?, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(request?.allowsCellularAccess, false, message, file: file, line: line)
        XCTAssertEqual(request?.httpShouldHandleCookies, false, message, file: file, line: line)
        XCTAssertEqual(request?.value(forHTTPHeaderField: "X-Purpose"), "export", message, file: file, line: line)
        XCTAssertEqual(request?.value(forHTTPHeaderField: "X-Trace"), "t", "the endpoint's own headers stay", file: file, line: line)
    }

    func test_givenAModifier_whenBuiltAndSent_thenTheRequestCarriesItsChangesAndWrappersKeepIt() throws {
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().body(json: "{}").recording(into: recorder).makeClient()
        assertModified(try client.makeURLRequest(for: Export()), "makeURLRequest shows it")
        XCTAssertEqual(outcomeName(settle(client.request(Export()))), "ok")
        XCTAssertEqual(outcomeName(settle(client.request(Export().withHTTPResponse()))), "ok")
        XCTAssertEqual(outcomeName(settle(client.request(Request(Export())))), "ok")
        XCTAssertEqual(recorder.count, 3)
        for (index, sent) in recorder.requests.enumerated() { assertModified(sent, "sent request \(index)") }

        var plain = Request<JSON>.get("exports/latest")
        XCTAssertTrue(try client.makeURLRequest(for: plain).allowsCellularAccess, "the default")
        plain.requestModifier = { $0.allowsCellularAccess = false }
        XCTAssertFalse(try client.makeURLRequest(for: plain).allowsCellularAccess)
    }

    func test_givenAnAuthenticator_whenTheModifierRuns_thenItSeesNoCredentialAndTheCredentialIsStillSent() {
        let seenAuthorization = SharedValue<[String?]>([])
        var request = Request<JSON>.get("me")
        request.requestModifier = { built in seenAuthorization.withLock { $0.append(built.value(forHTTPHeaderField: "Authorization")) } }
        let recorder = StubRecorder()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = TokenAuthenticator(token: "secret-token") { _ in Promise.value("next") }
        let client = NetworkClient.stubbing().body(json: "{}").recording(into: recorder).makeClient(configuration: configuration)
        XCTAssertEqual(outcomeName(settle(client.request(request))), "ok")
        XCTAssertEqual(seenAuthorization.withLock { $0 }, [nil], "built once, before the credential")
        XCTAssertEqual(recorder.requests.first?.value(forHTTPHeaderField: "Authorization"), "Bearer secret-token")
    }

    func test_givenAModifierThatChangesTheURLMethodOrBodyOrWritesABadHeader_thenInvalidRequestAndNothingIsSent() {
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().body(json: "{}").recording(into: recorder).makeClient()
        let modifiers: [(String, @Sendable (inout URLRequest) -> Void)] = [
            ("another host", { $0.url = URL(string: "https://elsewhere.example.org/steal") }),
            ("another path", { $0.url = $0.url?.appendingPathComponent("more") }),
            ("no URL", { $0.url = nil }),
            // (`setValue` on Linux drops such a value by itself; the whole-dictionary setter does not.)
            ("a line break in a header", { $0.allHTTPHeaderFields = ["X-Note": "a\r\nX-Injected: 1"] }),
            ("another method", { $0.httpMethod = "POST" }),
            ("a body", { $0.httpBody = Data("x".utf8) }),
            ("a body stream", { $0.httpBodyStream = InputStream(data: Data("x".utf8)) }),
        ]
        for (name, modify) in modifiers {
            var request = Request<JSON>.get("items")
            request.requestModifier = modify
            XCTAssertThrowsError(try client.makeURLRequest(for: request), name) { error in
                guard case NetworkError.invalidRequest = error else { return XCTFail("\(name): \(error)") }
            }
            guard case .invalidRequest? = networkError(settle(client.request(request))) else { return XCTFail("\(name): expected invalidRequest") }
        }
        XCTAssertEqual(recorder.count, 0)
    }

    func test_givenSharedRequests_whenOnlyOneIsKeptOffCellular_thenTheyDoNotShareAnExchange() {
        let transport = RecordingTransport(.manual)
        let client = exampleClient(transport) { $0.sharesIdenticalRequests = true }
        var offCellular = Request<JSON>.get("report")
        offCellular.requestModifier = { $0.allowsCellularAccess = false }
        let promises = [client.request(Request<JSON>.get("report")), client.request(Request<JSON>.get("report")), client.request(offCellular)]
        XCTAssertTrue(transport.waitForSends(2), "the request kept off cellular is sent on its own")
        XCTAssertEqual(transport.requests.map(\.allowsCellularAccess).sorted { !$0 && $1 }, [false, true],
                       "the two plain ones share one exchange")
        for index in 0..<2 { transport.complete(index, with: .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8)))) }
        for promise in promises { XCTAssertEqual(outcomeName(settle(promise)), "ok") }
        XCTAssertEqual(transport.sendCount, 2)
    }
}
