import Dispatch
import Foundation
import Promises
import XCTest

/// `mapValues`, `compactMapValues`, `flatMapValues`, `filterValues`, `firstValue`,
/// `lastValue`, `sortedValues`, `thenMap`, `race(fulfilled:)` and `cauterize`.
final class SequenceHelperTests: XCTestCase {
    func test_givenAPromiseOfAnArray_whenValuesAreTransformedFilteredOrSorted_thenTheOrderAndValuesAreKept() {
        let numbers = Promise.value([3, 1, 4, 1, 5])
        XCTAssertEqual(value(of: numbers.mapValues { $0 * 10 }), [30, 10, 40, 10, 50])
        XCTAssertEqual(value(of: numbers.compactMapValues { $0 > 2 ? String($0) : nil }), ["3", "4", "5"])
        XCTAssertEqual(value(of: numbers.flatMapValues { [$0, -$0] }), [3, -3, 1, -1, 4, -4, 1, -1, 5, -5])
        XCTAssertEqual(value(of: numbers.filterValues { $0.isMultiple(of: 2) == false }), [3, 1, 1, 5])
        XCTAssertEqual(value(of: numbers.sortedValues()), [1, 1, 3, 4, 5])
        XCTAssertEqual(value(of: numbers.firstValue), 3)
        XCTAssertEqual(value(of: numbers.lastValue), 5)
        XCTAssertEqual(value(of: numbers.firstValue { $0 > 3 }), 4)
    }

    func test_givenAnEmptySequence_whenFirstOrLastValue_thenItRejectsWithEmptySequence() {
        XCTAssertEqual(error(of: Promise.value([Int]()).firstValue) as? PromiseError, .emptySequence)
        XCTAssertEqual(error(of: Promise.value([Int]()).lastValue) as? PromiseError, .emptySequence)
        XCTAssertEqual(error(of: Promise.value([1, 2]).firstValue { $0 > 5 }) as? PromiseError, .emptySequence)
    }

    func test_givenATransformThatThrowsOrARejectedPromise_whenMappingValues_thenThatErrorPassesOn() {
        let thrown = Promise.value([1, 2]).mapValues { value -> Int in
            if value == 2 { throw TestError(2) }
            return value
        }
        XCTAssertEqual(error(of: thrown) as? TestError, TestError(2))
        XCTAssertEqual(error(of: Promise<[Int]>(error: TestError(3)).filterValues { _ in true }) as? TestError, TestError(3))
    }

    func test_givenASequenceHelperOnAQueue_thenItsHandlerRunsThere() {
        let queue = makeSerialQueue("sequence-helper")
        let one = Promise.value([1])
        XCTAssertEqual(value(of: one.mapValues(on: queue) { _ in currentQueueName() }), ["sequence-helper"])
        XCTAssertEqual(value(of: one.compactMapValues(on: queue) { _ in currentQueueName() }), ["sequence-helper"])
        XCTAssertEqual(value(of: one.flatMapValues(on: queue) { _ in [currentQueueName()] }), ["sequence-helper"])
        XCTAssertEqual(value(of: one.filterValues(on: queue) { _ in currentQueueName() == "sequence-helper" }), [1])
        XCTAssertEqual(value(of: one.firstValue(on: queue) { _ in currentQueueName() == "sequence-helper" }), 1)
        XCTAssertEqual(value(of: one.thenMap(on: queue) { _ in Promise.value(currentQueueName()) }), ["sequence-helper"])
    }

    func test_givenAPendingUpstream_whenTheMappedValuesAreCancelled_thenTheCancellationReachesTheProducer() {
        let (upstream, resolver, hookRuns) = cancellableProducer([Int].self)
        let mapped = upstream.mapValues { $0 + 1 }
        mapped.cancel()
        XCTAssertEqual(settledError(mapped) as? PromiseError, .cancelled)
        XCTAssertEqual(hookRuns.value, 1)
        XCTAssertFalse(resolver.isPending)
    }

    func test_givenThenMap_whenThePromisesSettleOutOfOrder_thenTheValuesFollowTheElements() {
        let producers = (0..<3).map { _ in Promise<String>.pending() }
        let started = DispatchSemaphore(value: 0)
        let all = Promise.value([0, 1, 2]).thenMap { index -> Promise<String> in
            started.signal()
            return producers[index].promise
        }
        for _ in 0..<3 { XCTAssertEqual(started.wait(timeout: .now() + testTimeout), .success) }
        producers[2].resolver.fulfill("c")
        producers[0].resolver.fulfill("a")
        XCTAssertTrue(all.isPending)
        producers[1].resolver.fulfill("b")
        XCTAssertEqual(value(of: all), ["a", "b", "c"])
    }

    func test_givenThenFlatMap_whenTheSequencesArriveOutOfOrder_thenTheyAreJoinedInElementOrder() {
        let producers = (0..<3).map { _ in Promise<[String]>.pending() }
        let started = DispatchSemaphore(value: 0)
        let all = Promise.value([0, 1, 2]).thenFlatMap { index -> Promise<[String]> in
            started.signal()
            return producers[index].promise
        }
        for _ in 0..<3 { XCTAssertEqual(started.wait(timeout: .now() + testTimeout), .success) }
        producers[2].resolver.fulfill(["e"])
        producers[0].resolver.fulfill(["a", "b"])
        producers[1].resolver.fulfill([])
        XCTAssertEqual(value(of: all), ["a", "b", "e"])
    }

    func test_givenThenFlatMap_whenOneRejects_thenTheResultRejectsAndTheOthersAreCancelled() {
        let pending = cancellableProducer([Int].self)
        let all = Promise.value([0, 1]).thenFlatMap { index -> Promise<[Int]> in
            index == 0 ? pending.promise : Promise(error: TestError(4))
        }
        XCTAssertEqual(error(of: all) as? TestError, TestError(4))
        XCTAssertEqual(pending.cancelHookRuns.value, 1)
    }

    func test_givenThenMap_whenTheTransformThrowsMidway_thenItRejectsAndCancelsThePromisesAlreadyStarted() {
        let first = cancellableProducer(Int.self)
        let second = cancellableProducer(Int.self)
        let all = Promise.value([0, 1, 2]).thenMap { index -> Promise<Int> in
            switch index {
            case 0: return first.promise
            case 1: return second.promise
            default: throw TestError(7)
            }
        }
        XCTAssertEqual(error(of: all) as? TestError, TestError(7))
        XCTAssertEqual(first.cancelHookRuns.value, 1)
        XCTAssertEqual(second.cancelHookRuns.value, 1)
    }

    // MARK: race(fulfilled:)

    func test_givenAnEarlyRejection_whenRacingForTheFirstFulfilment_thenTheLaterFulfilmentWinsAndTheOthersAreCancelled() {
        let failing = cancellableProducer(Int.self)
        let winning = cancellableProducer(Int.self)
        let losing = cancellableProducer(Int.self)
        let raced = race(fulfilled: [failing.promise, winning.promise, losing.promise])
        failing.resolver.reject(TestError(1))
        XCTAssertTrue(raced.isPending, "a rejection decided the race")
        winning.resolver.fulfill(42)
        XCTAssertEqual(value(of: raced), 42)
        XCTAssertEqual(losing.cancelHookRuns.value, 1)
        XCTAssertEqual(winning.cancelHookRuns.value, 0)
    }

    func test_givenEveryPromiseRejects_whenRacingForTheFirstFulfilment_thenItRejectsWithTheLastError() {
        let promises = (0..<3).map { _ in Promise<Int>.pending() }
        let raced = race(fulfilled: promises.map(\.promise))
        promises[1].resolver.reject(TestError(1))
        promises[0].resolver.reject(TestError(0))
        XCTAssertTrue(raced.isPending)
        promises[2].resolver.reject(TestError(2))
        XCTAssertEqual(error(of: raced) as? TestError, TestError(2))
    }

    func test_givenNoPromisesOrACancelledRace_whenRacingForTheFirstFulfilment_thenItRejectsAndCancelsEveryone() {
        XCTAssertEqual(error(of: race(fulfilled: [Promise<Int>]())) as? PromiseError, .emptyRace)
        let producers = (0..<2).map { _ in cancellableProducer(Int.self) }
        let raced = race(fulfilled: producers.map(\.promise))
        raced.cancel()
        XCTAssertEqual(settledError(raced) as? PromiseError, .cancelled)
        XCTAssertEqual(producers.map(\.cancelHookRuns.value), [1, 1])
    }

    // MARK: cauterize

    func test_givenARejectedChain_whenCauterized_thenTheErrorIsDroppedAndFinallyRuns() {
        let finallyRan = Counter()
        let end = Promise<Int>(error: TestError(1)).cauterize().finally { finallyRan.increment() }
        XCTAssertNotNil(value(of: end))
        XCTAssertEqual(finallyRan.value, 1)
    }

    func test_givenAPendingChain_whenCauterizedAndItsFinalizerCancelled_thenTheCancellationReachesTheProducer() {
        let producer = cancellableProducer(Int.self)
        let end = producer.promise.cauterize()
        end.cancel()
        XCTAssertEqual(producer.cancelHookRuns.value, 1)
        XCTAssertNotNil(value(of: end.finally {}), "the cauterized chain never ended")
    }

    func test_givenSettledOrRepeatedInputs_whenRacingForTheFirstFulfilment_thenTheFulfilledOneWins() {
        XCTAssertEqual(value(of: race(fulfilled: [Promise<Int>(error: TestError(1)), .value(5)])), 5)
        let (shared, resolver) = Promise<Int>.pending()
        let raced = race(fulfilled: [shared, shared])
        resolver.fulfill(8)
        XCTAssertEqual(value(of: raced), 8)
    }
}
