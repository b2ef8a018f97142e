import Foundation
import XCTest
@testable import Courier

final class DispatchSchedulerTests: XCTestCase {
    func test_givenDelay_whenScheduled_thenRunsOnceNoEarlierThanTheDelay() {
        let scheduler = DispatchScheduler()
        let ran = expectation(description: "ran")
        let started = DispatchTime.now().uptimeNanoseconds
        let elapsed = SharedValue<UInt64>(0)
        scheduler.schedule(after: 0.05) {
            elapsed.withLock { $0 = DispatchTime.now().uptimeNanoseconds - started }
            ran.fulfill()
        }
        wait(for: [ran], timeout: 5)
        XCTAssertGreaterThanOrEqual(elapsed.withLock { $0 }, 49_000_000)
    }

    /// The default scheduler's timer has a serial queue of its own: a request's deadline fires
    /// on time even while every thread of the global pool is blocked (on Linux the pool grows by
    /// about one thread a second, so on the global queue this took 15 s and more).
    func test_givenABlockedGlobalPool_whenARequestsDeadlinePasses_thenItTimesOutOnTime() {
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<64 { DispatchQueue.global().async { release.wait() } }
        defer { for _ in 0..<64 { release.signal() } }
        let client = NetworkClient.stubbing().body(json: "{}").delay(30).makeClient()
        let ended = expectation(description: "the request ended")
        let outcome = SharedValue("pending")
        let start = DispatchTime.now().uptimeNanoseconds
        _ = client.request(StubJSONEndpoint(path: "slow", timeout: 0.2)) { result in
            outcome.withLock { $0 = outcomeName(result.mapError { $0 as any Error }) }
            ended.fulfill()
        }
        wait(for: [ended], timeout: 10)
        XCTAssertEqual(outcome.withLock { $0 }, "timedOut")
        XCTAssertLessThan(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, 3,
                          "the deadline waited for the global pool")
        withExtendedLifetime(client) {}
    }

    /// Work due at once is not queued behind other such work (stub answers with no delay run
    /// side by side): the first piece waits for the second, which must run meanwhile.
    func test_givenTheDefaultScheduler_whenTwoPiecesAreDueAtOnce_thenTheyRunSideBySide() {
        let scheduler = DispatchScheduler()
        let secondRan = DispatchSemaphore(value: 0)
        let firstSawSecond = expectation(description: "the first piece saw the second run")
        scheduler.schedule(after: 0) {
            if secondRan.wait(timeout: .now() + 5) == .success { firstSawSecond.fulfill() }
        }
        scheduler.schedule(after: 0) { secondRan.signal() }
        wait(for: [firstSawSecond], timeout: 10)
    }

    func test_givenZeroDelay_whenScheduled_thenRunsLaterNotInsideTheCall() {
        let queue = DispatchQueue(label: "scheduler")
        let scheduler = DispatchScheduler(queue: queue)
        let ran = expectation(description: "ran")
        let hasRun = SharedValue(false)
        queue.sync {
            scheduler.schedule(after: 0) {
                hasRun.withLock { $0 = true }
                ran.fulfill()
            }
            XCTAssertFalse(hasRun.withLock { $0 }, "the work ran inside schedule(after:)")
        }
        wait(for: [ran], timeout: 5)
    }

    func test_givenCancelledWork_whenItsTimePasses_thenItNeverRuns() {
        // A serial queue, suspended until the work is cancelled: otherwise a stall between the
        // two lines could legitimately let the work run first. The sentinel, due later on the
        // same queue, runs after the cancelled work's time.
        let queue = DispatchQueue(label: "serial")
        let scheduler = DispatchScheduler(queue: queue)
        let cancelledRan = SharedValue(false)
        queue.suspend()
        let work = scheduler.schedule(after: 0.02) { cancelledRan.withLock { $0 = true } }
        work.cancel()
        work.cancel()  // idempotent
        queue.resume()
        let later = expectation(description: "sentinel")
        scheduler.schedule(after: 0.1) { later.fulfill() }
        wait(for: [later], timeout: 5)
        XCTAssertFalse(cancelledRan.withLock { $0 })
    }

    func test_givenWorksScheduledOutOfOrder_whenDue_thenRunInDueOrder() {
        let scheduler = DispatchScheduler(queue: DispatchQueue(label: "serial"))
        let order = SharedValue<[Int]>([])
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = 4
        // Due times 0.3 s apart, each counted from one start: a stall of the test thread between
        // two calls (under a sanitizer, on a busy machine) does not reorder them.
        let start = Date()
        for (label, due) in [(3, 0.9), (1, 0.3), (2, 0.6), (0, 0.0)] {
            let delay = max(due - Date().timeIntervalSince(start), 0)
            scheduler.schedule(after: delay) {
                order.withLock { $0.append(label) }
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(order.withLock { $0 }, [0, 1, 2, 3])
    }

    func test_givenManyCancelledLongDeadlines_whenShortWorkScheduled_thenItStillRunsAndNoCancelledWorkDoes() {
        // A serial queue runs due works in due order, so the sentinel runs after every short one.
        // The queue is suspended while works are scheduled and cancelled: otherwise a work due
        // at once may legitimately run before the line that cancels it.
        let queue = DispatchQueue(label: "serial")
        let scheduler = DispatchScheduler(queue: queue)
        let cancelledRan = SharedValue(0)
        queue.suspend()
        for _ in 0..<10_000 {
            scheduler.schedule(after: 60) { cancelledRan.withLock { $0 += 1 } }.cancel()
        }
        for index in 0..<1_000 {
            scheduler.schedule(after: Double(index % 5) / 1_000) { cancelledRan.withLock { $0 += 1 } }.cancel()
        }
        let kept = (0..<10).map { _ in scheduler.schedule(after: 60) {} }
        queue.resume()
        let ran = expectation(description: "ran")
        scheduler.schedule(after: 0.01) { ran.fulfill() }
        wait(for: [ran], timeout: 5)
        XCTAssertEqual(cancelledRan.withLock { $0 }, 0, "cancelled work ran")
        kept.forEach { $0.cancel() }
    }

    func test_givenInfiniteDelay_whenScheduled_thenNeverRunsAndCancelIsHarmless() {
        let scheduler = DispatchScheduler()
        let ran = SharedValue(false)
        let work = scheduler.schedule(after: .infinity) { ran.withLock { $0 = true } }
        let later = expectation(description: "sentinel")
        scheduler.schedule(after: 0.05) { later.fulfill() }
        wait(for: [later], timeout: 5)
        work.cancel()
        XCTAssertFalse(ran.withLock { $0 })
    }

    func test_givenScheduledWork_whenScheduledFromManyThreads_thenEachRunsExactlyOnceAndNoCancelledWorkRuns() {
        let queue = DispatchQueue(label: "serial")
        let scheduler = DispatchScheduler(queue: queue)
        let count = SharedValue(0)
        let cancelledRan = SharedValue(0)
        let done = expectation(description: "all ran")
        done.expectedFulfillmentCount = 2_000
        // Suspended while scheduling, so no cancelled work can come due before its cancel.
        queue.suspend()
        DispatchQueue.concurrentPerform(iterations: 2_000) { index in
            scheduler.schedule(after: Double(index % 7) / 1_000) {
                count.withLock { $0 += 1 }
                done.fulfill()
            }
            if index.isMultiple(of: 2) {
                scheduler.schedule(after: Double(index % 5) / 1_000) { cancelledRan.withLock { $0 += 1 } }.cancel()
            }
        }
        queue.resume()
        wait(for: [done], timeout: 10)
        // Due after every other work, on the same serial queue: when it runs, any cancelled work
        // that was going to run has run.
        let sentinel = expectation(description: "sentinel")
        scheduler.schedule(after: 0.01) { sentinel.fulfill() }
        wait(for: [sentinel], timeout: 5)
        XCTAssertEqual(count.withLock { $0 }, 2_000)
        XCTAssertEqual(cancelledRan.withLock { $0 }, 0, "cancelled work ran")
    }
}

extension DispatchSchedulerTests {
    func test_givenSchedulerReleased_whenWorkIsPending_thenItStillRuns() {
        let ran = expectation(description: "ran")
        do {
            let scheduler = DispatchScheduler(queue: DispatchQueue(label: "temporary"))
            scheduler.schedule(after: 0.02) { ran.fulfill() }
        }
        wait(for: [ran], timeout: 5)
    }
}

extension DispatchSchedulerTests {
    func test_givenZeroDelayWorkCancelledBeforeItsTurn_whenQueueFrees_thenItNeverRuns() {
        let queue = DispatchQueue(label: "busy")
        let scheduler = DispatchScheduler(queue: queue)
        let ran = SharedValue(false)
        let done = expectation(description: "sentinel")
        queue.sync {
            scheduler.schedule(after: 0) { ran.withLock { $0 = true } }.cancel()
            scheduler.schedule(after: -1) { done.fulfill() }
        }
        wait(for: [done], timeout: 5)
        XCTAssertFalse(ran.withLock { $0 })
    }
}
