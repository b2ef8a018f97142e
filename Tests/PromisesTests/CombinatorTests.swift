import Dispatch
import Foundation
import Promises
import XCTest

/// `when(fulfilled:)`, `when(resolved:)`, `race` and `after`.
final class CombinatorTests: XCTestCase {
    // MARK: when(fulfilled:)

    func test_givenWhenFulfilled_whenInputsSettleInReverseOrder_thenValuesKeepTheGivenOrder() {
        let pairs = (0..<5).map { _ in Promise<Int>.pending() }
        let all = when(fulfilled: pairs.map(\.promise))
        for (index, pair) in pairs.enumerated().reversed() { pair.resolver.fulfill(index * 10) }
        XCTAssertEqual(value(of: all), [0, 10, 20, 30, 40])
    }

    func test_givenWhenFulfilled_whenGivenNoPromises_thenItFulfilsWithAnEmptyArray() {
        XCTAssertEqual(value(of: when(fulfilled: [Promise<Int>]())), [])
    }

    func test_givenWhenFulfilled_whenOneRejects_thenItRejectsAtOnceAndCancelsTheOthers() {
        let slow = cancellableProducer(Int.self)
        let done = cancellableProducer(Int.self)
        let failing = cancellableProducer(Int.self)
        let all = when(fulfilled: [slow.promise, done.promise, failing.promise])
        done.resolver.fulfill(1)
        failing.resolver.reject(TestError(3))
        XCTAssertEqual(error(of: all) as? TestError, TestError(3))
        XCTAssertTrue(slow.promise.isCancelled)
        XCTAssertEqual(slow.cancelHookRuns.value, 1)
        XCTAssertEqual(done.cancelHookRuns.value, 0)
        XCTAssertEqual(failing.cancelHookRuns.value, 0)
    }

    func test_givenWhenFulfilled_whenItIsCancelled_thenEveryPendingInputIsCancelled() {
        let inputs = (0..<3).map { _ in cancellableProducer(Int.self) }
        inputs[0].resolver.fulfill(0)
        let all = when(fulfilled: inputs.map(\.promise))
        all.cancel()
        XCTAssertEqual(settledError(all) as? PromiseError, .cancelled)
        XCTAssertEqual(inputs.map(\.cancelHookRuns.value), [0, 1, 1])
    }

    func test_givenWhenFulfilledPairAndTriple_thenTheyGiveTypedTuples() {
        let pair = when(fulfilled: Promise.value(1), Promise.value("a"))
        let pairValue = value(of: pair)
        XCTAssertEqual(pairValue?.0, 1)
        XCTAssertEqual(pairValue?.1, "a")
        let triple = value(of: when(fulfilled: Promise.value(1), after(.milliseconds(5)).map { "b" }, Promise.value(true)))
        XCTAssertEqual(triple?.0, 1)
        XCTAssertEqual(triple?.1, "b")
        XCTAssertEqual(triple?.2, true)
    }

    func test_givenWhenFulfilledOfFourAndFive_thenTheyGiveTypedTuplesInOrder() {
        let four = value(of: when(
            fulfilled: after(.milliseconds(5)).map { 1 }, Promise.value("b"), Promise<Int?>.value(nil), Promise.value([3.5])))
        XCTAssertEqual(four?.0, 1)
        XCTAssertEqual(four?.1, "b")
        XCTAssertEqual(four?.2, .some(nil))
        XCTAssertEqual(four?.3, [3.5])
        let five = value(of: when(
            fulfilled: Promise.value(1), Promise.value("b"), Promise.value(true), after(.milliseconds(5)).map { 4.0 },
            Promise.value(["e": 5])))
        XCTAssertEqual(five?.0, 1)
        XCTAssertEqual(five?.1, "b")
        XCTAssertEqual(five?.2, true)
        XCTAssertEqual(five?.3, 4.0)
        XCTAssertEqual(five?.4, ["e": 5])
    }

    func test_givenWhenFulfilledOfFive_whenOneRejects_thenItRejectsAndTheOthersAreCancelled() {
        let others = (0..<4).map { _ in cancellableProducer(Int.self) }
        let five = when(
            fulfilled: others[0].promise, others[1].promise, Promise<String>(error: TestError(5)), others[2].promise,
            others[3].promise)
        XCTAssertEqual(error(of: five) as? TestError, TestError(5))
        XCTAssertEqual(others.map(\.cancelHookRuns.value), [1, 1, 1, 1])
        let pending = (0..<4).map { _ in cancellableProducer(Int.self) }
        let four = when(fulfilled: pending[0].promise, pending[1].promise, pending[2].promise, pending[3].promise)
        four.cancel()
        XCTAssertEqual(pending.map(\.cancelHookRuns.value), [1, 1, 1, 1])
    }

    func test_givenWhenFulfilledPair_whenOneRejects_thenTheOtherIsCancelled() {
        let other = cancellableProducer(String.self)
        let pair = when(fulfilled: Promise<Int>(error: TestError(2)), other.promise)
        XCTAssertEqual(error(of: pair) as? TestError, TestError(2))
        XCTAssertEqual(other.cancelHookRuns.value, 1)
    }

    func test_givenWhenFulfilledPair_whenCancelled_thenBothInputsAreCancelled() {
        let first = cancellableProducer(Int.self)
        let second = cancellableProducer(Int.self)
        let pair = when(fulfilled: first.promise, second.promise)
        pair.cancel()
        XCTAssertEqual(first.cancelHookRuns.value, 1)
        XCTAssertEqual(second.cancelHookRuns.value, 1)
    }

    func test_givenWhenFulfilledPair_whenAValueIsNil_thenTheTupleHoldsNil() {
        let pair = value(of: when(fulfilled: Promise<Int?>.value(nil), Promise<String?>.value("x")))
        XCTAssertNotNil(pair)
        XCTAssertEqual(pair?.0, .some(nil))
        XCTAssertEqual(pair?.1, "x")
        let all = value(of: when(fulfilled: [Promise<Int?>.value(nil), .value(2)]))
        XCTAssertEqual(all, [nil, 2])
    }

    // MARK: when(resolved:)

    func test_givenWhenResolved_thenItNeverRejectsAndKeepsEveryResultInOrder() {
        let (slow, slowResolver) = Promise<Int>.pending()
        let all = when(resolved: [slow, Promise(error: TestError(1)), Promise.value(2)])
        DispatchQueue.global().async { slowResolver.fulfill(0) }
        guard let results = value(of: all) else { return }
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(try? results[0].get(), 0)
        XCTAssertThrowsError(try results[1].get()) { XCTAssertEqual($0 as? TestError, TestError(1)) }
        XCTAssertEqual(try? results[2].get(), 2)
        XCTAssertEqual(value(of: when(resolved: [Promise<Int>]()))?.count, 0)
    }

    func test_givenWhenResolvedWithPromisesWrittenOut_thenItIsTheArrayForm() {
        let results = value(of: when(resolved: Promise<Int>(error: TestError(3)), .value(4)))
        XCTAssertEqual(results?.count, 2)
        XCTAssertThrowsError(try results?[0].get()) { XCTAssertEqual($0 as? TestError, TestError(3)) }
        XCTAssertEqual(try results?[1].get(), 4)
        let input = cancellableProducer(Int.self)
        let single = when(resolved: input.promise)
        single.cancel()
        XCTAssertEqual(input.cancelHookRuns.value, 1, "cancelling it cancels the inputs, as the array form does")
    }

    func test_givenWhenResolved_whenCancelled_thenTheInputsAreCancelled() {
        let input = cancellableProducer(Int.self)
        let all = when(resolved: [input.promise])
        all.cancel()
        XCTAssertEqual(input.cancelHookRuns.value, 1)
        XCTAssertTrue(all.isCancelled)
    }

    // MARK: race

    func test_givenRace_thenTheFirstToSettleWinsAndTheOthersAreCancelled() {
        let loser = cancellableProducer(Int.self)
        let winner = cancellableProducer(Int.self)
        let raced = race([loser.promise, winner.promise])
        winner.resolver.fulfill(7)
        XCTAssertEqual(value(of: raced), 7)
        XCTAssertEqual(loser.cancelHookRuns.value, 1)
        XCTAssertEqual(winner.cancelHookRuns.value, 0)
    }

    func test_givenRace_whenTheFirstToSettleRejects_thenTheRaceRejects() {
        let other = cancellableProducer(Int.self)
        let raced = race(other.promise, Promise(error: TestError(8)))
        XCTAssertEqual(error(of: raced) as? TestError, TestError(8))
        XCTAssertEqual(other.cancelHookRuns.value, 1)
    }

    func test_givenRace_whenGivenNoPromises_thenItRejectsWithEmptyRace() {
        XCTAssertEqual(error(of: race([Promise<Int>]())) as? PromiseError, .emptyRace)
    }

    func test_givenRace_whenCancelled_thenEveryInputIsCancelled() {
        let inputs = (0..<3).map { _ in cancellableProducer(Int.self) }
        let raced = race(inputs.map(\.promise))
        raced.cancel()
        XCTAssertEqual(inputs.map(\.cancelHookRuns.value), [1, 1, 1])
    }

    // MARK: after

    func test_givenAfter_thenItFulfilsNoEarlierThanTheDelay() {
        let start = DispatchTime.now()
        XCTAssertNotNil(value(of: after(seconds: 0.05)))
        XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds, 50_000_000)
        let intervalStart = DispatchTime.now()
        XCTAssertNotNil(value(of: after(.milliseconds(30))))
        XCTAssertGreaterThanOrEqual(DispatchTime.now().uptimeNanoseconds - intervalStart.uptimeNanoseconds, 30_000_000)
    }

    func test_givenAfter_whenCancelled_thenItRejectsAtOnce() {
        let timer = after(seconds: 60)
        timer.cancel()
        XCTAssertEqual(settledError(timer) as? PromiseError, .cancelled)
        let never = after(.never)
        XCTAssertTrue(never.isPending)
        never.cancel()
        XCTAssertTrue(never.isCancelled)
    }

    func test_givenAfterWithHandlers_whenTheResultIsDiscarded_thenTheHandlersStillRun() {
        let ran = expectation(description: "fire-and-forget chain ran")
        _ = after(.milliseconds(10)).done { ran.fulfill() }
        wait(for: [ran], timeout: testTimeout)
    }

    func test_givenNonFiniteOrNegativeDelays_thenAfterDoesNotTrap() {
        XCTAssertNotNil(value(of: after(seconds: -1)))
        let forever = after(seconds: .infinity)
        XCTAssertTrue(forever.isPending)
        forever.cancel()
        let nan = after(seconds: .nan)
        nan.cancel()
        XCTAssertTrue(nan.isRejected)
        XCTAssertNotNil(value(of: after(seconds: -.infinity)), "minus infinity is 'zero or less': at once")
    }

    /// Zero or less times out at once, `-infinity` included (it used to wait 68 years);
    /// `.infinity` and NaN never time out.
    func test_givenNonFiniteTimeouts_thenMinusInfinityTimesOutAtOnceAndTheOthersNever() {
        let (pending, kept) = Promise<Int>.pending()
        XCTAssertEqual(error(of: pending.timeout(seconds: -.infinity), timeout: 5) as? PromiseError, .timedOut)
        withExtendedLifetime(kept) {}
        let (open, seal) = Promise<Int>.pending()
        let patient = open.timeout(seconds: .infinity)
        let nan = open.timeout(seconds: .nan)
        seal.fulfill(3)
        XCTAssertEqual(value(of: patient), 3)
        XCTAssertEqual(value(of: nan), 3)
    }
}
