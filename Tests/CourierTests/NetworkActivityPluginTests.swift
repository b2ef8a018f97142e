import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NetworkActivityPlugin`: `.began` / `.ended` per attempt, and the busy/idle form that counts.
final class NetworkActivityPluginTests: XCTestCase {
    private struct Checkout: Endpoint {
        var path: String { "checkout" }
        var method: HTTPMethod { .put }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0) }
    }

    private func client(_ builder: StubbingBuilder, plugins: [any RequestPlugin]) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = plugins
        return builder.makeClient(configuration: configuration)
    }

    // MARK: Per attempt

    func test_givenTheClosureForm_whenAnAttemptIsRetried_thenEachAttemptBeginsAndEndsWithTheEndpoint() {
        let changes = SharedValue<[String]>([])
        let plugin = NetworkActivityPlugin { change, endpoint in
            changes.withLock { $0.append("\(change) \(type(of: endpoint)) \(endpoint.path)") }
        }
        let client = client(NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]), plugins: [plugin])
        XCTAssertEqual(outcomeName(settle(client.request(Checkout()))), "ok")
        XCTAssertEqual(changes.withLock { $0 }, [
            "began Checkout checkout", "ended Checkout checkout",
            "began Checkout checkout", "ended Checkout checkout",
        ])
    }

    func test_givenTheClosureForm_whenARequestIsHeldByAPauseAndCancelled_thenNothingBegan() {
        let changes = SharedValue<[NetworkActivityPlugin.Change]>([])
        let plugin = NetworkActivityPlugin { change, _ in changes.withLock { $0.append(change) } }
        let client = client(NetworkClient.stubbing().body(json: "{}"), plugins: [plugin])
        client.pause()
        let held = client.request(Request<JSON>("held"))
        held.cancel()
        _ = settle(held)
        XCTAssertTrue(held.isCancelled)
        client.resume()
        XCTAssertEqual(outcomeName(settle(client.request(Request<JSON>("after")))), "ok")
        XCTAssertEqual(changes.withLock { $0 }, [.began, .ended], "only the request that went out")
    }

    // MARK: Busy or idle, through a client

    /// A busy/idle plugin that reports into `reports`, and the clock its clients' stubs wait on.
    private struct Busy {
        let reports: ActivityReports
        let clock = VirtualClock()
        let plugin: NetworkActivityPlugin

        init() {
            let reports = ActivityReports()
            self.reports = reports
            plugin = NetworkActivityPlugin(queue: reports.queue) { reports.append($0) }
        }
    }

    /// A client with `busy`'s plugin whose stub answers `{}` after `delay` on `busy`'s clock.
    private func client(delay: TimeInterval, _ busy: Busy) -> NetworkClient {
        client(NetworkClient.stubbing().delay(delay).body(json: "{}").clock(busy.clock), plugins: [busy.plugin])
    }

    func test_givenOverlappingRequests_whenTheyRunAndEnd_thenBusyIsReportedOnceAndIdleOnce() {
        let busy = Busy(), reports = busy.reports, clock = busy.clock
        let client = client(delay: 1, busy)
        let promises = (0..<3).map { client.request(Request<JSON>("item/\($0)")) }
        XCTAssertTrue(clock.waitUntilPending(atLeast: 6), "three deadlines and three stub delays")
        XCTAssertTrue(reports.waitFor(count: 1), "busy was reported while all three are on the wire")
        clock.advance(by: 1)
        for promise in promises { XCTAssertEqual(outcomeName(settle(promise)), "ok") }
        XCTAssertTrue(reports.waitFor(count: 2))
        XCTAssertEqual(reports.flushed(), [true, false])
    }

    func test_givenARequestCancelledOnTheWire_whenItEnds_thenIdleIsReported() {
        let busy = Busy(), reports = busy.reports, clock = busy.clock
        let client = client(delay: 10, busy)
        let promise = client.request(Request<JSON>("slow"))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2))
        XCTAssertTrue(reports.waitFor(count: 1))
        promise.cancel()
        _ = settle(promise)
        XCTAssertTrue(promise.isCancelled)
        XCTAssertTrue(reports.waitFor(count: 2), "a cancelled attempt ends too")
        XCTAssertEqual(reports.flushed(), [true, false])
    }

    func test_givenARequestThatTimesOut_whenItsDeadlinePasses_thenIdleIsReported() {
        let busy = Busy(), reports = busy.reports, clock = busy.clock
        let client = client(delay: 10, busy)
        var request = Request<JSON>("slow")
        request.timeout = 2
        let promise = client.request(request)
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2))
        XCTAssertTrue(reports.waitFor(count: 1))
        clock.advance(by: 2)
        XCTAssertEqual(outcomeName(settle(promise)), "timedOut")
        XCTAssertTrue(reports.waitFor(count: 2), "a timed-out attempt ends too")
        XCTAssertEqual(reports.flushed(), [true, false])
    }

    func test_givenOnePluginOnTwoClients_whenOnlyOneIsIdle_thenTheNetworkStaysBusy() {
        let busy = Busy(), reports = busy.reports, clock = busy.clock
        let fast = client(delay: 1, busy)
        let slow = client(delay: 5, busy)
        let quick = fast.request(Request<JSON>("quick"))
        let long = slow.request(Request<JSON>("long"))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 4))
        clock.advance(by: 1)
        XCTAssertEqual(outcomeName(settle(quick)), "ok")
        XCTAssertEqual(reports.flushed(), [true], "the other client still has a request out")
        clock.advance(by: 4)
        XCTAssertEqual(outcomeName(settle(long)), "ok")
        XCTAssertTrue(reports.waitFor(count: 2))
        XCTAssertEqual(reports.flushed(), [true, false])
    }

    // MARK: The counter on its own

    func test_givenChangesFasterThanTheQueue_whenTheyCancelOut_thenNothingIsReported() {
        let reports = ActivityReports()
        let counter = ActivityCounter(queue: reports.queue, report: { reports.append($0) })
        reports.queue.suspend()
        counter.apply(.began)
        counter.apply(.began)
        counter.apply(.ended)
        counter.apply(.ended)
        reports.queue.resume()
        XCTAssertEqual(reports.flushed(), [], "busy and idle again before the queue ran: no flicker")
    }

    func test_givenNestedAttempts_whenTheCountReturnsToZero_thenIdleFollowsBusy() {
        let reports = ActivityReports()
        let counter = ActivityCounter(queue: reports.queue, report: { reports.append($0) })
        counter.apply(.began)
        XCTAssertEqual(reports.flushed(), [true])
        counter.apply(.began)
        counter.apply(.ended)
        XCTAssertEqual(reports.flushed(), [true], "one attempt is still out")
        counter.apply(.ended)
        XCTAssertEqual(reports.flushed(), [true, false])
        counter.apply(.began)
        XCTAssertEqual(reports.flushed(), [true, false, true])
    }

    func test_givenAChangeWhileAReportRuns_whenTheReportReturns_thenTheSameDeliveryReportsIt() {
        let queue = DispatchQueue(label: "activity-serial")
        let events = SharedValue<[String]>([])
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let counter = ActivityCounter(queue: queue, report: { active in
            if active { entered.signal(); proceed.wait() }
            events.withLock { $0.append("\(active)") }
        })
        counter.apply(.began)
        XCTAssertEqual(entered.wait(timeout: .now() + 10), .success)
        queue.async { events.withLock { $0.append("next block") } }   // queued behind the running report
        counter.apply(.ended)   // while `true` is being reported
        proceed.signal()
        queue.sync {}
        XCTAssertEqual(events.withLock { $0 }, ["true", "false", "next block"], "idle came from the running block")
    }

    func test_givenAnEndWithoutABegin_whenAnAttemptThenBegins_thenItStillCountsAsBusy() {
        let reports = ActivityReports()
        let counter = ActivityCounter(queue: reports.queue, report: { reports.append($0) })
        counter.apply(.ended)
        counter.apply(.began)
        XCTAssertEqual(reports.flushed(), [true], "the stray end did not push the count below zero")
        counter.apply(.ended)
        XCTAssertEqual(reports.flushed(), [true, false])
    }

    func test_givenStateFlippingOnEveryReport_whenDelivering_thenTheQueueGetsTurnsBetweenBatches() {
        let queue = DispatchQueue(label: "activity-flipping")
        let events = SharedValue<[String]>([])
        let flips = SharedValue(0)
        let counterBox = SharedValue<ActivityCounter?>(nil)
        let counter = ActivityCounter(queue: queue, report: { active in
            events.withLock { $0.append("\(active)") }
            // Each report flips the state again, up to ten times, so the same block has more to say.
            guard flips.withLock({ value -> Bool in value += 1; return value <= 10 }) else { return }
            if active {
                counterBox.withLock { $0 }?.apply(.ended)
            } else {
                counterBox.withLock { $0 }?.apply(.began)
                queue.async { events.withLock { $0.append("other work") } }
            }
        })
        counterBox.withLock { $0 = counter }
        counter.apply(.began)
        var seen: [String] = []
        for _ in 0..<20 {   // each turn queues the next; sync until no report is left
            queue.sync {}
            seen = events.withLock { $0 }
        }
        let reports = seen.filter { $0 != "other work" }
        XCTAssertEqual(reports.count, 11, "the first report and ten flips, none lost")
        XCTAssertEqual(reports.first, "true")
        XCTAssertEqual(zip(reports, reports.dropFirst()).filter { $0 == $1 }.count, 0, "alternating")
        let firstOther = seen.firstIndex(of: "other work")
        XCTAssertNotNil(firstOther)
        XCTAssertLessThan(firstOther ?? .max, reports.count, "other work on the queue ran between batches of reports")
        counterBox.withLock { $0 = nil }
    }
}

/// Collects busy/idle reports made on its serial `queue`.
final class ActivityReports: @unchecked Sendable {
    // @unchecked: `values` is only touched while holding `condition`.
    let queue = DispatchQueue(label: "activity-reports")
    private let condition = NSCondition()
    private var values: [Bool] = []

    func append(_ value: Bool) {
        condition.withLock {
            values.append(value)
            condition.broadcast()
        }
    }

    /// Waits until at least `count` reports arrived, for at most 10 s.
    func waitFor(count: Int) -> Bool {
        condition.waitUntil({ values.count >= count }, timeout: 10)
    }

    /// Waits until the last report is idle, for at most 10 s.
    func waitUntilIdle() -> Bool {
        condition.waitUntil({ values.last == false }, timeout: 10)
    }

    /// The reports once everything already queued on `queue` has run.
    func flushed() -> [Bool] {
        queue.sync {}
        return condition.withLock { values }
    }
}

extension NetworkActivityPluginTests {
    private struct Chat: Endpoint {
        var path: String { "chat" }
    }

    func test_givenAStreamedResponse_whenItsHeadArrives_thenTheAttemptEndsWhileTheBodyStillStreams() async throws {
        let reports = ActivityReports()
        let clock = VirtualClock()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = [NetworkActivityPlugin(queue: reports.queue) { reports.append($0) }]
        let pieces = ["Hel", "lo"].map { Data($0.utf8) }
        // The head arrives one virtual second in, so the busy report is made before it: a head
        // that came at once could end the attempt before the plugin's queue reported anything
        // (it reports the state it finds, and an attempt already over is no change).
        let client = NetworkClient.stubbing()
            .stub(.get, "chat", .streaming(pieces, every: 0.1, delay: 1))
            .clock(clock)
            .makeClient(configuration: configuration)
        let opening = Task { try await client.stream(Chat()) }
        XCTAssertTrue(reports.waitFor(count: 1), "busy while the head is awaited")
        XCTAssertTrue(clock.waitUntilPending(dueAt: 1), "the head was not scheduled")
        clock.advance(by: 1)
        let streamed = try await opening.value
        XCTAssertTrue(reports.waitFor(count: 2), "idle once the head arrived")
        XCTAssertEqual(reports.flushed(), [true, false])
        var iterator = streamed.makeAsyncIterator()
        clock.advance(by: 0.1)
        let first = try await iterator.next()
        XCTAssertEqual(first, pieces[0], "the body still streams after the attempt ended")
    }
}
