import Dispatch
import Foundation
import Promises
import XCTest

/// `timeout` and `after` remove their timer, and all it holds, as soon as it is no longer needed,
/// instead of leaving it scheduled until its deadline.
final class TimerTests: XCTestCase {
    /// Timers of earlier tests may still be pending, and may fire meanwhile: counts are compared
    /// with the count before, never with zero.
    private var pending: Int { PromiseTimers.heap.pendingCount }

    func test_givenManyTimeoutsOfAnHour_whenTheirPromisesSettleFirst_thenNoTimerIsLeft() {
        let before = pending
        let count = 10_000
        let pairs = (0..<count).map { _ in Promise<Int>.pending() }
        let timed = pairs.map { $0.promise.timeout(seconds: 3_600) }
        XCTAssertGreaterThanOrEqual(pending, before + count)
        for (index, pair) in pairs.enumerated() { pair.resolver.fulfill(index) }
        XCTAssertEqual(value(of: when(fulfilled: timed)), Array(0..<count))
        XCTAssertLessThanOrEqual(pending, before, "a settled promise's timer is removed")
    }

    func test_givenTimeouts_whenTheCallerCancelsTheirChains_thenNoTimerIsLeft() {
        let before = pending
        let pairs = (0..<1_000).map { _ in Promise<Int>.pending() }   // resolvers kept: a dropped one rejects
        let chains = pairs.map { $0.promise.timeout(seconds: 3_600).map { $0 + 1 } }
        XCTAssertGreaterThanOrEqual(pending, before + 1_000)
        for chain in chains { chain.cancel() }
        XCTAssertLessThanOrEqual(pending, before, "the cancellation travelled up to the timed promise")
        XCTAssertTrue(pairs.allSatisfy { !$0.promise.isPending })
    }

    func test_givenAnAlreadySettledPromise_whenGivenATimeout_thenNoTimerIsScheduled() {
        let before = pending
        let timed = Promise.value(1).timeout(seconds: 3_600)
        XCTAssertLessThanOrEqual(pending, before)
        XCTAssertEqual(value(of: timed), 1)
    }

    func test_givenAftersOfAnHour_whenCancelled_thenNoTimerIsLeft() {
        let before = pending
        let timers = (0..<1_000).map { _ in after(seconds: 3_600) }
        let chained = after(.seconds(3_600)).then { Promise.value(1) }
        XCTAssertGreaterThanOrEqual(pending, before + 1_001)
        for timer in timers { timer.cancel() }
        chained.cancel()
        XCTAssertLessThanOrEqual(pending, before)
        XCTAssertTrue(timers.allSatisfy(\.isCancelled))
    }

    func test_givenDelaysBeyondThirtyYears_thenNothingIsScheduledAndNothingTraps() {
        let before = pending
        let far = after(seconds: 1e12)
        let farInterval = after(.seconds(Int.max))
        let (open, seal) = Promise<Int>.pending()
        let patient = open.timeout(seconds: 1e300)
        XCTAssertLessThanOrEqual(pending, before)
        XCTAssertTrue(far.isPending)
        XCTAssertTrue(farInterval.isPending)
        far.cancel()
        farInterval.cancel()
        seal.fulfill(5)
        XCTAssertEqual(value(of: patient), 5)
    }

    func test_givenEachIntervalUnit_thenAfterWaitsAtLeastThatLong() {
        for (interval, nanoseconds) in [
            (DispatchTimeInterval.microseconds(20_000), UInt64(20_000_000)), (.nanoseconds(20_000_000), 20_000_000),
        ] {
            let start = DispatchTime.now().uptimeNanoseconds
            XCTAssertNotNil(value(of: after(interval)))
            XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - start, nanoseconds, "\(interval)")
        }
    }
}
