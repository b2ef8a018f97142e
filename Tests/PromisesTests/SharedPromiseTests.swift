import Dispatch
import Foundation
import Promises
import XCTest

/// `shared()`: consumers that cancel on their own; the work upstream stops with the last one.
final class SharedPromiseTests: XCTestCase {
    func test_givenTwoConsumers_whenOneCancels_thenTheOtherStillGetsTheValueAndTheWorkGoesOn() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let shared = producer.shared()
        let header = shared.makePromise().map { "header \($0)" }
        let settings = shared.makePromise().map { "settings \($0)" }
        settings.cancel()
        XCTAssertEqual(settledError(settings) as? PromiseError, .cancelled)
        XCTAssertEqual(hookRuns.value, 0, "the other consumer still waits")
        XCTAssertTrue(producer.isPending)
        resolver.fulfill(7)
        XCTAssertEqual(value(of: header), "header 7")
    }

    func test_givenEveryConsumerCancels_whenTheLastOneDoes_thenTheWorkUpstreamIsCancelledOnce() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        defer { withExtendedLifetime(resolver) {} }
        let shared = producer.shared()
        let consumers = (0..<3).map { _ in shared.makePromise() }
        consumers[0].cancel()
        consumers[1].cancel()
        XCTAssertEqual(hookRuns.value, 0)
        consumers[2].map { $0 + 1 }.cancel()   // a chain built on a consumer cancels it too
        XCTAssertEqual(hookRuns.value, 1)
        XCTAssertTrue(producer.isCancelled)
        consumers[2].cancel()   // already cancelled: no second count-down
        XCTAssertEqual(hookRuns.value, 1)
        XCTAssertFalse(shared.isPending)
    }

    func test_givenConsumersCancelledWhileTheWorkRuns_thenTheSharedPromiseLetsGoOfThemAtOnce() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let shared = producer.shared()
        let keeper = shared.makePromise()
        let released = Box<[Bool]>([])
        for _ in 0..<100 {
            weak var gone: Promise<Int>?
            do {
                let consumer = shared.makePromise()
                gone = consumer
                consumer.cancel()
            }
            released.mutate { $0.append(gone == nil) }
        }
        XCTAssertEqual(released.get().filter { $0 }.count, 100, "each cancelled consumer was freed before the work settled")
        XCTAssertEqual(hookRuns.value, 0, "the keeper still waits")
        XCTAssertTrue(producer.isPending)
        resolver.fulfill(5)
        XCTAssertEqual(value(of: keeper), 5)
    }

    func test_givenAConsumerMadeAfterTheWorkSettled_whenCancelled_thenNothingElseIsCancelled() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let shared = producer.shared()
        let early = shared.makePromise()
        resolver.fulfill(2)
        XCTAssertEqual(value(of: early), 2)
        let late = shared.makePromise()
        late.cancel()
        XCTAssertEqual(value(of: late), 2, "it had its result at once")
        XCTAssertEqual(hookRuns.value, 0)
    }

    func test_givenATimeoutOnOneConsumer_whenItFires_thenOnlyThatConsumerTimesOut() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        let shared = producer.shared()
        let patient = shared.makePromise()
        let hasty = shared.makePromise().timeout(seconds: 0.01)
        XCTAssertEqual(error(of: hasty) as? PromiseError, .timedOut)
        XCTAssertEqual(hookRuns.value, 0)
        resolver.fulfill(3)
        XCTAssertEqual(value(of: patient), 3)
    }

    func test_givenTheSharedPromiseIsCancelled_thenEveryConsumerAndTheWorkAreCancelled() {
        let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
        defer { withExtendedLifetime(resolver) {} }
        let shared = producer.shared()
        let consumers = (0..<2).map { _ in shared.makePromise() }
        shared.cancel()
        XCTAssertEqual(hookRuns.value, 1)
        for consumer in consumers { XCTAssertEqual(error(of: consumer) as? PromiseError, .cancelled) }
        XCTAssertTrue(producer.isCancelled)
    }

    func test_givenASettledSharedPromise_whenAConsumerIsMadeLater_thenItGetsTheResult() {
        let (producer, resolver, _) = cancellableProducer(Int.self)
        let shared = producer.shared()
        resolver.reject(TestError(4))
        XCTAssertEqual(error(of: shared.makePromise()) as? TestError, TestError(4))
        let cancelledEarlier = Promise<Int>.pending()
        let sharedCancel = cancelledEarlier.promise.shared()
        sharedCancel.makePromise().cancel()   // the last consumer: the shared one is cancelled
        XCTAssertEqual(error(of: sharedCancel.makePromise()) as? PromiseError, .cancelled, "a later consumer hears of it")
        withExtendedLifetime(cancelledEarlier.resolver) {}
    }

    func test_givenConsumersOnManyThreads_whenTheyCancelWhileTheValueArrives_thenEachSettlesOnceAndTheWorkIsCancelledAtMostOnce() {
        for round in 0..<50 {
            let (producer, resolver, hookRuns) = cancellableProducer(Int.self)
            let shared = producer.shared()
            let settled = Counter()
            let group = DispatchGroup()
            let consumers = Box<[Promise<Int>?]>(Array(repeating: nil, count: 200))
            DispatchQueue.concurrentPerform(iterations: 200) { index in
                group.enter()
                let consumer = shared.makePromise()
                _ = consumer.tap { _ in
                    _ = settled.increment()
                    group.leave()
                }
                consumers.mutate { $0[index] = consumer }
            }
            // Even rounds: every consumer cancels; odd rounds: half of them keep waiting.
            DispatchQueue.concurrentPerform(iterations: 200) { index in
                if index.isMultiple(of: 2) || round.isMultiple(of: 2) { consumers.get()[index]?.cancel() }
                if index == 150 { resolver.fulfill(index) }
            }
            XCTAssertEqual(group.wait(timeout: .now() + testTimeout), .success, "round \(round): a consumer never settled")
            XCTAssertEqual(settled.value, 200, "round \(round)")
            XCTAssertLessThanOrEqual(hookRuns.value, 1, "round \(round)")
            if round.isMultiple(of: 2) {
                XCTAssertEqual(hookRuns.value == 1, producer.isCancelled, "round \(round): cancelled exactly when the hook ran")
            } else {
                XCTAssertEqual(hookRuns.value, 0, "round \(round): consumers still waited")
                XCTAssertEqual(try? producer.wait(), 150, "round \(round)")
            }
        }
    }

    func test_givenASettledSharedPromise_whenEverythingIsReleased_thenItAndItsConsumersAreFreed() {
        weak var weakShared: SharedPromise<Int>?
        weak var weakConsumer: Promise<Int>?
        do {
            let (producer, resolver) = Promise<Int>.pending()
            let shared = producer.shared()
            let consumer = shared.makePromise()
            let cancelled = shared.makePromise()
            cancelled.cancel()
            weakShared = shared
            weakConsumer = consumer
            resolver.fulfill(1)
            // The pipe settles the consumer on the fulfilling thread: no handler, so nothing
            // dispatched elsewhere still holds it when the scope ends.
            XCTAssertEqual(try consumer.result?.get(), 1)
        }
        XCTAssertNil(weakShared)
        XCTAssertNil(weakConsumer)
    }
}
