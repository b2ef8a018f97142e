import Dispatch
import Foundation
import Promises
import XCTest

/// Time-outs and delays fire on threads of their own, not on the global pool: a pool whose
/// every thread is blocked (in `wait()`, say) must not hold up the time-out that bounds a wait.
/// (On Linux the pool grows by about one thread a second, so with the timer on the pool the
/// waits below took 15 s and more.)
final class TimerStarvationTests: XCTestCase {
    /// Parks `count` blocks on the global queue (every thread the pool has, and the next ones it
    /// makes) until the returned closure releases them.
    private func parkGlobalPool(_ count: Int) -> () -> Void {
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<count { DispatchQueue.global().async { release.wait() } }
        return { for _ in 0..<count { release.signal() } }
    }

    private func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    func test_givenABlockedGlobalPool_whenATimeoutIsDue_thenTheBoundedWaitEndsOnTime() {
        let release = parkGlobalPool(64)
        defer { release() }
        let (pending, resolver) = Promise<Int>.pending()
        let start = DispatchTime.now().uptimeNanoseconds
        XCTAssertThrowsError(try pending.timeout(seconds: 0.2).wait()) { error in
            XCTAssertEqual(error as? PromiseError, .timedOut)
        }
        XCTAssertLessThan(seconds(since: start), 3, "the time-out waited for the global pool")
        XCTAssertTrue(pending.isCancelled, "the time-out cancelled the work it bounds")
        withExtendedLifetime(resolver) {}
    }

    func test_givenABlockedGlobalPool_whenAnAfterIsDue_thenItIsFulfilledOnTime() {
        let release = parkGlobalPool(64)
        defer { release() }
        let start = DispatchTime.now().uptimeNanoseconds
        XCTAssertNoThrow(try after(seconds: 0.1).wait())
        XCTAssertLessThan(seconds(since: start), 3, "the delay waited for the global pool")
    }
}
