import Foundation
import XCTest
@testable import Courier
import Promises

/// The client's lock-box, `Protected`, under contention: it must exclude, and (run with
/// `--sanitize=thread`) Thread Sanitizer must see it do so, or every lock-guarded access in the
/// client shows up as a data race and real races drown in the noise.
final class LockingTests: XCTestCase {
    func test_givenEightThreadsIncrementingAProtectedCounter_thenNoIncrementIsLost() {
        final class Box: Sendable {
            let counter = Protected(0)
        }
        let box = Box()
        let threads = 8, increments = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<increments {
                box.counter.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(box.counter.withLock { $0 }, threads * increments)
    }

    func test_givenScheduledWorkCancelledFromEightThreadsAtOnce_thenItsCancelActionRunsExactlyOnce() {
        for _ in 0..<200 {
            let runs = TransportCallCounter()
            let work = ScheduledWork { runs.increment() }
            let start = DispatchGroup()
            start.enter()
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                DispatchQueue.global().async {
                    start.wait()
                    work.cancel()
                    done.leave()
                }
            }
            start.leave()
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(runs.value, 1)
        }
    }
}
