import Dispatch
import Foundation
import Promises
import XCTest

/// Operators: what each passes on, where its handler runs (`on:`, default never main), and
/// the resolver's lifecycle.
final class ChainingTests: XCTestCase {
    // MARK: queues

    func test_givenOnQueue_whenAnyOperatorsHandlerRuns_thenItRunsOnThatQueue() {
        let target = makeSerialQueue("target")
        let queues = Recorder<String?>()
        let fulfilled = Promise.value(1)
        let rejected = Promise<Int>(error: TestError(1))
        let ends: [Promise<Void>] = [
            fulfilled.then(on: target) { v -> Promise<Int> in queues.record(currentQueueName()); return .value(v) }.asVoid(),
            fulfilled.map(on: target) { _ in queues.record(currentQueueName()) },
            fulfilled.done(on: target) { _ in queues.record(currentQueueName()) },
            fulfilled.get(on: target) { _ in queues.record(currentQueueName()) }.asVoid(),
            fulfilled.tap(on: target) { _ in queues.record(currentQueueName()) }.asVoid(),
            fulfilled.ensure(on: target) { queues.record(currentQueueName()) }.asVoid(),
            rejected.recover(on: target) { _ -> Promise<Int> in queues.record(currentQueueName()); return .value(0) }
                .asVoid(),
            rejected.catch(on: target) { _ in queues.record(currentQueueName()) }
                .finally(on: target) { queues.record(currentQueueName()) },
        ]
        XCTAssertNotNil(value(of: when(fulfilled: ends)))
        XCTAssertEqual(queues.events.count, 9)
        XCTAssertTrue(queues.events.allSatisfy { $0 == "target" }, "\(queues.events)")
    }

    func test_givenNoQueue_whenAnyOperatorsHandlerRuns_thenItNeverRunsOnTheMainThread() {
        XCTAssertFalse(DispatchQueue.promises === DispatchQueue.main)
        let onMain = Counter()
        let check: @Sendable () -> Void = { if Thread.isMainThread { onMain.increment() } }
        let fulfilled = Promise.value(1)
        let rejected = Promise<Int>(error: TestError(1))
        let ends: [Promise<Void>] = [
            fulfilled.then { v -> Promise<Int> in check(); return .value(v) }.asVoid(),
            fulfilled.map { _ in check() },
            fulfilled.done { _ in check() },
            fulfilled.get { _ in check() }.asVoid(),
            fulfilled.tap { _ in check() }.asVoid(),
            fulfilled.ensure { check() }.asVoid(),
            rejected.recover { _ -> Promise<Int> in check(); return .value(0) }.asVoid(),
            rejected.catch { _ in check() }.finally { check() },
        ]
        XCTAssertNotNil(value(of: when(fulfilled: ends)))
        XCTAssertEqual(onMain.value, 0)
    }

    func test_givenMainQueue_whenChosenExplicitly_thenTheHandlerRunsOnTheMainThread() {
        let ran = expectation(description: "handler ran")
        _ = Promise.value(1).done(on: .main) { _ in
            XCTAssertTrue(Thread.isMainThread)
            ran.fulfill()
        }
        wait(for: [ran], timeout: testTimeout)  // runs the main run loop meanwhile
    }

    // MARK: what each operator passes on

    func test_givenMapAndThen_thenValuesFlowThroughTheChain() {
        let chain = Promise.value(2).map { $0 * 10 }.then { Promise.value("\($0)!") }.map { $0.count }
        XCTAssertEqual(value(of: chain), 3)
    }

    func test_givenGet_thenTheSideEffectSeesTheValueAndTheValuePassesOn() {
        let seen = Box<Int?>(nil)
        XCTAssertEqual(value(of: Promise.value(5).get { seen.set($0) }), 5)
        XCTAssertEqual(seen.get(), 5)
        XCTAssertEqual(error(of: Promise.value(5).get { _ in throw TestError(1) }) as? TestError, TestError(1))
    }

    func test_givenTap_thenItSeesEitherResultAndPassesItOnUnchanged() {
        let seen = Recorder<String>()
        XCTAssertEqual(value(of: Promise.value(1).tap { seen.record("\((try? $0.get()) ?? -1)") }), 1)
        let rejected = Promise<Int>(error: TestError(2)).tap { result in
            if case .failure(let error as TestError) = result { seen.record("error \(error.id)") }
        }
        XCTAssertEqual(error(of: rejected) as? TestError, TestError(2))
        XCTAssertEqual(seen.events, ["1", "error 2"])
    }

    func test_givenRecover_whenRejected_thenTheReplacementDecidesAndFulfilmentPassesThrough() {
        XCTAssertEqual(value(of: Promise<Int>(error: TestError(1)).recover { _ in .value(7) }), 7)
        let rethrown = Promise<Int>(error: TestError(1)).recover { error -> Promise<Int> in throw error }
        XCTAssertEqual(error(of: rethrown) as? TestError, TestError(1))
        XCTAssertEqual(value(of: Promise.value(3).recover { _ in .value(7) }), 3)
    }

    func test_givenRecoverSkippingCancellations_whenCancelled_thenTheCancellationPassesThroughAndOtherErrorsRecover() {
        let (pending, resolver) = Promise<Int>.pending()
        let skipping = pending.recover(policy: .allErrorsExceptCancellation) { _ in .value(1) }
        let (other, otherResolver) = Promise<Int>.pending()
        let taking = other.recover { _ in .value(2) }
        pending.cancel()
        other.cancel()
        XCTAssertEqual(error(of: skipping) as? PromiseError, .cancelled)
        XCTAssertEqual(value(of: taking), 2, "the default policy hands cancellations to the body")
        let failed = Promise<Int>(error: TestError(5)).recover(policy: .allErrorsExceptCancellation) { _ in .value(3) }
        XCTAssertEqual(value(of: failed), 3, "other errors are recovered")
        withExtendedLifetime((resolver, otherResolver)) {}
    }

    func test_givenEnsure_thenItRunsForEitherResultAndPassesItOn() {
        let runs = Counter()
        XCTAssertEqual(value(of: Promise.value(1).ensure { runs.increment() }), 1)
        XCTAssertEqual(error(of: Promise<Int>(error: TestError(3)).ensure { runs.increment() }) as? TestError, TestError(3))
        XCTAssertEqual(runs.value, 2)
    }

    func test_givenCatch_whenChainRejects_thenItSeesTheErrorAndFinallyRunsAfterIt() {
        let queue = makeSerialQueue("catch")
        let order = Recorder<String>()
        let end = Promise<Int>(error: TestError(4)).map(on: queue) { _ in order.record("map") }
            .catch(on: queue) { order.record("catch \(($0 as? TestError)?.id ?? -1)") }
            .finally(on: queue) { order.record("finally") }
        XCTAssertNotNil(value(of: end))
        XCTAssertEqual(order.events, ["catch 4", "finally"])
    }

    func test_givenCatch_whenChainFulfils_thenCatchIsSkippedAndFinallyRuns() {
        let caught = Counter()
        let end = Promise.value(1).done { _ in }.catch { _ in caught.increment() }.finally {}
        XCTAssertNotNil(value(of: end))
        XCTAssertEqual(caught.value, 0)
    }

    func test_givenCatchPolicyExceptCancellation_thenOtherErrorsStillReachCatch() {
        let caught = Recorder<Int>()
        let end = Promise<Int>(error: TestError(5)).catch(policy: .allErrorsExceptCancellation) {
            caught.record(($0 as? TestError)?.id ?? -1)
        }.finally {}
        XCTAssertNotNil(value(of: end))
        XCTAssertEqual(caught.events, [5])
    }

    func test_givenAsVoid_thenTheValueIsDroppedAndErrorsPassThrough() {
        XCTAssertNotNil(value(of: Promise.value(1).asVoid()))
        XCTAssertEqual(error(of: Promise<Int>(error: TestError(6)).asVoid()) as? TestError, TestError(6))
    }

    func test_givenFirstly_thenItStartsTheChainWithTheBodysPromise() {
        XCTAssertEqual(value(of: firstly { Promise.value(8) }.map { $0 + 1 }), 9)
    }

    // MARK: state and the resolver

    func test_givenEachState_thenTheStateAccessorsAgree() {
        let (pending, resolver) = Promise<Int>.pending()
        XCTAssertTrue(pending.isPending)
        XCTAssertTrue(resolver.isPending)
        XCTAssertNil(pending.result)
        XCTAssertFalse(pending.isFulfilled || pending.isRejected || pending.isCancelled)
        resolver.fulfill(1)
        XCTAssertTrue(pending.isFulfilled)
        XCTAssertFalse(pending.isPending || pending.isRejected || resolver.isPending)
        let rejected = Promise<Int>(error: TestError(1))
        XCTAssertTrue(rejected.isRejected)
        XCTAssertFalse(rejected.isFulfilled || rejected.isPending || rejected.isCancelled)
        let cancelled = Promise<Int>.pending()
        cancelled.promise.cancel()
        XCTAssertTrue(cancelled.promise.isCancelled && cancelled.promise.isRejected)
        withExtendedLifetime(cancelled.resolver) {}
    }

    func test_givenVoidResolver_thenFulfilWithoutArgumentWorks() {
        let (promise, resolver) = Promise<Void>.pending()
        resolver.fulfill()
        XCTAssertTrue(promise.isFulfilled)
    }

    func test_givenResolverReleasedWithoutSettling_thenThePromiseRejectsWithResolverReleased() {
        let dropped = Promise<Int> { _ in }
        XCTAssertEqual(settledError(dropped) as? PromiseError, .resolverReleased)
        let fromPending = Promise<Int>.pending().promise
        XCTAssertEqual(settledError(fromPending) as? PromiseError, .resolverReleased)
    }

    func test_givenChainOnAPendingPromise_whenItsResolverIsReleasedLater_thenTheChainRejects() {
        let holder = Box<Resolver<Int>?>(nil)
        let promise = Promise<Int> { holder.set($0) }
        let chain = promise.map { $0 + 1 }
        XCTAssertTrue(promise.isPending)
        holder.set(nil)
        XCTAssertEqual(error(of: chain) as? PromiseError, .resolverReleased)
    }

    func test_givenWait_thenItReturnsTheValueOrThrowsTheError() {
        XCTAssertEqual(try Promise.value(1).map { $0 + 1 }.wait(), 2)
        XCTAssertThrowsError(try Promise<Int>(error: TestError(9)).wait()) { error in
            XCTAssertEqual(error as? TestError, TestError(9))
        }
    }
}
