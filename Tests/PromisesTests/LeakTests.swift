import Dispatch
import Foundation
import Promises
import XCTest

/// No retain cycles survive a settled or cancelled chain: its promises, its handler closures
/// and everything they captured are freed. Every handler runs on one serial queue, so once
/// that queue is drained no dispatch block still holds a reference.
final class LeakTests: XCTestCase {
    /// Weak references to the objects of one test.
    private final class Tracker {
        private struct Entry {
            let name: String
            weak var object: AnyObject?
        }
        private var entries: [Entry] = []

        func track(_ name: String, _ object: AnyObject) { entries.append(Entry(name: name, object: object)) }

        /// Names of the tracked objects still alive.
        var alive: [String] { entries.filter { $0.object != nil }.map(\.name) }
    }

    private let queue = makeSerialQueue("leaks")

    /// Drains `queue` until `promise` has settled (each drain lets one more hop run), then once more.
    private func settle<T>(_ promise: Promise<T>, file: StaticString = #filePath, line: UInt = #line) {
        for _ in 0..<1_000 where promise.isPending { drain(queue) }
        XCTAssertFalse(promise.isPending, "chain did not settle", file: file, line: line)
        drain(queue)
    }

    func test_givenFulfilledChain_whenSettled_thenItsPromisesAndCapturedObjectsAreFreed() {
        let tracker = Tracker()
        do {
            let canary = Canary()
            let (root, resolver) = Promise<Int>.pending()
            let mapped = root.map(on: queue) { canary.touch(); return $0 + 1 }
            let queue = self.queue
            let chained = mapped.then(on: queue) { value in Promise.value(value).map(on: queue) { $0 } }
            let tapped = chained.get(on: queue) { _ in canary.touch() }.tap(on: queue) { _ in canary.touch() }
            let recovered = tapped.recover(on: queue) { _ in canary.touch(); return .value(0) }
            let end = recovered.ensure(on: queue) { canary.touch() }.done(on: queue) { _ in canary.touch() }
            let finalEnd = end.catch(on: queue) { _ in canary.touch() }.finally(on: queue) { canary.touch() }
            for (name, object) in [("canary", canary as AnyObject), ("root", root), ("mapped", mapped),
                                   ("chained", chained), ("tapped", tapped), ("recovered", recovered),
                                   ("end", end), ("finalEnd", finalEnd)] {
                tracker.track(name, object)
            }
            queue.async { resolver.fulfill(1) }
            settle(finalEnd)
        }
        XCTAssertEqual(tracker.alive, [])
    }

    func test_givenRejectedChain_whenSettled_thenItsPromisesAndCapturedObjectsAreFreed() {
        let tracker = Tracker()
        do {
            let canary = Canary()
            let (root, resolver) = Promise<Int>.pending()
            let skipped = root.map(on: queue) { canary.touch(); return $0 }
            let end = skipped.catch(on: queue) { _ in canary.touch() }.finally(on: queue) { canary.touch() }
            tracker.track("canary", canary)
            tracker.track("root", root)
            tracker.track("skipped", skipped)
            tracker.track("end", end)
            queue.async { resolver.reject(TestError(1)) }
            settle(end)
        }
        XCTAssertEqual(tracker.alive, [])
    }

    func test_givenPendingChain_whenCancelled_thenItsPromisesHooksAndCapturedObjectsAreFreed() {
        let tracker = Tracker()
        do {
            let canary = Canary()
            let hookCanary = Canary()
            let (root, resolver) = Promise<Int>.pending()
            resolver.onCancel { hookCanary.touch() }
            let middle = root.map(on: queue) { canary.touch(); return $0 }.timeout(seconds: 600)
            let end = middle.then(on: queue) { _ in Promise.value(canary) }.ensure(on: queue) { canary.touch() }
            tracker.track("canary", canary)
            tracker.track("hookCanary", hookCanary)
            tracker.track("root", root)
            tracker.track("resolver", resolver)
            tracker.track("middle", middle)
            tracker.track("end", end)
            queue.sync { end.cancel() }
            drain(queue)
            drain(queue)
            XCTAssertTrue(root.isCancelled)
        }
        XCTAssertEqual(tracker.alive, [])
    }

    func test_givenChainOnAPendingPromise_whenItsResolverIsReleased_thenEverythingIsFreed() {
        let tracker = Tracker()
        let holder = Box<Resolver<Int>?>(nil)
        do {
            let canary = Canary()
            let root = Promise<Int> { holder.set($0) }
            let end = root.map(on: queue) { _ in canary.touch() }
            tracker.track("canary", canary)
            tracker.track("root", root)
            tracker.track("end", end)
            queue.async { holder.set(nil) }
            settle(end)
            XCTAssertEqual(settledError(end) as? PromiseError, .resolverReleased)
        }
        XCTAssertEqual(tracker.alive, [])
    }

    func test_givenTimeoutThatDidNotFire_whenTheChainSettled_thenItIsFreedBeforeTheTimerEnds() {
        let tracker = Tracker()
        do {
            let (root, resolver) = Promise<Int>.pending()
            let timed = root.timeout(seconds: 600)
            let end = timed.map(on: queue) { $0 }
            tracker.track("root", root)
            tracker.track("timed", timed)
            tracker.track("end", end)
            queue.async { resolver.fulfill(1) }
            settle(end)
        }
        XCTAssertEqual(tracker.alive, [])
    }

    func test_givenCombinators_whenSettled_thenTheyAndTheirInputsAreFreed() {
        let tracker = Tracker()
        do {
            let pairs = (0..<3).map { _ in Promise<Int>.pending() }
            let inputs = pairs.map(\.promise)
            let all = when(fulfilled: inputs)
            let resolved = when(resolved: inputs)
            let raced = race(inputs)
            let retried = attempt(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1)) { inputs[2] }
            for (index, input) in inputs.enumerated() { tracker.track("input \(index)", input) }
            tracker.track("all", all)
            tracker.track("resolved", resolved)
            tracker.track("raced", raced)
            tracker.track("retried", retried)
            queue.async { for (index, pair) in pairs.enumerated() { pair.resolver.fulfill(index) } }
            let ends = [
                all.map(on: queue) { _ in }, resolved.map(on: queue) { _ in },
                raced.map(on: queue) { _ in }, retried.map(on: queue) { _ in },
            ]
            let end = when(fulfilled: ends).map(on: queue) { _ in }
            tracker.track("end", end)
            settle(end)
        }
        XCTAssertEqual(tracker.alive, [])
    }

    /// Reads its promise when freed, as a `Resolver` does (its `deinit` checks `isPending`).
    private final class ReadsPromiseWhenFreed: Sendable {
        unowned let promise: Promise<Int>
        init(_ promise: Promise<Int>) { self.promise = promise }
        deinit { _ = promise.isPending }
    }

    func test_givenBoundedWhenAndRaceForTheFirstFulfilment_whenSettledOrCancelled_thenTheyAndTheirInputsAreFreed() {
        let tracker = Tracker()
        do {
            let canary = Canary()
            let pairs = (0..<4).map { _ in Promise<Int>.pending() }
            let inputs = pairs.map(\.promise)
            let bounded = when(fulfilled: 0..<3, concurrently: 2, on: queue) { index in
                canary.touch()
                return inputs[index]
            }
            let stopped = when(fulfilled: 0..<3, concurrently: 1, on: queue) { _ in
                canary.touch()
                return Promise<Int>.pending().promise  // resolver dropped: rejects at once
            }
            let raced = race(fulfilled: [inputs[3], inputs[0]])
            let cancelledRace = race(fulfilled: [Promise<Int>.pending().promise])
            cancelledRace.cancel()
            for (index, input) in inputs.enumerated() { tracker.track("input \(index)", input) }
            for (name, object) in [("canary", canary as AnyObject), ("bounded", bounded), ("stopped", stopped),
                                   ("raced", raced), ("cancelledRace", cancelledRace)] {
                tracker.track(name, object)
            }
            queue.async { for (index, pair) in pairs.enumerated() { pair.resolver.fulfill(index) } }
            // Every hop on `queue`, which `settle` drains (`asVoid()` would hop to the global
            // queue, which it does not: the test then failed whenever that queue was slow).
            let ends = [bounded.map(on: queue) { _ in }, stopped.map(on: queue) { _ in },
                        raced.map(on: queue) { _ in }, cancelledRace.map(on: queue) { _ in }]
            let end = when(resolved: ends).map(on: queue) { _ in }
            tracker.track("end", end)
            settle(end)
        }
        XCTAssertEqual(tracker.alive, [])
    }

    func test_givenHookHoldingTheLastReferenceToAnObjectThatReadsThePromise_whenFulfilled_thenReleasedAfterTheLock() {
        let (promise, resolver) = Promise<Int>.pending()
        do {
            let reader = ReadsPromiseWhenFreed(promise)
            resolver.onCancel { withExtendedLifetime(reader) {} }  // the hook holds the reader's only reference
        }
        let settled = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            resolver.fulfill(7)
            settled.signal()
        }
        guard settled.wait(timeout: .now() + 10) == .success else {
            // Reading the promise now would wait for the deadlocked lock too.
            return XCTFail("deadlock: the hook was released under the promise's lock")
        }
        XCTAssertEqual(promise.result.flatMap { try? $0.get() }, 7)
    }
}
