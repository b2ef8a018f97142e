import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestPlugin.didFinish(_:for:endpoint:metrics:)`: once per request, with its outcome and
/// where its time went. Timings are asserted exactly on a `VirtualClock`.
final class RequestMetricsTests: XCTestCase {
    /// One `didFinish` call.
    struct Finish {
        let outcome: String
        let url: URL?
        let authorization: String?
        let path: String
        let metrics: RequestMetrics
    }

    /// Records every `didFinish` call.
    final class FinishRecorder: RequestPlugin, @unchecked Sendable {
        // @unchecked: `finishes` is only read and written while holding `condition`.
        private let condition = NSCondition()
        private var finishes: [Finish] = []
        var recorded: [Finish] {
            condition.lock()
            defer { condition.unlock() }
            return finishes
        }

        /// Waits up to `timeout` seconds until `count` calls were recorded.
        func waitForCount(_ count: Int, timeout: TimeInterval = 5) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            condition.lock()
            defer { condition.unlock() }
            while finishes.count < count {
                guard condition.wait(until: deadline) else { return finishes.count >= count }
            }
            return true
        }

        func didFinish(
            _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint,
            metrics: RequestMetrics
        ) {
            let outcome: String
            switch result {
            case .success(let response): outcome = "\(response.statusCode)"
            case .failure(let error): outcome = error.shortName
            }
            let finish = Finish(
                outcome: outcome, url: request.url, authorization: request.value(forHTTPHeaderField: "Authorization"),
                path: endpoint.path, metrics: metrics)
            condition.lock()
            finishes.append(finish)
            condition.broadcast()
            condition.unlock()
        }
    }

    func client(
        _ builder: StubbingBuilder, plugins: [any RequestPlugin], authenticator: (any Authenticator)? = nil
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = plugins
        configuration.authenticator = authenticator
        return builder.makeClient(configuration: configuration)
    }

    /// A `LoggingPlugin` and the lines it logs.
    func loggedLines() -> (LoggingPlugin, SharedValue<[String]>) {
        let lines = SharedValue<[String]>([])
        return (LoggingPlugin { line in lines.withLock { $0.append(line) } }, lines)
    }

    /// Starts a GET of `feed` that is answered `503` and then `200`, with one retry after 5 s on
    /// `clock`; returns once the retry's back-off is scheduled.
    func requestRetriedAfterBackOff(
        clock: VirtualClock, plugins: [any RequestPlugin], file: StaticString = #filePath, line: UInt = #line
    ) -> (NetworkClient, Promise<JSON>) {
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]).clock(clock), plugins: plugins)
        var endpoint = Request<JSON>("feed")
        endpoint.retryPolicy = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(5), jitter: 0)
        let promise = client.request(endpoint)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 5), "the retry's back-off is scheduled", file: file, line: line)
        return (client, promise)
    }

    /// The one recorded call, or a test failure.
    func only(_ recorder: FinishRecorder, file: StaticString = #filePath, line: UInt = #line) -> Finish? {
        let recorded = recorder.recorded
        XCTAssertEqual(recorded.count, 1, "didFinish runs exactly once", file: file, line: line)
        return recorded.first
    }

    func test_givenADelayedStub_whenTheRequestSucceeds_thenTheDelayIsTransportTimeAndTheTotal() throws {
        let recorder = FinishRecorder()
        let clock = VirtualClock()
        let client = client(NetworkClient.stubbing().delay(2).body(json: "{}").clock(clock), plugins: [recorder])
        let promise = client.request(Request("users/1"))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the deadline and the stub's delay")
        clock.advance(by: 2)
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        let finish = try XCTUnwrap(only(recorder))
        XCTAssertEqual(finish.outcome, "200")
        XCTAssertEqual(finish.path, "users/1")
        XCTAssertEqual(finish.url?.path, "/users/1", "the request as sent")
        XCTAssertEqual(finish.metrics.transportDuration, 2, accuracy: 1e-9)
        XCTAssertEqual(finish.metrics.totalDuration, 2, accuracy: 1e-9)
        XCTAssertEqual(finish.metrics.queuedDuration, 0)
        XCTAssertEqual(finish.metrics.attemptCount, 1)
    }

    func test_givenAPausedClient_whenItResumesLater_thenTheHoldIsQueuedTime() throws {
        let recorder = FinishRecorder()
        let clock = VirtualClock()
        let client = client(NetworkClient.stubbing().body(json: "{}").clock(clock), plugins: [recorder])
        client.pause()
        let promise = client.request(Request("feed"))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 1), "the held request's deadline")
        clock.advance(by: 3)
        client.resume()
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        let metrics = try XCTUnwrap(only(recorder)).metrics
        XCTAssertEqual(metrics.queuedDuration, 3, accuracy: 1e-9)
        XCTAssertEqual(metrics.totalDuration, 3, accuracy: 1e-9)
        XCTAssertEqual(metrics.transportDuration, 0, accuracy: 1e-9)
        XCTAssertEqual(metrics.attemptCount, 1)
    }

    func test_givenARetriedRequest_whenTheSecondAttemptSucceeds_thenTwoAttemptsAndTheBackOffIsOtherTime() throws {
        let recorder = FinishRecorder()
        let (logger, lines) = loggedLines()
        let clock = VirtualClock()
        let (client, promise) = requestRetriedAfterBackOff(clock: clock, plugins: [recorder, logger])
        clock.advance(by: 5)
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        withExtendedLifetime(client) {}
        let metrics = try XCTUnwrap(only(recorder)).metrics
        XCTAssertEqual(metrics.attemptCount, 2)
        XCTAssertEqual(metrics.totalDuration, 5, accuracy: 1e-9)
        XCTAssertEqual(metrics.transportDuration, 0, accuracy: 1e-9, "the back-off is not transport time")
        XCTAssertEqual(metrics.otherDuration, 5, accuracy: 1e-9)
        XCTAssertEqual(lines.withLock { $0.last }, "✓ 200 OK GET https://stub.courier.invalid/feed after 2 attempts (5000 ms in all)")
    }

    func test_givenADelayPastTheTimeout_whenTheDeadlinePasses_thenTimedOutWithTheWaitAsTransportTime() throws {
        let recorder = FinishRecorder()
        let clock = VirtualClock()
        let client = client(NetworkClient.stubbing().delay(5).body(json: "{}").clock(clock), plugins: [recorder])
        var endpoint = Request<JSON>("slow")
        endpoint.timeout = 1
        let promise = client.request(endpoint)
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the deadline and the stub's delay")
        clock.advance(by: 1)
        XCTAssertEqual(outcomeName(settle(promise)), "timedOut")
        let finish = try XCTUnwrap(only(recorder))
        XCTAssertEqual(finish.outcome, "timedOut")
        XCTAssertEqual(finish.metrics.transportDuration, 1, accuracy: 1e-9)
        XCTAssertEqual(finish.metrics.totalDuration, 1, accuracy: 1e-9)
        XCTAssertEqual(finish.metrics.attemptCount, 1)
    }

    func test_givenAHeldRequest_whenItIsCancelled_thenNoAttemptAndTheLogSaysItWasNeverSent() throws {
        let recorder = FinishRecorder()
        let (logger, lines) = loggedLines()
        let clock = VirtualClock()
        let client = client(NetworkClient.stubbing().body(json: "{}").clock(clock), plugins: [recorder, logger])
        client.pause()
        defer { client.resume() }
        let promise = client.request(Request("feed", query: [URLQueryItem(name: "token", value: "s3cret")]))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 1), "the held request's deadline")
        clock.advance(by: 2)
        promise.cancel()
        XCTAssertEqual(outcomeName(settle(promise)), "other: \(PromiseError.cancelled)")
        let finish = try XCTUnwrap(only(recorder))
        XCTAssertEqual(finish.outcome, "cancelled")
        XCTAssertEqual(finish.metrics.attemptCount, 0)
        XCTAssertEqual(finish.metrics.queuedDuration, 2, accuracy: 1e-9)
        XCTAssertEqual(finish.url?.path, "/feed", "the request as built")
        XCTAssertEqual(lines.withLock { $0 }, [
            "✗ GET https://stub.courier.invalid/feed?token=<redacted> never sent (2000 ms queued): The request was cancelled.",
        ])
    }

    func test_givenA401_whenTheTokenIsRefreshed_thenTheReplayCountsAndTheLastRequestCarriesTheNewToken() throws {
        let recorder = FinishRecorder()
        let auth = TokenAuthenticator(token: "stale") { _ in Promise.value("fresh") }
        let stubs = NetworkClient.stubbing().respond { request in
            request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh" ? .json("{}") : StubResponse(status: 401)
        }
        let client = client(stubs, plugins: [recorder], authenticator: auth)
        XCTAssertEqual(outcomeName(settle(client.request(Request("me")))), "ok")
        let finish = try XCTUnwrap(only(recorder))
        XCTAssertEqual(finish.metrics.attemptCount, 2, "the first attempt and its replay")
        XCTAssertEqual(finish.authorization, "Bearer fresh")
    }

    func test_givenABodyThatDoesNotDecode_whenItFails_thenDecodingFailedIsReportedWithRealTimings() throws {
        struct User: Decodable, Sendable { let id: Int }
        let recorder = FinishRecorder()
        let client = client(NetworkClient.stubbing().body(json: #"{"id":"seven"}"#), plugins: [recorder])
        let before = Date()
        let result = settle(client.request(Request<User>("users/7")))
        let after = Date()
        XCTAssertEqual(outcomeName(result), "decodingFailed")
        let finish = try XCTUnwrap(only(recorder))
        XCTAssertEqual(finish.outcome, "decodingFailed")
        let metrics = finish.metrics
        XCTAssertGreaterThan(metrics.decodingDuration, 0, "the decoder ran, on the system clock")
        XCTAssertGreaterThanOrEqual(metrics.totalDuration, metrics.decodingDuration + metrics.transportDuration)
        XCTAssertLessThanOrEqual(metrics.totalDuration, after.timeIntervalSince(before) + 0.001)
        XCTAssertGreaterThanOrEqual(metrics.startDate.timeIntervalSince(before), -0.001)
        XCTAssertLessThanOrEqual(metrics.startDate.timeIntervalSince(after), 0.001)
    }

    func test_givenARequestThatCannotBeBuilt_whenCalled_thenNoPluginHearsOfIt() {
        let recorder = FinishRecorder()
        let client = client(NetworkClient.stubbing().body(json: "{}"), plugins: [recorder])
        let result = settle(client.request(Request<JSON>.get("feed", headers: ["X-Bad": "a\r\nb"])))
        XCTAssertEqual(outcomeName(result), "invalidRequest")
        XCTAssertEqual(recorder.recorded.count, 0)
    }

    func test_givenASingleAttempt_whenLogged_thenNoClosingLine() {
        let (logger, lines) = loggedLines()
        let client = client(NetworkClient.stubbing().body(json: "{}"), plugins: [logger])
        XCTAssertEqual(outcomeName(settle(client.request(Request("feed")))), "ok")
        XCTAssertEqual(lines.withLock { $0.map { String($0.prefix(1)) } }, ["→", "←"])
    }

    func test_given2000RequestsFrom8Threads_whenHalfAreCancelled_thenEachIsReportedOnceWithItsOutcome() throws {
        let recorder = FinishRecorder()
        let client = client(NetworkClient.stubbing().body(json: "{}"), plugins: [recorder])
        let outcomes = SharedValue<[String: String]>([:])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<250 {
                let path = "item/\(thread)-\(index)"
                let promise = client.request(Request(path))
                if index.isMultiple(of: 2) { promise.cancel() }
                // `cancel()` rejects the promise itself with `PromiseError.cancelled`.
                let result = settle(promise)
                var outcome = outcomeName(result)
                if case .failure(let error as PromiseError)? = result, case .cancelled = error { outcome = "cancelled" }
                outcomes.withLock { $0[path] = outcome }
            }
        }
        // `cancel()` rejects a promise at once, so a request whose answer was being delivered may
        // still be inside `didFinish` when its promise settles: wait (bounded) for the last ones.
        XCTAssertTrue(recorder.waitForCount(2_000))
        let recorded = recorder.recorded
        XCTAssertEqual(recorded.count, 2_000)
        XCTAssertEqual(Set(recorded.map(\.path)).count, 2_000, "each request once")
        // A plugin that saw a cancellation means the caller was cancelled; a caller that got the
        // response means the plugin saw it. (A cancel that comes as a finished request's result is
        // handed over may leave the plugin with the response and the caller with a cancellation.)
        let callers = outcomes.withLock { $0 }
        for finish in recorded {
            XCTAssertTrue(["200", "cancelled"].contains(finish.outcome), finish.outcome)
            if finish.outcome == "cancelled" { XCTAssertEqual(callers[finish.path], "cancelled", finish.path) }
            if callers[finish.path] == "ok" { XCTAssertEqual(finish.outcome, "200", finish.path) }
        }
        XCTAssertTrue(recorded.contains { $0.outcome == "cancelled" })
        XCTAssertTrue(recorded.contains { $0.outcome == "200" })
    }
}
