import Dispatch
import Foundation
import Promises
import XCTest

/// `when(fulfilled:concurrently:on:_:)`: at most `limit` pending, values in order, the first
/// failure or a cancel stops everything.
final class WhenConcurrentlyTests: XCTestCase {
    /// Five pending producers and a record of which elements `body` started.
    private struct Fixture {
        let producers = (0..<5).map { _ in cancellableProducer(String.self) }
        let started = Recorder<Int>()
        let queue = makeSerialQueue("when-concurrently")

        func run(limit: Int) -> Promise<[String]> {
            when(fulfilled: 0..<producers.count, concurrently: limit, on: queue) { [started, producers] index in
                started.record(index)
                return producers[index].promise
            }
        }
    }

    func test_givenALimitOfTwo_thenOnlyTwoStartAndEachSettlementStartsOneMore() {
        let fixture = Fixture()
        let all = fixture.run(limit: 2)
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [0, 1])
        fixture.producers[1].resolver.fulfill("b")  // out of order
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [0, 1, 2])
        fixture.producers[2].resolver.fulfill("c")
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [0, 1, 2, 3])
        for index in [0, 3] { fixture.producers[index].resolver.fulfill(["a", "b", "c", "d"][index]) }
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [0, 1, 2, 3, 4])
        XCTAssertTrue(all.isPending)
        fixture.producers[4].resolver.fulfill("e")
        XCTAssertEqual(value(of: all), ["a", "b", "c", "d", "e"])
    }

    func test_givenTheCall_thenNoBodyRunsInsideIt() {
        let fixture = Fixture()
        fixture.queue.suspend()
        let all = fixture.run(limit: 3)
        XCTAssertEqual(fixture.started.events, [])
        fixture.queue.resume()
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [0, 1, 2])
        all.cancel()
    }

    func test_givenARejection_thenTheResultRejectsThePendingAreCancelledAndNoMoreStart() {
        let fixture = Fixture()
        let all = fixture.run(limit: 2)
        drain(fixture.queue)
        fixture.producers[0].resolver.reject(TestError(4))
        drain(fixture.queue)
        XCTAssertEqual(error(of: all) as? TestError, TestError(4))
        XCTAssertEqual(fixture.producers[1].cancelHookRuns.value, 1)
        XCTAssertEqual(fixture.started.events, [0, 1])
    }

    func test_givenABodyThatThrows_thenTheResultRejectsWithItAndThePendingAreCancelled() {
        let first = cancellableProducer(Int.self)
        let all = when(fulfilled: [0, 1], concurrently: 1) { index -> Promise<Int> in
            guard index == 0 else { throw TestError(8) }
            return first.promise
        }
        first.resolver.fulfill(0)
        XCTAssertEqual(error(of: all) as? TestError, TestError(8))

        let pending = cancellableProducer(Int.self)
        let gate = makeSerialQueue("when-concurrently-throw")
        let failing = when(fulfilled: [0, 1], concurrently: 2, on: gate) { index -> Promise<Int> in
            guard index == 0 else { throw TestError(9) }
            return pending.promise
        }
        XCTAssertEqual(error(of: failing) as? TestError, TestError(9))
        drain(gate)
        XCTAssertEqual(pending.cancelHookRuns.value, 1)
    }

    func test_givenTheResultIsCancelled_thenThePendingAreCancelledAndNoMoreStart() {
        let fixture = Fixture()
        let all = fixture.run(limit: 2)
        drain(fixture.queue)
        all.cancel()
        XCTAssertEqual(settledError(all) as? PromiseError, .cancelled)
        XCTAssertEqual(fixture.producers.prefix(2).map(\.cancelHookRuns.value), [1, 1])
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [0, 1])
    }

    /// Cancelled before any start ran: no element starts at all.
    func test_givenTheResultIsCancelledBeforeAnyStart_thenNoElementStarts() {
        let fixture = Fixture()
        fixture.queue.suspend()
        let all = fixture.run(limit: 2)
        all.cancel()
        fixture.queue.resume()
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [])
        XCTAssertEqual(settledError(all) as? PromiseError, .cancelled)
    }

    /// An element fails while the next one's `body` runs: the promise that `body` returns is
    /// cancelled instead of being waited for.
    func test_givenARejectionWhileABodyRuns_thenThePromiseThatBodyReturnsIsCancelled() {
        let producers = (0..<2).map { _ in cancellableProducer(Int.self) }
        let queue = makeSerialQueue("when-concurrently-overlap")
        let all = when(fulfilled: [0, 1], concurrently: 2, on: queue) { index -> Promise<Int> in
            if index == 1 { producers[0].resolver.reject(TestError(5)) }
            return producers[index].promise
        }
        XCTAssertEqual(error(of: all) as? TestError, TestError(5))
        drain(queue)
        XCTAssertEqual(producers[1].cancelHookRuns.value, 1)
    }

    /// Already-settled promises, and one promise returned for several elements.
    func test_givenSettledOrSharedPromises_thenEveryElementGetsItsValue() {
        let settled = when(fulfilled: 0..<50, concurrently: 3) { Promise.value($0 * 3) }
        XCTAssertEqual(value(of: settled), (0..<50).map { $0 * 3 })
        let (shared, resolver) = Promise<String>.pending()
        let queue = makeSerialQueue("when-concurrently-shared")
        let repeated = when(fulfilled: 0..<4, concurrently: 2, on: queue) { _ in shared }
        drain(queue)
        resolver.fulfill("same")
        XCTAssertEqual(value(of: repeated), ["same", "same", "same", "same"])
        let failing = when(fulfilled: 0..<4, concurrently: 2) { index in
            index == 2 ? Promise<Int>(error: TestError(2)) : .value(index)
        }
        XCTAssertEqual(error(of: failing) as? TestError, TestError(2))
    }

    func test_givenNoElementsOrALimitBelowOne_thenItStillCompletes() {
        XCTAssertEqual(value(of: when(fulfilled: [Int](), concurrently: 3) { Promise.value($0) }), [])
        let fixture = Fixture()
        let all = fixture.run(limit: 0)
        drain(fixture.queue)
        XCTAssertEqual(fixture.started.events, [0], "a limit of 0 counts as 1")
        all.cancel()
    }

    /// 400 elements, limit 4, producers settling on other threads: never more than 4 pending,
    /// every value in its place.
    func test_givenManyElementsSettlingOnOtherThreads_thenTheLimitHoldsAndEveryValueArrivesInOrder() {
        let inFlight = Box(0)
        let highest = Box(0)
        let count = 400
        let all = when(fulfilled: 0..<count, concurrently: 4, on: DispatchQueue.global()) { index in
            let now = inFlight.mutate { $0 += 1; return $0 }
            highest.mutate { $0 = max($0, now) }
            return Promise<Int> { seal in
                DispatchQueue.global().async {
                    inFlight.mutate { $0 -= 1 }
                    seal.fulfill(index * 2)
                }
            }
        }
        XCTAssertEqual(value(of: all, timeout: 30), (0..<count).map { $0 * 2 })
        XCTAssertLessThanOrEqual(highest.get(), 4)
        XCTAssertGreaterThanOrEqual(highest.get(), 1)
    }
}
