import Dispatch
import Foundation
import Promises
import XCTest

/// `cancel()` rejects with `PromiseError.cancelled`, runs the producer's `onCancel` hooks and
/// travels upstream through every operator; `timeout(seconds:)` cancels the upstream work.
final class CancellationTests: XCTestCase {
    /// Derives a promise from a cancellable producer with `derive`, cancels it through `cancel`,
    /// and checks that the producer's hook ran exactly once and that both ends are cancelled.
    private func assertCancelReachesProducer<D>(
        _ name: String, line: UInt = #line,
        derive: (Promise<Int>) -> D, cancel: (D) -> Void, isSettled: (D) -> Bool
    ) {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let derived = derive(producer)
        cancel(derived)
        XCTAssertEqual(hookRuns.value, 1, "\(name): onCancel runs", line: line)
        XCTAssertEqual(settledError(producer) as? PromiseError, .cancelled, "\(name): producer", line: line)
        XCTAssertTrue(isSettled(derived), "\(name): derived promise settled", line: line)
        resolver.fulfill(1)  // too late: nothing changes
        XCTAssertEqual(hookRuns.value, 1, "\(name): onCancel runs once", line: line)
        XCTAssertTrue(producer.isCancelled, "\(name): producer stays cancelled", line: line)
    }

    private func assertCancelReachesProducer<U>(
        _ name: String, line: UInt = #line, _ derive: (Promise<Int>) -> Promise<U>
    ) {
        assertCancelReachesProducer(
            name, line: line, derive: derive, cancel: { $0.cancel() }, isSettled: { $0.isRejected })
        let (producer, resolver, _) = cancellableProducer(Int.self)
        let derived = derive(producer)
        derived.cancel()
        XCTAssertEqual(settledError(derived) as? PromiseError, .cancelled, "\(name): derived error", line: line)
        withExtendedLifetime(resolver) {}
    }

    func test_givenAnyOperator_whenDerivedPromiseIsCancelled_thenProducersOnCancelRuns() {
        assertCancelReachesProducer("then") { $0.then { .value($0) } }
        assertCancelReachesProducer("map") { $0.map { "\($0)" } }
        assertCancelReachesProducer("done") { $0.done { _ in } }
        assertCancelReachesProducer("get") { $0.get { _ in } }
        assertCancelReachesProducer("tap") { $0.tap { _ in } }
        assertCancelReachesProducer("recover") { $0.recover { _ in .value(0) } }
        assertCancelReachesProducer("ensure") { $0.ensure {} }
        assertCancelReachesProducer("timeout") { $0.timeout(seconds: 60) }
        assertCancelReachesProducer("asVoid") { $0.asVoid() }
        assertCancelReachesProducer(
            "catch finalizer", derive: { $0.catch { _ in } }, cancel: { $0.cancel() },
            isSettled: { _ in true })
        assertCancelReachesProducer("finally") { $0.done { _ in }.catch { _ in }.finally {} }
    }

    func test_givenLongMixedChain_whenLastLinkIsCancelled_thenEveryLinkAndTheProducerAreCancelled() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let links: [Promise<Void>] = [producer.asVoid()]
        let mapped = producer.then { .value($0) }.map { $0 + 1 }.get { _ in }.tap { _ in }
        let end = mapped.recover { _ in .value(0) }.ensure {}.timeout(seconds: 60).done { _ in }
        end.cancel()
        XCTAssertEqual(hookRuns.value, 1)
        XCTAssertTrue(producer.isCancelled)
        XCTAssertTrue(mapped.isCancelled)
        XCTAssertEqual(settledError(end) as? PromiseError, .cancelled)
        // a sibling chain on the same producer sees the cancellation as a rejection
        XCTAssertEqual(error(of: links[0]) as? PromiseError, .cancelled)
        withExtendedLifetime(resolver) {}
    }

    func test_givenCancelledChain_thenDownstreamHandlersDoNotRun() {
        let queue = makeSerialQueue("cancel-handlers")
        let (producer, resolver, _) = cancellableProducer(Int.self)
        let handlerRuns = Counter()
        let end = producer.map(on: queue) { _ in handlerRuns.increment() }.done(on: queue) { handlerRuns.increment() }
        end.cancel()
        resolver.fulfill(1)
        drain(queue)
        drain(queue)
        XCTAssertEqual(handlerRuns.value, 0)
    }

    func test_givenSettledPromise_whenCancelled_thenNothingChangesAndNoHookRuns() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        resolver.fulfill(3)
        producer.cancel()
        XCTAssertEqual(try? producer.result?.get(), 3)
        XCTAssertEqual(hookRuns.value, 0)
        let mapped = Promise.value(1).map { $0 + 1 }
        XCTAssertEqual(value(of: mapped), 2)
        mapped.cancel()
        XCTAssertEqual(try? mapped.result?.get(), 2)
    }

    func test_givenCancelledPromise_whenOnCancelIsRegistered_thenItRunsAtOnce() {
        let (promise, resolver) = Promise<Int>.pending()
        promise.cancel()
        let runs = Counter()
        resolver.onCancel { runs.increment() }
        XCTAssertEqual(runs.value, 1)
        XCTAssertFalse(resolver.isPending)
    }

    func test_givenFulfilledPromise_whenOnCancelIsRegistered_thenItNeverRuns() {
        let (_, resolver) = Promise<Int>.pending()
        resolver.fulfill(1)
        let runs = Counter()
        resolver.onCancel { runs.increment() }
        XCTAssertEqual(runs.value, 0)
    }

    func test_givenSeveralHooks_whenCancelledTwice_thenEachHookRunsOnce() {
        let (promise, resolver) = Promise<Int>.pending()
        let runs = Recorder<Int>()
        resolver.onCancel { runs.record(1) }
        resolver.onCancel { runs.record(2) }
        promise.cancel()
        promise.cancel()
        XCTAssertEqual(runs.events, [1, 2])
    }

    func test_givenThenHandlerAlreadyReturnedInnerPromise_whenCancelled_thenInnerWorkIsCancelled() {
        let queue = makeSerialQueue("cancel-adopted")
        let (inner, innerResolver, innerHook) = cancellableProducer(Int.self)
        let outer = Promise.value(1).then(on: queue) { _ in inner }
        drain(queue)
        XCTAssertTrue(outer.isPending)
        outer.cancel()
        XCTAssertEqual(innerHook.value, 1)
        XCTAssertTrue(inner.isCancelled)
        withExtendedLifetime(innerResolver) {}
    }

    func test_givenThenHandlerRunning_whenCancelled_thenThePromiseItReturnsIsCancelled() {
        let handlerStarted = DispatchSemaphore(value: 0)
        let mayReturn = DispatchSemaphore(value: 0)
        let innerCancelled = expectation(description: "inner work cancelled")
        let outer = Promise.value(1).then { _ -> Promise<Int> in
            handlerStarted.signal()
            _ = mayReturn.wait(timeout: .now() + testTimeout)
            return Promise { seal in
                seal.onCancel { innerCancelled.fulfill() }
                DispatchQueue.global().asyncAfter(deadline: .now() + testTimeout) { seal.fulfill(0) }
            }
        }
        XCTAssertEqual(handlerStarted.wait(timeout: .now() + testTimeout), .success)
        outer.cancel()
        mayReturn.signal()
        wait(for: [innerCancelled], timeout: testTimeout)
        XCTAssertTrue(outer.isCancelled)
    }

    func test_givenHandlerOnACancelledChain_thenTheProducersHookRanBeforeTheHandlerCouldRun() {
        let (producer, resolver) = Promise<Int>.pending()
        let handlerQueue = DispatchQueue(label: "handlers")
        let handlerRan = Box(false)
        let handlerRanBeforeHook = Box<Bool?>(nil)
        resolver.onCancel {
            // Had the handler been notified before the hooks ran, its block would already be on
            // `handlerQueue`; draining the queue runs it, so the flag would read `true`.
            handlerQueue.sync {}
            handlerRanBeforeHook.set(handlerRan.get())
        }
        let end = producer.map { $0 + 1 }
        let caught = expectation(description: "catch ran")
        end.catch(on: handlerQueue) { _ in
            handlerRan.set(true)
            caught.fulfill()
        }
        end.cancel()
        wait(for: [caught], timeout: testTimeout)
        XCTAssertEqual(handlerRanBeforeHook.get(), false)
    }

    // MARK: ensure / catch / finally under cancellation

    func test_givenEnsure_whenItsPromiseIsCancelled_thenTheEnsureBodyStillRuns() {
        let (producer, resolver, _) = cancellableProducer(Int.self)
        let ran = expectation(description: "ensure body ran")
        producer.ensure { ran.fulfill() }.cancel()
        wait(for: [ran], timeout: testTimeout)

        let (second, secondResolver, _) = cancellableProducer(Int.self)
        let ranInMiddle = expectation(description: "ensure in the middle of a chain ran")
        second.ensure { ranInMiddle.fulfill() }.done { _ in }.cancel()
        wait(for: [ranInMiddle], timeout: testTimeout)
        withExtendedLifetime((resolver, secondResolver)) {}
    }

    func test_givenCatchFinalizer_whenCancelled_thenCatchSeesCancellationBeforeFinallyRuns() {
        let queue = makeSerialQueue("catch-finally")
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let order = Recorder<String>()
        let finished = expectation(description: "finally ran")
        let finalizer = producer.done(on: queue) { _ in order.record("done") }
            .catch(on: queue) { error in order.record("catch \(isCancellation(error))") }
        finalizer.finally(on: queue) {
            order.record("finally")
            finished.fulfill()
        }
        finalizer.cancel()
        wait(for: [finished], timeout: testTimeout)
        XCTAssertEqual(order.events, ["catch true", "finally"])
        XCTAssertEqual(hookRuns.value, 1)
        withExtendedLifetime(resolver) {}
    }

    func test_givenCatchPolicyExceptCancellation_whenCancelled_thenCatchIsSkippedButFinallyRuns() {
        let (producer, resolver, _) = cancellableProducer(Int.self)
        let caught = Counter()
        let finished = expectation(description: "finally ran")
        let finalizer = producer.done { _ in }.catch(policy: .allErrorsExceptCancellation) { _ in caught.increment() }
        finalizer.finally { finished.fulfill() }
        producer.cancel()
        wait(for: [finished], timeout: testTimeout)
        XCTAssertEqual(caught.value, 0)
        withExtendedLifetime(resolver) {}
    }

    // MARK: timeout

    func test_givenSlowPromise_whenTimeoutFires_thenItRejectsWithTimedOutAndCancelsTheWork() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let timed = producer.timeout(seconds: 0.05)
        let downstream = timed.map { $0 + 1 }
        XCTAssertEqual(error(of: downstream) as? PromiseError, .timedOut)
        XCTAssertEqual(settledError(timed) as? PromiseError, .timedOut)
        XCTAssertEqual(settledError(producer) as? PromiseError, .cancelled)
        XCTAssertEqual(hookRuns.value, 1)
        withExtendedLifetime(resolver) {}
    }

    func test_givenPromiseSettlesInTime_whenTimeoutWouldFire_thenTheValuePassesAndNothingIsCancelled() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let timed = producer.timeout(seconds: 60)
        resolver.fulfill(4)
        XCTAssertEqual(value(of: timed), 4)
        XCTAssertEqual(value(of: Promise.value(5).timeout(seconds: 0)), 5)
        XCTAssertEqual(error(of: Promise<Int>(error: TestError(6)).timeout(seconds: 0)) as? TestError, TestError(6))
        XCTAssertEqual(hookRuns.value, 0)
    }

    func test_givenZeroTimeout_whenPromiseIsPending_thenItTimesOutAsynchronously() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let timed = producer.timeout(seconds: 0)
        XCTAssertEqual(error(of: timed) as? PromiseError, .timedOut)
        XCTAssertEqual(hookRuns.value, 1)
        withExtendedLifetime(resolver) {}
    }
}
