import Dispatch
import Foundation
import Promises
import XCTest

/// `timeout` and `after` remove their timer, and all it holds, as soon as it is no longer needed,
/// instead of leaving it scheduled until its deadline.
///
/// The heap is the process's: timers of earlier tests may still be pending (and fire meanwhile),
/// so counts are compared with what the test itself added, never with zero.
final class TimerTests: XCTestCase {
    private var pending: Int { PromiseTimers.heap.pendingCount }
    private var added: UInt64 { PromiseTimers.heap.addedCount }

    func test_givenManyTimeoutsOfAnHour_whenTheirPromisesSettleFirst_thenNoTimerIsLeft() {
        let before = pending
        let count = 10_000
        let pairs = (0..<count).map { _ in Promise<Int>.pending() }
        let timed = pairs.map { $0.promise.timeout(seconds: 3_600) }
        XCTAssertGreaterThanOrEqual(pending, count)
        for (index, pair) in pairs.enumerated() { pair.resolver.fulfill(index) }
        XCTAssertEqual(value(of: when(fulfilled: timed)), Array(0..<count))
        XCTAssertLessThanOrEqual(pending, before + 10, "a settled promise's timer is removed")
    }

    func test_givenTimeouts_whenTheCallerCancelsTheirChains_thenNoTimerIsLeft() {
        let before = pending
        let pairs = (0..<1_000).map { _ in Promise<Int>.pending() }   // resolvers kept: a dropped one rejects
        let chains = pairs.map { $0.promise.timeout(seconds: 3_600).map { $0 + 1 } }
        XCTAssertGreaterThanOrEqual(pending, 1_000)
        for chain in chains { chain.cancel() }
        XCTAssertLessThanOrEqual(pending, before + 10, "the cancellation travelled up to the timed promise")
        XCTAssertTrue(pairs.allSatisfy { !$0.promise.isPending })
    }

    func test_givenAnAlreadySettledPromise_whenGivenATimeout_thenNoTimerIsScheduled() {
        let start = added
        let timed = Promise.value(1).timeout(seconds: 3_600)
        XCTAssertEqual(added, start)
        XCTAssertEqual(value(of: timed), 1)
    }

    func test_givenAftersOfAnHour_whenCancelled_thenNoTimerIsLeft() {
        let before = pending
        let timers = (0..<1_000).map { _ in after(seconds: 3_600) }
        let chained = after(.seconds(3_600)).then { Promise.value(1) }
        XCTAssertGreaterThanOrEqual(pending, 1_001)
        for timer in timers { timer.cancel() }
        chained.cancel()
        XCTAssertLessThanOrEqual(pending, before + 10)
        XCTAssertTrue(timers.allSatisfy(\.isCancelled))
    }

    func test_givenAnAfterThatFires_thenItsEntryIsGone() {
        let start = added
        let before = pending
        XCTAssertNotNil(value(of: after(seconds: 0.01)))
        XCTAssertGreaterThanOrEqual(added, start + 1)
        XCTAssertLessThanOrEqual(pending, before + 10)
    }

    func test_givenDelaysBeyondThirtyYears_thenNothingIsScheduledAndNothingTraps() {
        let start = added
        let far = after(seconds: 1e12)
        let farInterval = after(.seconds(Int.max))
        let (open, seal) = Promise<Int>.pending()
        let patient = open.timeout(seconds: 1e300)
        XCTAssertEqual(added, start, "nothing scheduled")
        XCTAssertTrue(far.isPending)
        XCTAssertTrue(farInterval.isPending)
        far.cancel()
        farInterval.cancel()
        seal.fulfill(5)
        XCTAssertEqual(value(of: patient), 5)
    }

    func test_givenEachIntervalUnit_thenItConvertsToNanosecondsExactly() {
        XCTAssertEqual(PromiseTimers.nanoseconds(.seconds(3)), 3_000_000_000)
        XCTAssertEqual(PromiseTimers.nanoseconds(.milliseconds(1_001)), 1_001_000_000)
        XCTAssertEqual(PromiseTimers.nanoseconds(.microseconds(1_000_001)), 1_000_001_000)
        XCTAssertEqual(PromiseTimers.nanoseconds(.nanoseconds(15)), 15)
        XCTAssertEqual(PromiseTimers.nanoseconds(.milliseconds(-5)), 0)
        XCTAssertNil(PromiseTimers.nanoseconds(.never))
        XCTAssertNil(PromiseTimers.nanoseconds(.seconds(Int.max)), "beyond 30 years: never")
        XCTAssertEqual(PromiseTimers.nanoseconds(0.25), 250_000_000)
        XCTAssertEqual(PromiseTimers.nanoseconds(-.infinity), 0)
        XCTAssertNil(PromiseTimers.nanoseconds(.nan))
        XCTAssertNil(PromiseTimers.nanoseconds(1e10))
    }

    func test_givenEachIntervalUnit_thenAfterWaitsAtLeastThatLong() {
        for (interval, nanoseconds) in [
            (DispatchTimeInterval.seconds(1), UInt64(1_000_000_000)), (.milliseconds(21), 21_000_000),
            (.microseconds(20_001), 20_001_000), (.nanoseconds(20_000_001), 20_000_001),
        ] {
            let start = DispatchTime.now().uptimeNanoseconds
            XCTAssertNotNil(value(of: after(interval)))
            XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - start, nanoseconds, "\(interval)")
        }
    }

    /// A timed-out chain whose `onCancel` hook waits for another timer must not keep that timer
    /// from firing (each timer runs on its own).
    func test_givenAHookThatWaitsForAnotherTimeout_whenBothFire_thenTheOtherStillFires() {
        let otherFired = DispatchSemaphore(value: 0)
        let hookDone = expectation(description: "the waiting hook finished")
        let (first, firstSeal) = Promise<Int>.pending()
        firstSeal.onCancel {
            let fired = otherFired.wait(timeout: .now() + 5)
            XCTAssertEqual(fired, .success, "the second timeout waited behind the first one's hook")
            hookDone.fulfill()
        }
        let (second, secondSeal) = Promise<Int>.pending()
        _ = first.timeout(seconds: 0.01)
        _ = second.timeout(seconds: 0.05).catch { _ in otherFired.signal() }
        wait(for: [hookDone], timeout: 10)
        withExtendedLifetime((firstSeal, secondSeal)) {}
    }
}
