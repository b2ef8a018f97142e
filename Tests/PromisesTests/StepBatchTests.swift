import Dispatch
import Foundation
import Promises
import XCTest

/// Steps of one chain bound to one queue run back to back on that queue (no dispatch between
/// them), but never inside a user's handler and never ahead of the step before them.
final class StepBatchTests: XCTestCase {
    func test_givenChainOnOneSerialQueue_whenSettled_thenEveryStepRunsOnThatQueueInOrder() {
        let queue = makeSerialQueue("batch")
        let order = Box<[Int]>([])
        let (head, seal) = Promise<Int>.pending()
        var tail = head
        for step in 1...200 {
            tail = tail.map(on: queue) { value in
                XCTAssertEqual(currentQueueName(), "batch")
                order.mutate { $0.append(step) }
                return value + 1
            }
        }
        seal.fulfill(0)
        XCTAssertEqual(try tail.wait(within: 10), 200)
        XCTAssertEqual(order.get(), Array(1...200))
    }

    func test_givenLongChainOnASerialQueue_whenOtherWorkIsQueuedBehindIt_thenThatWorkRunsWithinTheFirstStretch() {
        // A block queued while the chain runs must not wait for all 200 steps: a batch takes a
        // bounded number of steps, then the next step is dispatched behind the waiting block.
        let queue = makeSerialQueue("batch-bounded")
        let order = Box<[String]>([])
        let (head, seal) = Promise<Int>.pending()
        var tail = head.map(on: queue) { value in
            order.mutate { $0.append("step 1") }
            queue.async { order.mutate { $0.append("other") } }
            return value
        }
        for step in 2...200 {
            tail = tail.map(on: queue) { value in
                order.mutate { $0.append("step \(step)") }
                return value
            }
        }
        seal.fulfill(0)
        XCTAssertNoThrow(try tail.wait(within: 10))
        drain(queue)
        let log = order.get()
        XCTAssertEqual(log.count, 201)
        let other = log.firstIndex(of: "other")
        XCTAssertNotNil(other)
        // A batch runs the step that started it and at most 64 more (StepBatch.maximumJoined).
        XCTAssertLessThanOrEqual(other ?? .max, 1 + 64, "the queued block waited behind \(other ?? -1) steps")
        XCTAssertEqual(log.filter { $0 != "other" }, (1...200).map { "step \($0)" })
    }

    func test_givenHandlerOnConcurrentQueue_whenItBlocksOnWorkItTriggeredOnThatQueue_thenNoDeadlock() {
        // The handler fulfils a promise whose handler is bound to the same (concurrent) queue and
        // waits for that handler. A batch that took the second handler onto the first one's
        // thread would wait forever; it must be dispatched as usual instead.
        let queue = DispatchQueue(label: "PromisesTests.concurrent", attributes: .concurrent)
        let finished = expectation(description: "outer handler finished")
        let (start, startSeal) = Promise<Void>.pending()
        _ = start.done(on: queue) {
            let (inner, innerSeal) = Promise<Int>.pending()
            let ran = DispatchSemaphore(value: 0)
            _ = inner.done(on: queue) { _ in ran.signal() }
            innerSeal.fulfill(1)
            XCTAssertEqual(ran.wait(timeout: .now() + testTimeout), .success, "inner handler never ran")
            finished.fulfill()
        }
        startSeal.fulfill()
        wait(for: [finished], timeout: testTimeout)
    }

    func test_givenSiblingStepsOnConcurrentQueue_whenOneWaitsForTheOther_thenNoDeadlock() {
        // Two steps hang off one promise that a step settles: neither may join that step's batch,
        // or the waiting sibling would hold up the other on one thread.
        let queue = DispatchQueue(label: "PromisesTests.siblings", attributes: .concurrent)
        let (head, seal) = Promise<Int>.pending()
        let root = head.map(on: queue) { $0 }
        let handshake = DispatchSemaphore(value: 0)
        let waiter = root.map(on: queue) { _ in handshake.wait(timeout: .now() + testTimeout) == .success }
        let signaller = root.done(on: queue) { _ in handshake.signal() }
        seal.fulfill(1)
        XCTAssertEqual(try waiter.wait(within: 10), true, "the sibling step never ran while the first one waited")
        XCTAssertNoThrow(try signaller.wait(within: 10))
    }

    func test_givenStepAndOtherOperatorsOnOnePromise_whenAStepSettlesIt_thenHandlersRunInAttachmentOrder() {
        let queue = makeSerialQueue("batch-mixed")
        let events = Box<[String]>([])
        let (head, seal) = Promise<Int>.pending()
        let settledByStep = head.map(on: queue) { $0 }
        _ = settledByStep.ensure(on: queue) { events.mutate { $0.append("ensure") } }
        let last = settledByStep.done(on: queue) { _ in events.mutate { $0.append("done") } }
        seal.fulfill(1)
        XCTAssertNoThrow(try last.wait(within: 10))
        drain(queue)
        XCTAssertEqual(events.get(), ["ensure", "done"])
    }

    func test_givenHandlerThatSettlesAnotherPromise_whenItsHandlerSharesTheQueue_thenItRunsAfterTheSettlingHandlerReturned() {
        let queue = makeSerialQueue("batch-order")
        let events = Box<[String]>([])
        let (other, otherSeal) = Promise<Int>.pending()
        let otherDone = other.done(on: queue) { _ in events.mutate { $0.append("other handler") } }
        let chain = Promise.value(1).map(on: queue) { value -> Int in
            otherSeal.fulfill(value)
            events.mutate { $0.append("settling handler returns") }
            return value
        }
        XCTAssertEqual(try chain.wait(within: 10), 1)
        XCTAssertNoThrow(try otherDone.wait(within: 10))
        XCTAssertEqual(events.get(), ["settling handler returns", "other handler"])
    }

    func test_givenTwoChainsOnDifferentQueues_whenInterleaved_thenEachStepRunsOnItsOwnQueue() {
        let first = makeSerialQueue("batch-a")
        let second = makeSerialQueue("batch-b")
        let (head, seal) = Promise<Int>.pending()
        var tail = head
        for step in 0..<100 {
            let queue = step.isMultiple(of: 2) ? first : second
            let name = step.isMultiple(of: 2) ? "batch-a" : "batch-b"
            tail = tail.map(on: queue) { value in
                XCTAssertEqual(currentQueueName(), name)
                return value + 1
            }
        }
        seal.fulfill(0)
        XCTAssertEqual(try tail.wait(within: 10), 100)
    }

    func test_givenCancelledStepInsideABatch_thenItsHandlerAndTheRestAreSkipped() {
        let queue = makeSerialQueue("batch-cancel")
        let ran = Box<[Int]>([])
        let (head, seal) = Promise<Int>.pending()
        let first = head.map(on: queue) { value -> Int in
            ran.mutate { $0.append(1) }
            return value
        }
        let second = first.map(on: queue) { value -> Int in
            ran.mutate { $0.append(2) }
            return value
        }
        let third = second.map(on: queue) { value -> Int in
            ran.mutate { $0.append(3) }
            return value
        }
        queue.sync {
            seal.fulfill(0)
            second.cancel()  // cancels `first` and the head too (upstream), but the head settled
        }
        XCTAssertThrowsError(try third.wait(within: 10)) { XCTAssertTrue(isCancellation($0)) }
        XCTAssertEqual(ran.get(), [])
    }
}

/// The value slot: values that fit in the promise are stored in place, larger ones boxed;
/// either way they are read back intact and freed with the promise.
final class PromiseValueStorageTests: XCTestCase {
    struct Large: Equatable, Sendable {
        var a = 1, b = 2, c = 3, d = 4
        var name = "large"
    }

    func test_givenValuesOfEverySize_whenFulfilled_thenTheyReadBackIntact() throws {
        XCTAssertEqual(try Promise.value(42).wait(within: 10), 42)
        XCTAssertEqual(try Promise.value("a string longer than fifteen bytes").wait(within: 10), "a string longer than fifteen bytes")
        XCTAssertEqual(try Promise.value([1, 2, 3]).wait(within: 10), [1, 2, 3])
        XCTAssertEqual(try Promise.value(Large()).wait(within: 10), Large())
        XCTAssertEqual(try Promise.value(Optional<Int>.none).wait(within: 10), nil)
        try Promise.value(()).wait(within: 10)
        let mapped = Promise.value(Large()).map(on: .promises) { $0.name + "!" }
        XCTAssertEqual(try mapped.wait(within: 10), "large!")
    }

    func test_givenNonTrivialValueInPlaceOrBoxed_whenThePromiseIsReleased_thenTheValueIsFreed() {
        struct Holder: Sendable {
            let canary: Canary
            let padding = (0, 0, 0)  // too large for the in-place slot
        }
        let freed = Counter()
        do {
            let small = Promise.value(Canary { freed.increment() })
            let large = Promise.value(Holder(canary: Canary { freed.increment() }))
            XCTAssertNotNil(small.result)
            XCTAssertNotNil(large.result)
            XCTAssertEqual(freed.value, 0)
        }
        XCTAssertEqual(freed.value, 2)
    }
}
