import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Endpoint.idleTimeout` and `Configuration.idleTimeout`: an attempt ends when nothing moves for
/// a whole idle period, however long the transfer takes while it moves.
final class IdleTimeoutTests: XCTestCase {
    /// Reports progress once a second for `reports` seconds on the client's clock, then answers
    /// (or, with `answers == false`, goes silent); records cancellations.
    final class TricklingTransport: HTTPTransport, @unchecked Sendable {
        // @unchecked: `works` and `cancels` are only touched while holding `lock`.
        private let lock = NSLock()
        private var works: [ScheduledWork] = []
        private var cancels = 0
        let reports: Int
        let answers: Bool

        init(reports: Int, answers: Bool = true) {
            self.reports = reports
            self.answers = answers
        }

        var cancelCount: Int { lock.withLock { cancels } }

        struct Task: TransportTask {
            let transport: TricklingTransport
            func cancel() { transport.cancelAll() }
        }

        func send(
            _ request: URLRequest, context: TransportContext,
            completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
        ) -> any TransportTask {
            var scheduled: [ScheduledWork] = []
            for second in 1...max(reports, 1) where second <= reports {
                scheduled.append(context.scheduler.schedule(after: TimeInterval(second)) {
                    context.progress?(TransferProgress(bytesReceived: Int64(second) * 100, totalBytesToReceive: nil))
                })
            }
            if answers {
                scheduled.append(context.scheduler.schedule(after: TimeInterval(reports) + 0.5) {
                    completion(.success(HTTPResponse(statusCode: 200, body: Data("{}".utf8), url: request.url)))
                })
            }
            lock.withLock { works += scheduled }
            return Task(transport: self)
        }

        func cancelAll() {
            let scheduled = lock.withLock { () -> [ScheduledWork] in
                cancels += 1
                defer { works = [] }
                return works
            }
            scheduled.forEach { $0.cancel() }
        }
    }

    private func configuration(_ clock: VirtualClock, idle: TimeInterval? = nil) -> NetworkClient.Configuration {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.scheduler = clock
        configuration.idleTimeout = idle
        return configuration
    }

    private func idle(_ seconds: TimeInterval?) -> Request<JSON> {
        var request = Request<JSON>("transfer")
        request.idleTimeout = seconds
        return request
    }

    func test_givenAStubSlowerThanTheIdleTimeout_whenSent_thenTheAttemptTimesOutAfterOneIdlePeriod() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(10).body(json: "{}").makeClient(configuration: configuration(clock))
        let promise = client.request(idle(3))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 3), "the watch's first check")
        clock.advance(by: 3)
        XCTAssertEqual(outcomeName(settle(promise)), "timedOut")
        XCTAssertTrue(clock.waitUntilPending(atMost: 0), "the stub's delay and the deadline are cancelled")
    }

    func test_givenATransferThatKeepsMoving_whenItLastsLongerThanTheIdlePeriod_thenItCompletes() {
        let clock = VirtualClock()
        let transport = TricklingTransport(reports: 6)
        let client = NetworkClient(configuration: configuration(clock, idle: 2), transport: transport)
        let promise = client.request(Request<JSON>("transfer"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 6.5), "the transport's answer")
        clock.advance(by: 6.5)
        XCTAssertEqual(outcomeName(settle(promise)), "ok", "6.5 s in all, never 2 s without progress")
        XCTAssertEqual(transport.cancelCount, 0)
        XCTAssertTrue(clock.waitUntilPending(atMost: 0), "the watch stopped with the answer")
    }

    func test_givenATransferThatStalls_whenTheNextCheckFindsNoProgress_thenTheAttemptIsCancelledAndTimesOut() {
        let clock = VirtualClock()
        let transport = TricklingTransport(reports: 5, answers: false)
        let client = NetworkClient(configuration: configuration(clock, idle: 2), transport: transport)
        let promise = client.request(Request<JSON>("transfer"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 5), "the last report")
        // Checks at 2, 4 and 6 each see reports since the one before; the one at 8 sees none.
        clock.advance(by: 7.5)
        XCTAssertTrue(promise.isPending, "reports until 5 s: still alive at 7.5 s")
        XCTAssertTrue(clock.waitUntilPending(dueAt: 8), "the check that will find the stall")
        clock.advance(by: 0.5)
        XCTAssertEqual(outcomeName(settle(promise)), "timedOut")
        XCTAssertEqual(transport.cancelCount, 1)
    }

    func test_givenClientAndEndpointIdleTimeouts_whenSent_thenTheEndpointsWinsAndInfinityMeansNone() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(4).body(json: "{}").makeClient(configuration: configuration(clock, idle: 2))
        let byClient = client.request(Request<JSON>("client"))
        let byEndpoint = client.request(idle(5))
        let unlimited = client.request(idle(.infinity))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 4), "the stubs' answers")
        clock.advance(by: 4)
        XCTAssertEqual(outcomeName(settle(byClient)), "timedOut", "the client's 2 s")
        XCTAssertEqual(outcomeName(settle(byEndpoint)), "ok", "the endpoint's 5 s")
        XCTAssertEqual(outcomeName(settle(unlimited)), "ok", "none")
    }

    func test_givenAnIdleTimeoutThatIsNotPositive_whenSent_thenInvalidRequestAndNothingIsSent() {
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().body(json: "{}").recording(into: recorder).makeClient()
        for seconds in [0, -1, TimeInterval.nan] {
            XCTAssertEqual(outcomeName(settle(client.request(idle(seconds)))), "invalidRequest", "\(seconds)")
        }
        XCTAssertEqual(recorder.count, 0)
    }

    func test_givenARetryPolicy_whenAnAttemptStalls_thenTheRetryGetsAFreshIdlePeriodAndSucceeds() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing()
            .sequence([
                StubResponse(status: 200, body: Data("{}".utf8), delay: 10),
                StubResponse(status: 200, body: Data(#"{"second":true}"#.utf8), delay: 2),
            ])
            .makeClient(configuration: configuration(clock, idle: 3))
        var request = idle(nil)
        request.retryPolicy = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1), jitter: 0)
        let promise = client.request(request)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 3))
        clock.advance(by: 3)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 4), "the retry's delay")
        clock.advance(by: 1)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 6), "the retry's answer, 2 s after it was sent")
        clock.advance(by: 2)
        XCTAssertEqual(try settle(promise)?.get()["second"].bool, true, "2 s is within the retry's own idle period")
        XCTAssertTrue(clock.waitUntilPending(atMost: 0), "no watch is left behind")
    }

    func test_givenAWatchRunning_whenTheCallerCancels_thenNoCheckIsLeftBehind() {
        let clock = VirtualClock()
        let transport = TricklingTransport(reports: 10, answers: false)
        let client = NetworkClient(configuration: configuration(clock, idle: 3), transport: transport)
        let promise = client.request(Request<JSON>("transfer"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 3), "the watch's first check")
        clock.advance(by: 1)
        promise.cancel()
        XCTAssertTrue(isCancelled(settle(promise)))
        XCTAssertEqual(transport.cancelCount, 1)
        XCTAssertTrue(clock.waitUntilPending(atMost: 0), "the deadline, the reports and the watch's check are gone")
    }

    func test_givenAWatchRunning_whenTheDeadlinePassesFirst_thenTheAttemptTimesOutAndNoCheckIsLeftBehind() {
        let clock = VirtualClock()
        let transport = TricklingTransport(reports: 10, answers: false)
        var configuration = configuration(clock, idle: 3)
        configuration.timeout = 5
        let client = NetworkClient(configuration: configuration, transport: transport)
        let promise = client.request(Request<JSON>("transfer"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 5), "the deadline")
        clock.advance(by: 5)   // reports every second: the watch never finds the transfer idle
        XCTAssertEqual(outcomeName(settle(promise)), "timedOut")
        XCTAssertEqual(transport.cancelCount, 1)
        XCTAssertTrue(clock.waitUntilPending(atMost: 0), "the watch stopped with the deadline")
    }

    func test_givenAStreamingStubAnsweringARequestThatDoesNotStream_whenEachPieceComesWithinTheIdlePeriod_thenItCompletes() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing()
            .sequence([.streaming(["{", "\"n\":", "1", "}"].map { Data($0.utf8) }, every: 2)])
            .makeClient(configuration: configuration(clock, idle: 3))
        let promise = client.request(Request<JSON>("joined"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 2), "the first piece")
        clock.advance(by: 8)   // 8 s in all, a piece every 2 s
        XCTAssertEqual(try settle(promise)?.get(), ["n": 1])
    }

    // MARK: Streams

    private func streamingClient(_ clock: VirtualClock, idle: TimeInterval) -> NetworkClient {
        NetworkClient.stubbing()
            .sequence([.streaming([Data("a".utf8), Data("b".utf8)], every: 10)])
            .makeClient(configuration: configuration(clock, idle: idle))
    }

    func test_givenAStreamWithAnIdleTimeout_whenNoPieceComesForThatLong_thenTheBodyTimesOut() async throws {
        let clock = VirtualClock()
        let response = try await streamingClient(clock, idle: 3).stream(Request<HTTPResponse>("feed"))
        var pieces = response.makeAsyncIterator()
        XCTAssertTrue(clock.waitUntilPending(dueAt: 3), "the body's idle check, not the 60 s timeout")
        clock.advance(by: 3)
        await XCTAssertThrowsAsync(try await pieces.next()) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "timedOut", "\(error)")
        }
    }

    /// Streams `feed` from a client whose idle timeout is 3 s, with pieces 10 s apart, and checks
    /// both arrive when the clock moves 10 s and then `thenAdvance` seconds.
    private func assertSlowPiecesArrive(_ feed: Request<HTTPResponse>, thenAdvance: TimeInterval) async throws {
        let clock = VirtualClock()
        let response = try await streamingClient(clock, idle: 3).stream(feed)
        var pieces = response.makeAsyncIterator()
        XCTAssertTrue(clock.waitUntilPending(dueAt: 10), "the first piece")
        clock.advance(by: 10)
        let first = try await pieces.next()
        XCTAssertEqual(first, Data("a".utf8))
        clock.advance(by: thenAdvance)
        let second = try await pieces.next()
        XCTAssertEqual(second, Data("b".utf8))
    }

    func test_givenAStreamWhoseEndpointSetsATimeout_whenTheClientHasAShorterIdleTimeout_thenTheEndpointsTimeoutIsTheLimitBetweenPieces() async throws {
        var feed = Request<HTTPResponse>("feed")
        feed.timeout = 15   // the endpoint allows 15 s between events; the client's 3 s is for others
        try await assertSlowPiecesArrive(feed, thenAdvance: 10)
    }

    func test_givenAnEndpointWithAnIdleTimeout_whenCopiedOrWrapped_thenTheCopyAndTheWrapperKeepIt() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(10).body(json: "{}").makeClient(configuration: configuration(clock))
        let original = idle(3)
        XCTAssertEqual(Request(original).idleTimeout, 3)
        XCTAssertEqual(original.withHTTPResponse().idleTimeout, 3)
        XCTAssertEqual(original.decoding(HTTPResponse.self).idleTimeout, 3)
        let wrapped = client.request(original.withHTTPResponse())
        let decoded = client.request(original.decoding(HTTPResponse.self))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 3), "the watches' first checks")
        clock.advance(by: 3)
        XCTAssertEqual(outcomeName(settle(wrapped)), "timedOut")
        XCTAssertEqual(outcomeName(settle(decoded)), "timedOut")
    }

    func test_givenAStreamWhoseIdleTimeoutIsInfinite_whenPiecesComeSlowly_thenTheBodyHasNoLimitBetweenThem() async throws {
        var feed = Request<HTTPResponse>("feed")
        feed.idleTimeout = .infinity   // over the client's 3 s, and over the 60 s timeout too
        try await assertSlowPiecesArrive(feed, thenAdvance: 70)
    }

    func test_givenAPausedClient_whenTheRequestIsHeldLongerThanTheIdlePeriod_thenOnlyItsTimeWithTheTransportCounts() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(2).body(json: "{}").makeClient(configuration: configuration(clock, idle: 3))
        client.pause()
        let promise = client.request(Request<JSON>("held"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 60), "the deadline")
        clock.advance(by: 10)
        XCTAssertTrue(promise.isPending)
        client.resume()
        XCTAssertTrue(clock.waitUntilPending(dueAt: 12), "the stub's answer, 2 s after it was sent")
        clock.advance(by: 2)
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
    }
}
