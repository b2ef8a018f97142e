import Dispatch
import Foundation
import Promises
import XCTest

/// `reduce`: a sequential fold whose steps are promises.
final class ReduceTests: XCTestCase {
    func test_givenElements_whenReduced_thenEachStepReceivesThePreviousValueInOrder() {
        let seen = Recorder<String>()
        let folded = Promise.value(["a", "b", "c"]).reduce("") { partial, element in
            seen.record("\(partial)+\(element)")
            return Promise.value(partial + element)
        }
        XCTAssertEqual(value(of: folded), "abc")
        XCTAssertEqual(seen.events, ["+a", "a+b", "ab+c"])
    }

    func test_givenAnEmptySequence_whenReduced_thenItFulfilsWithTheInitialResult() {
        let calls = Counter()
        let folded = Promise.value([Int]()).reduce(42) { partial, _ in
            calls.increment()
            return Promise.value(partial)
        }
        XCTAssertEqual(value(of: folded), 42)
        XCTAssertEqual(calls.value, 0)
    }

    func test_givenPendingSteps_whenReduced_thenAStepStartsOnlyAfterThePreviousOneFulfilled() {
        let producers = (0..<3).map { _ in Promise<Int>.pending() }
        let started = Recorder<Int>()
        let startedSignal = DispatchSemaphore(value: 0)
        let queue = makeSerialQueue("reduce-order")
        let folded = Promise.value([0, 1, 2]).reduce(on: queue, 0) { _, index in
            started.record(index)
            startedSignal.signal()
            return producers[index].promise
        }
        XCTAssertEqual(startedSignal.wait(timeout: .now() + testTimeout), .success)
        drain(queue)
        XCTAssertEqual(started.events, [0])  // the second step waits for the first
        producers[1].resolver.fulfill(100)  // settling a later producer early starts nothing
        drain(queue)
        XCTAssertEqual(started.events, [0])
        producers[0].resolver.fulfill(1)
        XCTAssertEqual(startedSignal.wait(timeout: .now() + testTimeout), .success)
        XCTAssertEqual(startedSignal.wait(timeout: .now() + testTimeout), .success)
        producers[2].resolver.fulfill(7)
        XCTAssertEqual(value(of: folded), 7)
        XCTAssertEqual(started.events, [0, 1, 2])
    }

    func test_givenAStepThatRejectsOrThrows_whenReduced_thenTheResultRejectsAndNoLaterStepStarts() {
        let calls = Counter()
        let rejected = Promise.value([1, 2, 3]).reduce(0) { partial, element -> Promise<Int> in
            calls.increment()
            return element == 2 ? Promise(error: TestError(2)) : Promise.value(partial + element)
        }
        XCTAssertEqual(error(of: rejected) as? TestError, TestError(2))
        XCTAssertEqual(calls.value, 2)

        let thrown = Promise.value([1, 2, 3]).reduce(0) { partial, element -> Promise<Int> in
            if element == 1 { throw TestError(1) }
            return Promise.value(partial + element)
        }
        XCTAssertEqual(error(of: thrown) as? TestError, TestError(1))
    }

    func test_givenARejectedUpstream_whenReduced_thenNoStepRunsAndTheErrorPassesOn() {
        let calls = Counter()
        let folded = Promise<[Int]>(error: TestError(9)).reduce(0) { partial, _ in
            calls.increment()
            return Promise.value(partial)
        }
        XCTAssertEqual(error(of: folded) as? TestError, TestError(9))
        XCTAssertEqual(calls.value, 0)
    }

    func test_givenARunningStep_whenTheResultIsCancelled_thenTheStepIsCancelledAndNoFurtherStepStarts() {
        let (step, stepResolver) = Promise<Int>.pending()
        let stepCancelled = DispatchSemaphore(value: 0)
        stepResolver.onCancel { stepCancelled.signal() }
        let calls = Counter()
        let started = DispatchSemaphore(value: 0)
        let queue = makeSerialQueue("reduce-cancel")
        let folded = Promise.value([1, 2, 3]).reduce(on: queue, 0) { _, _ in
            calls.increment()
            started.signal()
            return step
        }
        XCTAssertEqual(started.wait(timeout: .now() + testTimeout), .success)
        folded.cancel()  // may land while the step is still being started: it must reach it anyway
        XCTAssertEqual(settledError(folded) as? PromiseError, .cancelled)
        XCTAssertEqual(stepCancelled.wait(timeout: .now() + testTimeout), .success)
        XCTAssertFalse(stepResolver.isPending)
        drain(queue)
        XCTAssertEqual(calls.value, 1)
    }

    func test_givenALaterStepBeingStarted_whenTheResultIsCancelledMeanwhile_thenThatStepIsCancelledAtOnce() {
        // The second step's closure is still running when the result is cancelled: the promise it
        // returns finds the result settled and must be cancelled, not left running.
        let (late, lateResolver) = Promise<Int>.pending()
        let lateCancelled = DispatchSemaphore(value: 0)
        lateResolver.onCancel { lateCancelled.signal() }
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let folded = Promise.value([1, 2]).reduce(0) { partial, element -> Promise<Int> in
            guard element == 2 else { return Promise.value(partial + element) }
            entered.signal()
            _ = proceed.wait(timeout: .now() + testTimeout)
            return late
        }
        XCTAssertEqual(entered.wait(timeout: .now() + testTimeout), .success)
        folded.cancel()
        proceed.signal()
        XCTAssertEqual(lateCancelled.wait(timeout: .now() + testTimeout), .success, "the step that started too late is cancelled")
        XCTAssertEqual(settledError(folded) as? PromiseError, .cancelled)
    }

    func test_givenAStepThatFulfilled_whenTheResultIsCancelledBeforeTheNextStarts_thenNoFurtherStepStarts() {
        let queue = makeSerialQueue("reduce-between")
        let calls = Counter()
        let (first, firstResolver) = Promise<Int>.pending()
        let started = DispatchSemaphore(value: 0)
        let folded = Promise.value([1, 2]).reduce(on: queue, 0) { _, element -> Promise<Int> in
            calls.increment()
            started.signal()
            return element == 1 ? first : Promise.value(99)
        }
        XCTAssertEqual(started.wait(timeout: .now() + testTimeout), .success)
        drain(queue)
        // Hold the queue, so that the second step cannot start before the cancellation.
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        queue.async {
            held.signal()
            _ = release.wait(timeout: .now() + testTimeout)
        }
        XCTAssertEqual(held.wait(timeout: .now() + testTimeout), .success)
        firstResolver.fulfill(1)   // the second step is now queued behind the held block
        folded.cancel()
        release.signal()
        drain(queue)
        XCTAssertEqual(calls.value, 1, "no step starts after the cancellation")
        XCTAssertEqual(settledError(folded) as? PromiseError, .cancelled)
    }

    func test_givenAPendingUpstream_whenTheResultIsCancelled_thenTheCancellationReachesTheProducer() {
        let (upstream, resolver, hookRuns) = cancellableProducer([Int].self)
        let folded = upstream.reduce(0) { partial, element in Promise.value(partial + element) }
        folded.cancel()
        XCTAssertEqual(settledError(folded) as? PromiseError, .cancelled)
        XCTAssertEqual(hookRuns.value, 1)
        XCTAssertFalse(resolver.isPending)
    }

    func test_givenAQueue_whenReduced_thenEveryStepRunsThere() {
        let queue = makeSerialQueue("reduce")
        let folded = Promise.value([1, 2, 3]).reduce(on: queue, [String?]()) { names, _ in
            Promise.value(names + [currentQueueName()])
        }
        XCTAssertEqual(value(of: folded), ["reduce", "reduce", "reduce"])
    }

    func test_givenOneHundredThousandElements_whenReducedWithSettledSteps_thenItCompletesWithoutOverflowingTheStack() {
        let folded = Promise.value(Array(1...100_000)).reduce(0) { partial, element in
            Promise.value(partial + element)
        }
        XCTAssertEqual(value(of: folded, timeout: 60), 5_000_050_000)
    }
}
