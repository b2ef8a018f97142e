import Dispatch
import Foundation
import Promises
import XCTest

/// A screen's state, isolated to the main actor as a view model's would be.
@MainActor private final class Screen {
    var log: [String] = []

    nonisolated init() {}

    func show(_ entry: String) {
        XCTAssertTrue(Thread.isMainThread, "\(entry) ran off the main thread")
        log.append(entry)
    }
}

/// `on: .mainActor`: handlers isolated to the main actor, run on the main queue.
final class MainActorHandlerTests: XCTestCase {
    /// The screen's log, read on the main thread the test runs on.
    private func log(of screen: Screen) -> [String] {
        MainActor.assumeIsolated { screen.log }
    }

    /// Waits for `promise`, running the main run loop meanwhile so the main queue is serviced.
    private func waitFor<T>(_ promise: Promise<T>) {
        let done = expectation(description: "settled")
        promise.tap { _ in done.fulfill() }.cauterize()
        wait(for: [done], timeout: testTimeout)
    }

    func test_givenEveryOperator_whenOnTheMainActor_thenEachHandlerUpdatesMainActorStateInChainOrder() {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        let screen = Screen()
        let chain = Promise.value(2)
            .map(on: .mainActor) { value in screen.show("map \(value)"); return value * 10 }
            .then(on: .mainActor) { value -> Promise<Int> in screen.show("then \(value)"); return .value(value + 1) }
            .get(on: .mainActor) { value in screen.show("get \(value)") }
            .tap(on: .mainActor) { result in screen.show("tap \((try? result.get()) ?? -1)") }
            .map { _ throws -> Int in throw TestError(7) }
            .recover(on: .mainActor) { error -> Promise<Int> in screen.show("recover \(error)"); return .value(5) }
            .ensure(on: .mainActor) { screen.show("ensure") }
            .done(on: .mainActor) { value in screen.show("done \(value)") }
        let end = chain
            .catch(on: .mainActor) { error in screen.show("catch \(error)") }
            .finally(on: .mainActor) { screen.show("finally") }
        waitFor(end)
        XCTAssertEqual(log(of: screen), [
            "map 2", "then 20", "get 21", "tap 21", "recover TestError(id: 7)", "ensure", "done 5", "finally",
        ])
    }

    func test_givenARejection_whenCaughtOnTheMainActor_thenTheHandlerSeesItAndAThrowRejects() {
        let screen = Screen()
        let thrown = Promise.value(1).map(on: .mainActor) { _ throws -> Int in throw TestError(3) }
        let end = thrown
            .catch(on: .mainActor) { error in screen.show("caught \(error)") }
            .finally(on: .mainActor) { screen.show("finally") }
        waitFor(end)
        XCTAssertEqual(log(of: screen), ["caught TestError(id: 3)", "finally"])
        XCTAssertEqual(settledError(thrown) as? TestError, TestError(3))
    }

    func test_givenACancellation_whenTheCatchSkipsCancellations_thenOnlyFinallyRuns() {
        let screen = Screen()
        let (pending, seal) = Promise<Int>.pending()
        let end = pending
            .catch(on: .mainActor, policy: .allErrorsExceptCancellation) { error in screen.show("caught \(error)") }
            .finally(on: .mainActor) { screen.show("finally") }
        pending.cancel()
        waitFor(end)
        XCTAssertEqual(log(of: screen), ["finally"])
        withExtendedLifetime(seal) {}
    }

    func test_givenAVoidChain_whenItEndsWithFinallyOnTheMainActor_thenItRunsLastThere() {
        let screen = Screen()
        let end = Promise.value(3)
            .done(on: .mainActor) { value in screen.show("done \(value)") }
            .finally(on: .mainActor) { screen.show("finally") }
        waitFor(end)
        XCTAssertEqual(log(of: screen), ["done 3", "finally"])
    }

    func test_givenTypedFormsAndCompactMap_whenOnTheMainActor_thenEachRunsThereForItsErrorsOnly() {
        struct Other: Error {}
        let screen = Screen()
        let recovered = Promise<Int>(error: TestError(1))
            .recover(only: TestError.self, on: .mainActor) { error -> Promise<Int> in
                screen.show("recover type \(error.id)"); return .value(10)
            }
            .map { _ throws -> Int in throw TestError(2) }
            .recover(only: TestError(2), on: .mainActor) { error -> Promise<Int> in
                screen.show("recover value \(error.id)"); return .value(20)
            }
            .compactMap(on: .mainActor) { value -> String? in screen.show("compactMap \(value)"); return "\(value)" }
        waitFor(recovered)
        XCTAssertEqual(try recovered.wait(), "20")

        let caughtType = Promise<Int>(error: TestError(3)).catch(only: TestError.self, on: .mainActor) { error in
            screen.show("catch type \(error.id)")
        }
        let caughtValue = Promise<Int>(error: TestError(4)).catch(only: TestError(4), on: .mainActor) { error in
            screen.show("catch value \(error.id)")
        }
        let passedOn = Promise<Int>(error: Other()).catch(only: TestError.self, on: .mainActor) { _ in
            screen.show("never: another type")
        }
        waitFor(when(resolved: [caughtType, caughtValue, passedOn]))
        XCTAssertTrue(settledError(passedOn) is Other, "an error of another type passes on")
        XCTAssertEqual(log(of: screen), [
            "recover type 1", "recover value 2", "compactMap 20", "catch type 3", "catch value 4",
        ])
    }

    func test_givenMainQueueAndMainActorHandlersOnOnePromise_thenTheyRunInAttachmentOrder() {
        let screen = Screen()
        let order = Recorder<String>()
        let (promise, seal) = Promise<Int>.pending()
        let first = promise.done(on: .main) { _ in order.record("main 1") }
        let second = promise.done(on: .mainActor) { _ in screen.show("actor"); order.record("actor 2") }
        let third = promise.done(on: .main) { _ in order.record("main 3") }
        seal.fulfill(1)
        waitFor(when(fulfilled: [first, second, third]))
        XCTAssertEqual(order.events, ["main 1", "actor 2", "main 3"])
    }

    func test_givenTheSequenceOperators_whenOnTheMainActor_thenEachElementIsHandledThere() {
        let screen = Screen()
        let chain = Promise.value([3, 1, 2])
            .mapValues(on: .mainActor) { value -> Int in screen.show("map \(value)"); return value * 10 }
            .filterValues(on: .mainActor) { value in screen.show("filter \(value)"); return value != 10 }
            .compactMapValues(on: .mainActor) { value -> Int? in screen.show("compact \(value)"); return value == 20 ? nil : value }
            .flatMapValues(on: .mainActor) { value -> [Int] in screen.show("flat \(value)"); return [value, value + 1] }
            .thenFlatMap(on: .mainActor) { value -> Promise<[Int]> in screen.show("flatStart \(value)"); return .value([value]) }
            .thenMap(on: .mainActor) { value -> Promise<Int> in screen.show("start \(value)"); return .value(value) }
            .firstValue(on: .mainActor) { value in screen.show("first? \(value)"); return value > 30 }
        waitFor(chain)
        XCTAssertEqual(try chain.wait(), 31)
        XCTAssertEqual(log(of: screen), [
            "map 3", "map 1", "map 2", "filter 30", "filter 10", "filter 20", "compact 30", "compact 20",
            "flat 30", "flatStart 30", "flatStart 31", "start 30", "start 31", "first? 30", "first? 31",
        ])
    }

    func test_givenAThrowingTransformOnTheMainActor_whenThenMapStartsWork_thenItRejectsAndCancelsWhatStarted() {
        let screen = Screen()
        let (started, seal) = Promise<Int>.pending()
        let mapped = Promise.value([1, 2]).thenMap(on: .mainActor) { value -> Promise<Int> in
            screen.show("start \(value)")
            if value == 2 { throw TestError(2) }
            return started
        }
        waitFor(mapped)
        XCTAssertEqual(settledError(mapped) as? TestError, TestError(2))
        XCTAssertTrue(started.isCancelled, "the work already started was cancelled")
        XCTAssertEqual(log(of: screen), ["start 1", "start 2"])
        withExtendedLifetime(seal) {}
    }

    func test_givenEnsureThenAndWhenConcurrently_whenOnTheMainActor_thenTheirWorkStartsThere() {
        let screen = Screen()
        let cleaned = Promise.value(4).ensureThen(on: .mainActor) { () -> Promise<Void> in
            screen.show("clean up")
            return Promise.value(())
        }
        waitFor(cleaned)
        XCTAssertEqual(try cleaned.wait(), 4, "the value passes through the clean-up")
        let all = when(fulfilled: [1, 2, 3], concurrently: 2, on: .mainActor) { value -> Promise<Int> in
            screen.show("start \(value)")
            return .value(value * 2)
        }
        waitFor(all)
        XCTAssertEqual(try all.wait(), [2, 4, 6])
        XCTAssertEqual(log(of: screen), ["clean up", "start 1", "start 2", "start 3"])
    }
}
