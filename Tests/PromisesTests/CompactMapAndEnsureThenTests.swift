import Dispatch
import Foundation
import Promises
import XCTest

final class CompactMapAndEnsureThenTests: XCTestCase {
    func test_givenATransformThatReturnsAValue_whenCompactMapped_thenItIsTheValue() {
        XCTAssertEqual(value(of: Promise.value("42").compactMap { Int($0) }), 42)
    }

    func test_givenATransformThatReturnsNil_whenCompactMapped_thenItRejectsWithCompactMapReturnedNil() {
        XCTAssertEqual(error(of: Promise.value("forty-two").compactMap { Int($0) }) as? PromiseError, .compactMapReturnedNil)
    }

    func test_givenATransformThatThrowsOrARejectedPromise_whenCompactMapped_thenThatErrorPassesOn() {
        XCTAssertEqual(error(of: Promise.value(1).compactMap { _ -> Int? in throw TestError(1) }) as? TestError, TestError(1))
        XCTAssertEqual(error(of: Promise<Int>(error: TestError(2)).compactMap { $0 }) as? TestError, TestError(2))
    }

    func test_givenCompactMapOnAQueue_thenTheTransformRunsThere() {
        let queue = makeSerialQueue("compact-map")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        XCTAssertEqual(value(of: Promise.value(1).compactMap(on: queue) { _ in DispatchQueue.getSpecific(key: key) }), true)
    }

    /// The result waits for the clean-up's promise, and is the original result whatever the
    /// clean-up's outcome.
    func test_givenEnsureThen_whenTheCleanUpIsPending_thenTheResultWaitsAndThenPassesTheOriginalOn() {
        let (cleanUp, finishCleanUp) = Promise<Void>.pending()
        let ran = Box(0)
        let started = DispatchSemaphore(value: 0)
        let chained = Promise.value(7).ensureThen {
            ran.mutate { $0 += 1 }
            started.signal()
            return cleanUp
        }
        XCTAssertEqual(started.wait(timeout: .now() + testTimeout), .success, "the clean-up never started")
        XCTAssertTrue(chained.isPending, "settled before the clean-up finished")
        finishCleanUp.reject(TestError(9))
        XCTAssertEqual(value(of: chained), 7)
        XCTAssertEqual(ran.get(), 1)
    }

    func test_givenARejectedPromise_whenEnsureThen_thenTheCleanUpRunsAndTheErrorPassesOn() {
        let ran = Box(0)
        let chained = Promise<Int>(error: TestError(3)).ensureThen {
            ran.mutate { $0 += 1 }
            return .value(())
        }
        XCTAssertEqual(error(of: chained) as? TestError, TestError(3))
        XCTAssertEqual(ran.get(), 1)
    }

    /// Nothing but the observer holds the clean-up's promise: a bare `after(…)` has no
    /// resolver and its timer holds it weakly, so it must be kept until it settles.
    func test_givenACleanUpThatIsABareAfter_whenEnsureThen_thenTheResultStillSettles() {
        let chained = Promise.value(1).ensureThen { after(.milliseconds(20)) }
        XCTAssertEqual(value(of: chained, timeout: 5), 1)
        let failed = Promise<Int>(error: TestError(4)).ensureThen { after(seconds: 0.02) }
        XCTAssertEqual(error(of: failed, timeout: 5) as? TestError, TestError(4))
    }
}
