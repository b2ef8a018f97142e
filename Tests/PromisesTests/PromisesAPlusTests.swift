import Dispatch
import Foundation
import Promises
import XCTest

/// Promises/A+ (https://promisesaplus.com) clauses, translated to this API: `then`/`map`/`done`
/// play `onFulfilled`, `recover`/`catch` play `onRejected`. Clauses about JavaScript values that
/// Swift's type system rules out (2.2.1, 2.2.5, most of 2.3.3) are pinned by the compiler instead.
/// Each behavioural clause runs for an already-, an immediately- and an eventually-settled promise.
private let sentinel = 42
private let reason = TestError(99)

final class PromisesAPlusTests: XCTestCase {
    // MARK: 2.1 Promise states

    /// Settles a fresh promise through `settle`, then checks that its result and its handlers
    /// saw only the first outcome.
    private func assertFirstOutcomeWins(
        expected: Result<Int, TestError>,
        file: StaticString = #filePath, line: UInt = #line,
        _ settle: @escaping @Sendable (Resolver<Int>) -> Void
    ) {
        let queue = makeSerialQueue("2.1")
        let (promise, resolver) = Promise<Int>.pending()
        let fulfilled = Recorder<Int>()
        let rejected = Recorder<Int>()
        let handled = expectation(description: "a handler ran")
        promise.done(on: queue) { fulfilled.record($0); handled.fulfill() }
            .catch(on: queue) { rejected.record(($0 as? TestError)?.id ?? -1); handled.fulfill() }
        settle(resolver)
        wait(for: [handled], timeout: testTimeout)
        drain(queue)  // anything a second (wrong) settle queued has run by now
        switch expected {
        case .success(let value):
            XCTAssertEqual(fulfilled.events, [value], file: file, line: line)
            XCTAssertEqual(rejected.events, [], file: file, line: line)
            XCTAssertEqual(try? promise.result?.get(), value, file: file, line: line)
        case .failure(let error):
            XCTAssertEqual(fulfilled.events, [], file: file, line: line)
            XCTAssertEqual(rejected.events, [error.id], file: file, line: line)
            XCTAssertTrue(promise.isRejected, file: file, line: line)
        }
    }

    func test_2_1_2_givenFulfilled_whenRejectedOrFulfilledAgain_thenKeepsStateAndValue() {
        assertFirstOutcomeWins(expected: .success(1)) { seal in
            seal.fulfill(1)
            seal.reject(TestError(2))
            seal.fulfill(3)
        }
        assertFirstOutcomeWins(expected: .success(1)) { seal in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) {
                seal.fulfill(1)
                seal.reject(TestError(2))
            }
        }
        assertFirstOutcomeWins(expected: .success(1)) { seal in
            seal.fulfill(1)
            DispatchQueue.global().async { seal.reject(TestError(2)) }
        }
    }

    func test_2_1_3_givenRejected_whenFulfilledOrRejectedAgain_thenKeepsStateAndReason() {
        assertFirstOutcomeWins(expected: .failure(TestError(1))) { seal in
            seal.reject(TestError(1))
            seal.fulfill(2)
            seal.reject(TestError(3))
        }
        assertFirstOutcomeWins(expected: .failure(TestError(1))) { seal in
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) {
                seal.reject(TestError(1))
                seal.fulfill(2)
            }
        }
        assertFirstOutcomeWins(expected: .failure(TestError(1))) { seal in
            seal.resolve(.failure(TestError(1)))
            DispatchQueue.global().async { seal.resolve(.success(2)) }
        }
    }

    func test_2_1_givenSettled_whenCancelled_thenStateDoesNotChange() {
        let fulfilled = Promise.value(1)
        fulfilled.cancel()
        XCTAssertEqual(try? fulfilled.result?.get(), 1)
        let rejected = Promise<Int>(error: reason)
        rejected.cancel()
        XCTAssertEqual(error(of: rejected) as? TestError, reason)
    }

    // MARK: 2.2.2 / 2.2.3 handlers see the value or reason, only after settling, once

    func test_2_2_2_1_givenFulfilled_thenOnFulfilledGetsTheValue() {
        specify(fulfilledWith: sentinel) { promise, done in
            _ = promise.done { value in
                XCTAssertEqual(value, sentinel)
                done()
            }
        }
    }

    func test_2_2_3_1_givenRejected_thenOnRejectedGetsTheReason() {
        specify(Int.self, rejectedWith: reason) { promise, done in
            promise.catch { error in
                XCTAssertEqual(error as? TestError, reason)
                done()
            }
        }
    }

    func test_2_2_2_2_givenPending_thenOnFulfilledDoesNotRunBeforeFulfilment() {
        let (promise, resolver) = Promise<Int>.pending()
        let settled = Box(false)
        let ran = expectation(description: "handler ran")
        _ = promise.done { _ in
            XCTAssertTrue(settled.get())
            ran.fulfill()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
            settled.set(true)
            resolver.fulfill(1)
        }
        wait(for: [ran], timeout: testTimeout)
    }

    func test_2_2_3_2_givenPending_thenOnRejectedDoesNotRunBeforeRejection() {
        let (promise, resolver) = Promise<Int>.pending()
        let settled = Box(false)
        let ran = expectation(description: "handler ran")
        promise.catch { _ in
            XCTAssertTrue(settled.get())
            ran.fulfill()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
            settled.set(true)
            resolver.reject(reason)
        }
        wait(for: [ran], timeout: testTimeout)
    }

    func test_2_2_2_3_and_2_2_3_3_givenSettledRepeatedly_thenEachHandlerRunsOnce() {
        for outcome in [Result<Int, any Error>.success(1), .failure(reason)] {
            let queue = makeSerialQueue("2.2.x.3")
            let runs = Counter()
            let (promise, resolver) = Promise<Int>.pending()
            promise.done(on: queue) { _ in runs.increment() }.catch(on: queue) { _ in runs.increment() }
            let late = promise.tap(on: queue) { _ in runs.increment() }
            resolver.resolve(outcome)
            resolver.resolve(outcome)
            resolver.fulfill(2)
            resolver.reject(TestError(3))
            _ = result(of: late)
            _ = promise.tap(on: queue) { _ in runs.increment() }  // attached after settling
            drain(queue)
            XCTAssertEqual(runs.value, 3, "\(outcome)")
        }
    }

    // MARK: 2.2.4 handlers never run inside the call that attached or settled

    func test_2_2_4_givenAnySettleTiming_whenAttachingOnSerialQueue_thenHandlerRunsAfterTheAttachingCallReturns() {
        let queue = makeSerialQueue("2.2.4")
        specify(fulfilledWith: sentinel) { promise, done in
            queue.sync {
                let attached = Box(false)
                _ = promise.done(on: queue) { _ in
                    XCTAssertTrue(attached.get(), "ran inside done(on:)")
                    done()
                }
                attached.set(true)
            }
        }
        specify(Int.self, rejectedWith: reason) { promise, done in
            queue.sync {
                let attached = Box(false)
                _ = promise.recover(on: queue) { _ -> Promise<Int> in
                    XCTAssertTrue(attached.get(), "ran inside recover(on:)")
                    done()
                    return .value(0)
                }
                attached.set(true)
            }
        }
    }

    func test_2_2_4_givenDefaultQueue_whenAttaching_thenHandlerDoesNotRunOnTheAttachingThread() {
        let attacher = makeSerialQueue("attacher")
        specify(fulfilledWith: sentinel) { promise, done in
            attacher.sync {
                _ = promise.done { _ in
                    XCTAssertNil(currentQueueName(), "handler ran inline on the attaching queue")
                    done()
                }
            }
        }
    }

    func test_2_2_4_givenPendingPromise_whenSettledInsideAContext_thenHandlerRunsAfterTheSettlingCallReturns() {
        let queue = makeSerialQueue("2.2.4-settle")
        let (promise, resolver) = Promise<Int>.pending()
        let settleReturned = Box(false)
        let ran = expectation(description: "handler ran")
        _ = promise.done(on: queue) { _ in
            XCTAssertTrue(settleReturned.get())
            ran.fulfill()
        }
        queue.sync {
            resolver.fulfill(1)
            settleReturned.set(true)
        }
        wait(for: [ran], timeout: testTimeout)
    }

    func test_2_2_4_givenHandlerAddedInsideAHandler_thenInnerRunsAfterOuterReturns() {
        let queue = makeSerialQueue("2.2.4-nested")
        specify(fulfilledWith: sentinel) { promise, done in
            _ = promise.done(on: queue) { _ in
                let outerFinished = Box(false)
                _ = promise.done(on: queue) { _ in
                    XCTAssertTrue(outerFinished.get())
                    done()
                }
                outerFinished.set(true)
            }
        }
    }

    // MARK: 2.2.6 several handlers on one promise

    func test_2_2_6_1_givenSeveralOnFulfilledOnASerialQueue_thenTheyRunInAttachmentOrder() {
        let queue = makeSerialQueue("2.2.6.1")
        specify(fulfilledWith: sentinel) { promise, done in
            let order = Recorder<Int>()
            let first = promise.map(on: queue) { _ in order.record(1); return 1 }
            let second = promise.map(on: queue) { _ -> Int in order.record(2); throw TestError(2) }
            let third = promise.map(on: queue) { _ in order.record(3); return 3 }
            _ = promise.done(on: queue) { _ in
                _ = promise.done(on: queue) { _ in  // added inside a handler: runs after all others
                    order.record(5)
                    XCTAssertEqual(order.events, [1, 2, 3, 4, 5])
                    XCTAssertEqual(try? first.result?.get(), 1)
                    XCTAssertEqual(settledError(second) as? TestError, TestError(2))
                    XCTAssertEqual(try? third.result?.get(), 3)
                    done()
                }
                order.record(4)
            }
        }
    }

    func test_2_2_6_2_givenSeveralOnRejectedOnASerialQueue_thenTheyRunInAttachmentOrder() {
        let queue = makeSerialQueue("2.2.6.2")
        specify(Int.self, rejectedWith: reason) { promise, done in
            let order = Recorder<Int>()
            let first = promise.recover(on: queue) { _ in order.record(1); return .value(1) }
            let second = promise.recover(on: queue) { error -> Promise<Int> in order.record(2); throw error }
            promise.catch(on: queue) { _ in order.record(3) }
            promise.catch(on: queue) { _ in
                order.record(4)
                XCTAssertEqual(order.events, [1, 2, 3, 4])
                XCTAssertEqual(try? first.result?.get(), 1)
                XCTAssertEqual(settledError(second) as? TestError, reason)
                done()
            }
        }
    }

    // MARK: 2.2.7 every operator returns a new promise

    func test_2_2_7_1_givenHandlerReturnsValueOrPromise_thenPromise2IsResolvedWithIt() {
        specify(fulfilledWith: sentinel) { promise, done in
            let mapped = promise.map { $0 + 1 }
            let chained = promise.then { Promise.value($0 + 2) }
            XCTAssertFalse(mapped === promise)
            _ = when(fulfilled: mapped, chained).done { pair in
                XCTAssertEqual(pair.0, sentinel + 1)
                XCTAssertEqual(pair.1, sentinel + 2)
                done()
            }
        }
    }

    func test_2_2_7_2_givenOnFulfilledThrows_thenPromise2IsRejectedWithThatError() {
        specify(fulfilledWith: sentinel) { promise, done in
            let thrown = TestError(7)
            let derived: [Promise<Void>] = [
                promise.then { _ -> Promise<Int> in throw thrown }.asVoid(),
                promise.map { _ -> Int in throw thrown }.asVoid(),
                promise.done { _ in throw thrown },
                promise.get { _ in throw thrown }.asVoid(),
            ]
            _ = when(resolved: derived).done { results in
                for case .success in results { XCTFail("an operator swallowed the throw") }
                for case .failure(let error) in results { XCTAssertEqual(error as? TestError, thrown) }
                done()
            }
        }
    }

    func test_2_2_7_2_givenOnRejectedThrows_thenPromise2IsRejectedWithThatError() {
        specify(Int.self, rejectedWith: reason) { promise, done in
            promise.recover { _ -> Promise<Int> in throw TestError(8) }.catch { error in
                XCTAssertEqual(error as? TestError, TestError(8))
                done()
            }
        }
    }

    func test_2_2_7_3_givenFulfilledAndNoOnFulfilled_thenPromise2FulfilsWithTheSameValue() {
        specify(fulfilledWith: sentinel) { promise, done in
            let recoverRan = Counter()
            _ = promise.recover { _ in recoverRan.increment(); return .value(0) }.done { value in
                XCTAssertEqual(value, sentinel)
                XCTAssertEqual(recoverRan.value, 0)
                done()
            }
        }
    }

    func test_2_2_7_4_givenRejectedAndNoOnRejected_thenPromise2RejectsWithTheSameReason() {
        specify(Int.self, rejectedWith: reason) { promise, done in
            let handlerRan = Counter()
            let derived: [Promise<Void>] = [
                promise.then { _ -> Promise<Int> in handlerRan.increment(); return .value(0) }.asVoid(),
                promise.map { _ in handlerRan.increment() },
                promise.done { _ in handlerRan.increment() },
                promise.get { _ in handlerRan.increment() }.asVoid(),
                promise.asVoid(),
            ]
            _ = when(resolved: derived).done { results in
                XCTAssertEqual(results.count, 5)
                XCTAssertFalse(results.contains { if case .success = $0 { true } else { false } })
                for case .failure(let error) in results { XCTAssertEqual(error as? TestError, reason) }
                XCTAssertEqual(handlerRan.value, 0)
                done()
            }
        }
    }
}
