import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stub's delay runs on the request's own deadline, in real and in virtual time.
final class StubTimingTests: XCTestCase {
    func test_givenADelayLongerThanTheTimeout_whenRequestedInRealTime_thenItTimesOutAtTheTimeout() {
        // A stub far slower than any stall of a busy machine: only the deadline can end it in time.
        let client = NetworkClient.stubbing().delay(60).body(json: "{}").makeClient()
        let started = Date()
        let result = settle(client.request(StubJSONEndpoint(path: "slow", timeout: 0.3)))
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(networkError(result)?.shortName, "timedOut")
        XCTAssertGreaterThanOrEqual(elapsed, 0.29)
        XCTAssertLessThan(elapsed, 20, "the request waited for the stub instead of its deadline")
    }

    func test_givenADelayShorterThanTheTimeout_whenRequestedInRealTime_thenItSucceedsAfterTheDelay() {
        let client = NetworkClient.stubbing().delay(0.2).body(json: #"{"ok":true}"#).makeClient()
        let started = Date()
        let result = settle(client.request(StubJSONEndpoint(path: "slow", timeout: 3)))
        XCTAssertEqual(try result?.get()["ok"].bool, true)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.19)
    }

    func test_givenAVirtualClock_whenAdvancedPastTheTimeout_thenTheDelayedStubTimesOut() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(2).body(json: "{}").clock(clock).makeClient()
        let promise = client.request(StubJSONEndpoint(path: "slow", timeout: 0.5))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "deadline and stub delay were not scheduled")
        clock.advance(by: 0.49)
        XCTAssertTrue(promise.isPending, "settled before its deadline")
        clock.advance(by: 0.01)
        XCTAssertEqual(networkError(settle(promise))?.shortName, "timedOut")
        XCTAssertEqual(clock.pendingCount, 0, "the stub's delay should be cancelled with the request")
    }

    func test_givenAVirtualClock_whenAdvancedPastTheDelay_thenTheStubAnswers() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing().delay(0.2).body(json: #"{"ok":true}"#).clock(clock).makeClient()
        let promise = client.request(StubJSONEndpoint(path: "fast", timeout: 1))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2))
        clock.advance(by: 0.2)
        XCTAssertEqual(try settle(promise)?.get()["ok"].bool, true)
    }

    func test_givenARetryWaitThatNeverEnds_whenTheRequestFails_thenItFailsNowInsteadOfHanging() {
        let client = NetworkClient.stubbing().status(503).makeClient()
        let endless = RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .never, maximumDelay: .infinity)
        let result = settle(client.request(StubJSONEndpoint(path: "busy", timeout: 5, retryPolicy: endless)), within: 3)
        XCTAssertEqual(networkError(result)?.shortName, "serverError(503)")
    }

    func test_givenAVirtualClock_whenRetryingWithBackoff_thenThePausesRunOnTheClock() {
        let clock = VirtualClock()
        let client = NetworkClient.stubbing()
            .sequence([StubResponse(status: 503), StubResponse(status: 503), .json(#"{"ok":true}"#)])
            .clock(clock).makeClient()
        let policy = RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .seconds(10), jitter: 0)
        let promise = client.request(StubJSONEndpoint(path: "flaky", timeout: 1000, retryPolicy: policy))
        // Each retry pause is due well before the 1000 s deadline: advance to it once it is scheduled.
        var pausesRun = 0
        let giveUp = Date(timeIntervalSinceNow: 5)
        while promise.isPending, pausesRun < 2, Date() < giveUp {
            if let due = clock.nextDueTime, due < 500 {
                clock.advance(by: due - clock.now)
                pausesRun += 1
            } else {
                clock.waitUntilPending(atLeast: 2, timeout: 0.01)
            }
        }
        XCTAssertEqual(try settle(promise)?.get()["ok"].bool, true)
        XCTAssertGreaterThanOrEqual(clock.now, 30, "two back-off pauses of 10 s and 20 s")
    }

    /// Twenty delayed-stub timeout scenarios: in virtual time they take no wall-clock time.
    func test_givenManyDelayedStubTimeouts_whenRunOnAVirtualClock_thenTheSuiteTakesNoRealTime() {
        let started = Date()
        for index in 0..<20 {
            let clock = VirtualClock()
            let timeout = 5.0 + Double(index)
            let client = NetworkClient.stubbing().delay(timeout * 2).clock(clock).makeClient()
            let promise = client.request(StubJSONEndpoint(path: "slow", timeout: timeout))
            XCTAssertTrue(clock.waitUntilPending(atLeast: 2))
            clock.advance(by: timeout)
            XCTAssertEqual(networkError(settle(promise))?.shortName, "timedOut")
        }
        // 20 scenarios covering 290 virtual seconds of timeouts.
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    /// `.infinity` means "never" for every scheduler; advancing by it must neither run such work
    /// nor leave the clock at infinity, where every later item would fall due at once.
    func test_givenInfiniteDelaysAndAnInfiniteAdvance_thenNothingNeverRunsAndTheClockKeepsItsOrder() {
        let clock = VirtualClock()
        let ran = SharedValue<[String]>([])
        clock.schedule(after: .infinity) { ran.withLock { $0.append("never") } }
        XCTAssertEqual(clock.pendingCount, 0, "work that can never run was kept")
        clock.advance(by: .infinity)
        clock.advance(by: .nan)
        XCTAssertTrue(clock.now.isFinite)
        clock.schedule(after: 0.2) { ran.withLock { $0.append("later") } }
        clock.schedule(after: 0.1) { ran.withLock { $0.append("sooner") } }
        clock.advance(by: 0.15)
        XCTAssertEqual(ran.withLock { $0 }, ["sooner"])
        clock.advance(by: 0.1)
        XCTAssertEqual(ran.withLock { $0 }, ["sooner", "later"])
    }

    /// A timeout FoundationNetworking cannot express as a deadline must not trap.
    func test_givenAnInfiniteWaitTimeout_whenWorkArrivesLater_thenWaitUntilPendingReturns() {
        let clock = VirtualClock()
        DispatchQueue.global().async { clock.schedule(after: 1) {} }
        XCTAssertTrue(clock.waitUntilPending(atLeast: 1, timeout: .infinity))
    }
}
