import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Timed work that was already on its way when it was cancelled: a deadline handed to its queue
/// an instant before the attempt ended still runs. These tests run such work late, on purpose.
extension RequestRetrierTests {
    /// Keeps every piece of work with a delay, cancelled or not, so that a test can run it at the
    /// worst moment; work due at once runs at once on a global queue (a retry's zero wait).
    // @unchecked: `kept` is only touched while holding `lock`.
    final class LateWorkScheduler: RequestScheduler, @unchecked Sendable {
        private let lock = NSCondition()
        private var kept: [(delay: TimeInterval, work: @Sendable () -> Void)] = []

        func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
            guard delay > 0 else {
                DispatchQueue.global().async(execute: work)
                return ScheduledWork {}
            }
            lock.withLock {
                kept.append((delay, work))
                lock.broadcast()
            }
            return ScheduledWork {}   // "too late": the work is already on its way
        }

        /// Waits until `count` pieces of work have been kept; `false` after 5 seconds.
        func waitForKept(_ count: Int) -> Bool {
            lock.waitUntil({ kept.count >= count }, timeout: 5)
        }

        /// Runs the `index`-th piece of work kept (in scheduling order) on this thread.
        func runKept(_ index: Int) {
            let work = lock.withLock { kept[index].work }
            work()
        }
    }

    func test_givenAnAttemptsDeadlineOnItsWay_whenItRunsWhileTheRetriersDecide_thenItChangesNothingAndTheDecisionStands() {
        let scheduler = LateWorkScheduler()
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier(holds: true)
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]).recording(into: recorder),
            retriers: [retrier], scheduler: scheduler)
        let promise = client.request(Request("x"))
        XCTAssertEqual(retrier.asked.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(scheduler.waitForKept(2), "the first attempt's deadline, then the decision's time limit")

        scheduler.runKept(0)   // the first attempt's deadline arrives while the retrier decides
        XCTAssertTrue(promise.isPending, "a late deadline of the failed attempt does not end the request")
        XCTAssertEqual(retrier.cancelCount, 0, "nor does it cancel the decision")

        retrier.answerAll(.retry)
        XCTAssertEqual(outcomeName(settle(promise)), "ok", "the decision stands: the retry was sent and answered")
        XCTAssertEqual(recorder.count, 2)

        scheduler.runKept(1)   // the decision's time limit, after the decision was made
        XCTAssertEqual(retrier.cancelCount, 0, "a late limit cancels nothing once the request moved on")
        XCTAssertEqual(outcomeName(promise.result), "ok")
    }

    func test_givenADecisionsTimeLimitOnItsWay_whenItRunsAfterTheRetryStarted_thenTheNextDecisionIsNotCutShort() {
        let scheduler = LateWorkScheduler()
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier(holds: true)
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), StubResponse(status: 502), .json("{}")]).recording(into: recorder),
            retriers: [retrier], scheduler: scheduler)
        let promise = client.request(Request("x"))
        XCTAssertEqual(retrier.asked.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(scheduler.waitForKept(2), "the first attempt's deadline, then the first decision's time limit")
        retrier.answerAll(.retry)
        XCTAssertEqual(retrier.asked.wait(timeout: .now() + 5), .success, "the retry failed too: a second decision")
        XCTAssertTrue(scheduler.waitForKept(4), "the second attempt's deadline, then the second decision's time limit")

        scheduler.runKept(1)   // the first decision's limit arrives during the second decision
        scheduler.runKept(2)   // and so does the second attempt's deadline
        XCTAssertTrue(promise.isPending, "neither belongs to the decision being made")
        XCTAssertEqual(retrier.cancelCount, 0)

        scheduler.runKept(3)   // the second decision's own limit: that one ends it
        XCTAssertEqual(outcomeName(settle(promise)), "serverError(502)", "a decision cut short is a no")
        XCTAssertEqual(retrier.cancelCount, 1)
        XCTAssertEqual(recorder.count, 2)
    }
}
