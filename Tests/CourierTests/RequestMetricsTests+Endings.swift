import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `didFinish` on the rarer endings: a refusal before sending, a failed decode, a retry that is
/// cancelled while held, a wait for a refresh before sending, a timeout that is retried, and
/// downloads cancelled while their body is being saved.
extension RequestMetricsTests {
    /// Makes every request's method invalid in `prepare`: the check after plugins refuses it.
    private struct BreaksTheMethod: RequestPlugin {
        func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
            var broken = request
            broken.httpMethod = "GE T"
            return broken
        }
    }

    func test_givenARequestRefusedAfterPrepare_whenItEnds_thenNoAttemptAndTheLogSaysNeverSent() throws {
        let recorder = FinishRecorder()
        let (logger, lines) = loggedLines()
        let client = client(NetworkClient.stubbing().body(json: "{}"), plugins: [BreaksTheMethod(), recorder, logger])
        XCTAssertEqual(outcomeName(settle(client.request(Request("feed")))), "invalidRequest")
        let finish = try XCTUnwrap(only(recorder))
        XCTAssertEqual(finish.metrics.attemptCount, 0, "nothing reached the transport")
        XCTAssertEqual(lines.withLock { $0.count }, 1)
        XCTAssertTrue(lines.withLock { $0.first?.hasPrefix("✗ GET https://stub.courier.invalid/feed never sent (") } == true)
    }

    func test_givenA200ThatFailsToDecode_whenLogged_thenAClosingLineSaysWhatTheCallerGot() {
        struct User: Decodable, Sendable { let id: Int }
        let (logger, lines) = loggedLines()
        let client = client(NetworkClient.stubbing().body(json: #"{"id":"seven"}"#), plugins: [logger])
        XCTAssertEqual(outcomeName(settle(client.request(Request<User>("users/7")))), "decodingFailed")
        let logged = lines.withLock { $0 }
        XCTAssertEqual(logged.count, 3)
        XCTAssertTrue(logged[1].hasPrefix("← 200 OK GET"), logged[1])
        XCTAssertTrue(logged[2].hasPrefix("✗ failed GET https://stub.courier.invalid/users/7 after 1 attempt ("), logged[2])
        XCTAssertTrue(logged[2].contains("Could not decode"), logged[2])
    }

    func test_givenARetryHeldByAPause_whenCancelled_thenOneAttemptAndTheBackOffAndHoldAreSeparate() throws {
        let recorder = FinishRecorder()
        let (logger, lines) = loggedLines()
        let clock = VirtualClock()
        let (client, promise) = requestRetriedAfterBackOff(clock: clock, plugins: [recorder, logger])
        client.pause()
        defer { client.resume() }
        clock.advance(by: 5)   // the retry starts and is held
        clock.advance(by: 2)
        promise.cancel()
        _ = settle(promise)
        let metrics = try XCTUnwrap(only(recorder)).metrics
        XCTAssertEqual(metrics.attemptCount, 1)
        XCTAssertEqual(metrics.queuedDuration, 2, accuracy: 1e-9)
        XCTAssertEqual(metrics.transportDuration, 0, accuracy: 1e-9, "the back-off is not transport time")
        XCTAssertEqual(metrics.otherDuration, 5, accuracy: 1e-9)
        XCTAssertEqual(
            lines.withLock { $0.last },
            "✗ failed GET https://stub.courier.invalid/feed after 1 attempt (7000 ms in all): The request was cancelled.")
    }

    func test_givenATokenAboutToExpire_whenTheRequestWaitsForItsRefresh_thenTheWaitIsOtherTimeAndOneAttempt() throws {
        let recorder = FinishRecorder()
        let clock = VirtualClock()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let (refresh, finishRefresh) = Promise<TokenCredential>.pending()
        let time = SharedValue(start)
        let auth = TokenAuthenticator(
            credential: TokenCredential(token: "old", expiresAt: start.addingTimeInterval(3_600)),
            now: { time.withLock { $0 } }, refresh: { _ in refresh })
        time.withLock { $0 = start.addingTimeInterval(3_570) }   // an hour-long token, inside its 60 s margin
        let client = client(
            NetworkClient.stubbing().delay(2).body(json: "{}").clock(clock), plugins: [recorder], authenticator: auth)
        let promise = client.request(Request("me"))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 1), "the deadline, while the refresh runs")
        clock.advance(by: 3)
        finishRefresh.fulfill(TokenCredential(token: "fresh", expiresAt: start.addingTimeInterval(7_200)))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 5), "the replay's stub delay")
        clock.advance(by: 2)
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        let finish = try XCTUnwrap(only(recorder))
        XCTAssertEqual(finish.authorization, "Bearer fresh")
        XCTAssertEqual(finish.metrics.attemptCount, 1, "the attempt that waited was never sent")
        XCTAssertEqual(finish.metrics.transportDuration, 2, accuracy: 1e-9)
        XCTAssertEqual(finish.metrics.otherDuration, 3, accuracy: 1e-9)
        XCTAssertEqual(finish.metrics.totalDuration, 5, accuracy: 1e-9)
    }

    func test_givenATimeoutThatIsRetried_whenTheRetrySucceeds_thenTheBackOffIsNotTransportTime() throws {
        let recorder = FinishRecorder()
        let clock = VirtualClock()
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 200, delay: 5), .json("{}")]).clock(clock),
            plugins: [recorder])
        var endpoint = Request<JSON>("feed")
        endpoint.timeout = 1
        endpoint.retryPolicy = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(2), jitter: 0)
        let promise = client.request(endpoint)
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the deadline and the stub's delay")
        clock.advance(by: 1)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 3), "the retry's back-off")
        clock.advance(by: 2)
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        let metrics = try XCTUnwrap(only(recorder)).metrics
        XCTAssertEqual(metrics.attemptCount, 2)
        XCTAssertEqual(metrics.transportDuration, 1, accuracy: 1e-9, "the timed-out attempt's second")
        XCTAssertEqual(metrics.otherDuration, 2, accuracy: 1e-9)
        XCTAssertEqual(metrics.totalDuration, 3, accuracy: 1e-9)
    }

    /// Downloads released together by `resume()` are answered inside `send` on the gate's queue
    /// and saved on a global queue; promises cancelled meanwhile must still be reported.
    func test_givenDownloadsCancelledWhileTheirBodiesAreSaved_thenEachIsReportedOnce() throws {
        let scratch = try makeScratchFolder("RequestMetricsDownloads")
        defer { removeScratchFolder(scratch) }
        for round in 0..<5 {
            let recorder = FinishRecorder()
            let client = exampleClient(RecordingTransport.answering(body: "x")) { $0.plugins = [recorder] }
            client.pause()
            let promises = (0..<100).map { index in
                client.download(Request<JSON>("files/\(index)"), to: scratch.appendingPathComponent("\(round)-\(index)"))
            }
            client.resume()
            for promise in promises { promise.cancel() }
            for promise in promises { _ = settle(promise) }
            XCTAssertTrue(recorder.waitForCount(100), "round \(round): \(recorder.recorded.count) of 100 reported")
            XCTAssertEqual(Set(recorder.recorded.map(\.path)).count, 100)
        }
    }
}
