import Dispatch
import Foundation
import Promises
import XCTest

/// Time-outs and delays fire even while every thread of the global pool is blocked (in `wait()`,
/// say): they must not wait for the pool to grow to bound a wait. (On Linux the pool grows by
/// about one thread a second, so with the timer on the pool these took 15 s and more.)
///
/// The outcome is observed on a serial queue of the test's own and waited for with a limit, so
/// that a regression fails the test instead of hanging it behind the blocked pool.
final class TimerStarvationTests: XCTestCase {
    /// Parks `count` blocks on the global queue (every thread the pool has, and the next ones it
    /// makes) until the returned closure releases them.
    private func parkGlobalPool(_ count: Int) -> () -> Void {
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<count { DispatchQueue.global().async { release.wait() } }
        return { for _ in 0..<count { release.signal() } }
    }

    /// How long `promise` took to settle, and how; `nil` (with a failure) when it did not within 10 s.
    private func settleTime<T>(of promise: Promise<T>, since start: UInt64) -> (seconds: Double, result: Result<T, any Error>)? {
        let settled = DispatchSemaphore(value: 0)
        promise.tap(on: DispatchQueue(label: "TimerStarvationTests.observer")) { _ in settled.signal() }.cauterize()
        guard settled.wait(timeout: .now() + 10) == .success, let result = promise.result else {
            XCTFail("still pending after 10 s")
            return nil
        }
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, result)
    }

    func test_givenABlockedGlobalPool_whenATimeoutIsDue_thenItRejectsOnTime() {
        let release = parkGlobalPool(64)
        defer { release() }
        let (pending, resolver) = Promise<Int>.pending()
        let start = DispatchTime.now().uptimeNanoseconds
        guard let settled = settleTime(of: pending.timeout(seconds: 0.2), since: start) else { return }
        XCTAssertThrowsError(try settled.result.get()) { XCTAssertEqual($0 as? PromiseError, .timedOut) }
        XCTAssertLessThan(settled.seconds, 3, "the time-out waited for the global pool")
        XCTAssertTrue(pending.isCancelled, "the time-out cancelled the work it bounds")
        withExtendedLifetime(resolver) {}
    }

    func test_givenABlockedGlobalPool_whenAnAfterIsDue_thenItIsFulfilledOnTime() {
        let release = parkGlobalPool(64)
        defer { release() }
        let start = DispatchTime.now().uptimeNanoseconds
        for delay in [0.1, 0] {
            guard let settled = settleTime(of: after(seconds: delay), since: start) else { return }
            XCTAssertNoThrow(try settled.result.get())
            XCTAssertLessThan(settled.seconds, 3, "after(seconds: \(delay)) waited for the global pool")
        }
    }

    /// Many time-outs due together, each with a cancel hook that takes a while, run on the global
    /// pool and a few serial lanes, not on a thread each: a burst of them must not ask
    /// libdispatch for hundreds of threads (its limit on Linux is 255, and once it is reached no
    /// serial queue in the process gets a thread).
    func test_givenTimeoutsDueTogetherWithSlowHooks_thenTheyDoNotTakeAThreadEach() throws {
        let pendings = (0..<200).map { _ in Promise<Int>.pending() }
        for pending in pendings { pending.resolver.onCancel { usleep(20_000) } }   // the hook's own work
        let start = DispatchTime.now().uptimeNanoseconds
        let all = when(resolved: pendings.map { $0.promise.timeout(seconds: 0.05) })
        guard let settled = settleTime(of: all, since: start) else { return }
        let results = try settled.result.get()
        XCTAssertEqual(results.count, 200)
        XCTAssertTrue(results.allSatisfy { if case .failure(PromiseError.timedOut) = $0 { true } else { false } })
        #if os(Linux)
        // Threads that ran hooks stay alive, idle, for a while after: counting them now shows
        // how many the burst asked for.
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
        XCTAssertLessThan(threads, 120, "the burst of time-outs left \(threads) threads")
        #endif
        withExtendedLifetime(pendings) {}   // released resolvers would reject their promises first
    }
}
