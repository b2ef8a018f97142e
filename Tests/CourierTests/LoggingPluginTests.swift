import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class LoggingPluginTests: XCTestCase {
    /// Collects log lines and serves a hand-driven clock.
    // @unchecked: both stored properties are only touched while `lock` is held.
    private final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var storedLines: [String] = []
        private var storedNow: UInt64 = 0
        var lines: [String] { lock.lock(); defer { lock.unlock() }; return storedLines }
        func log(_ line: String) { lock.lock(); storedLines.append(line); lock.unlock() }
        func now() -> UInt64 { lock.lock(); defer { lock.unlock() }; return storedNow }
        func advance(milliseconds: UInt64) { lock.lock(); storedNow += milliseconds * 1_000_000; lock.unlock() }
    }

    private func makeRequest(_ url: String = "https://api.example.com/me?access_token=T0KEN&v=1",
                             method: String = "GET") throws -> URLRequest {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = method
        request.allHTTPHeaderFields = ["Authorization": "Bearer T0KEN", "Cookie": "sid=T0KEN",
                                       "Proxy-Authorization": "Basic T0KEN", "X-Auth-Token": "T0KEN", "Accept": "*/*"]
        return request
    }

    private func makePlugin(_ recorder: Recorder) -> LoggingPlugin {
        LoggingPlugin(log: { recorder.log($0) }, clock: { recorder.now() })
    }

    func test_givenRequestWithSecrets_whenSentAndAnswered_thenLinesShowMethodURLStatusTimingRedacted() throws {
        let recorder = Recorder()
        let plugin = makePlugin(recorder)
        let request = try makeRequest()
        plugin.willSend(request)
        recorder.advance(milliseconds: 42)
        let response = HTTPResponse(statusCode: 200, headers: ["Set-Cookie": "sid=T0KEN"], body: Data("{}".utf8))
        plugin.didReceive(.success(response), for: request)
        XCTAssertEqual(recorder.lines, [
            "→ GET https://api.example.com/me?access_token=<redacted>&v=1 [Accept: */*, Authorization: <redacted>, "
                + "Cookie: <redacted>, Proxy-Authorization: <redacted>, X-Auth-Token: <redacted>]",
            "← 200 OK GET https://api.example.com/me?access_token=<redacted>&v=1 (42 ms, 2 bytes)",
        ])
        XCTAssertFalse(recorder.lines.joined().contains("T0KEN"))
    }

    func test_givenFailure_whenReceived_thenErrorDescribedWithTiming() throws {
        let recorder = Recorder()
        let plugin = makePlugin(recorder)
        let request = try makeRequest(method: "DELETE")
        plugin.willSend(request)
        recorder.advance(milliseconds: 1_500)
        plugin.didReceive(.failure(.timedOut), for: request)
        XCTAssertEqual(recorder.lines.last,
                       "← failed DELETE https://api.example.com/me?access_token=<redacted>&v=1 (1500 ms): The request timed out.")
    }

    func test_givenErrorStatus_whenReceived_thenStatusLogged() throws {
        let recorder = Recorder()
        let plugin = makePlugin(recorder)
        let request = try makeRequest("https://api.example.com/x")
        plugin.willSend(request)
        plugin.didReceive(.success(HTTPResponse(statusCode: 503)), for: request)
        XCTAssertEqual(recorder.lines.last, "← 503 Service Unavailable GET https://api.example.com/x (0 ms, 0 bytes)")
    }

    func test_givenIdenticalConcurrentRequests_whenAnswered_thenStartsPairedFirstInFirstOut() throws {
        let recorder = Recorder()
        let plugin = makePlugin(recorder)
        let request = try makeRequest("https://api.example.com/x")
        plugin.willSend(request)            // t = 0
        recorder.advance(milliseconds: 10)
        plugin.willSend(request)            // t = 10
        recorder.advance(milliseconds: 20)  // t = 30
        plugin.didReceive(.success(HTTPResponse(statusCode: 204)), for: request)
        plugin.didReceive(.success(HTTPResponse(statusCode: 204)), for: request)
        let timings = recorder.lines.filter { $0.hasPrefix("←") }
        XCTAssertEqual(timings, ["← 204 No Content GET https://api.example.com/x (30 ms, 0 bytes)",
                                 "← 204 No Content GET https://api.example.com/x (20 ms, 0 bytes)"])
    }

    func test_givenNoMatchingStart_whenReceived_thenLoggedWithoutTiming() throws {
        let recorder = Recorder()
        makePlugin(recorder).didReceive(.failure(.cancelled), for: try makeRequest("https://api.example.com/x"))
        XCTAssertEqual(recorder.lines, ["← failed GET https://api.example.com/x: The request was cancelled."])
    }

    func test_givenManyThreads_whenLogging_thenEveryLineRecorded() throws {
        let recorder = Recorder()
        let plugin = makePlugin(recorder)
        let requests = try (0..<8).map { try makeRequest("https://api.example.com/item/\($0)") }
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            let request = requests[index % requests.count]
            plugin.willSend(request)
            plugin.didReceive(.success(HTTPResponse(statusCode: 200)), for: request)
        }
        XCTAssertEqual(recorder.lines.count, 800)
        XCTAssertEqual(recorder.lines.filter { $0.hasSuffix("(0 ms, 0 bytes)") }.count, 400)
    }

    func test_givenDefaultPlugin_whenUsedAsRequestPlugin_thenPrepareLeavesRequestUnchanged() throws {
        struct Ping: Endpoint { var path: String { "ping" } }
        let request = try makeRequest()
        let plugin: any RequestPlugin = LoggingPlugin(log: { _ in })
        XCTAssertEqual(plugin.prepare(request, for: Ping()), request)
    }
}
