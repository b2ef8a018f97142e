import Dispatch
import Foundation
import Promises
import XCTest

/// `attempt`: counts retries (body runs 1 + maximumRetryCount times), honours `shouldRetry`,
/// rejects with the last error, never retries a cancellation and stops once cancelled.
final class AttemptTests: XCTestCase {
    private let shortDelay = DispatchTimeInterval.milliseconds(1)

    func test_givenFirstTrySucceeds_thenTheBodyRunsOnce() {
        let runs = Counter()
        let result = attempt(maximumRetryCount: 3, delayBeforeRetry: shortDelay) { () -> Promise<Int> in
            .value(runs.increment())
        }
        XCTAssertEqual(value(of: result), 1)
        XCTAssertEqual(runs.value, 1)
    }

    func test_givenDefaults_whenFirstTrySucceeds_thenItFulfilsWithoutWaiting() {
        XCTAssertEqual(value(of: attempt { Promise.value(3) }, timeout: 1), 3)
    }

    func test_givenEveryTryFails_thenTheBodyRunsOnePlusMaximumRetryCountTimesAndTheLastErrorWins() {
        for retries in [0, 1, 3] {
            let runs = Counter()
            let result = attempt(maximumRetryCount: retries, delayBeforeRetry: shortDelay) { () -> Promise<Int> in
                Promise(error: TestError(runs.increment()))
            }
            XCTAssertEqual(error(of: result) as? TestError, TestError(retries + 1), "retries: \(retries)")
            XCTAssertEqual(runs.value, retries + 1, "retries: \(retries)")
        }
    }

    func test_givenNegativeRetryCount_thenTheBodyRunsOnce() {
        let runs = Counter()
        let result = attempt(maximumRetryCount: -2, delayBeforeRetry: shortDelay) { () -> Promise<Int> in
            Promise(error: TestError(runs.increment()))
        }
        XCTAssertEqual(error(of: result) as? TestError, TestError(1))
        XCTAssertEqual(runs.value, 1)
    }

    func test_givenALaterTrySucceeds_thenItFulfilsWithThatValue() {
        let runs = Counter()
        let result = attempt(maximumRetryCount: 5, delayBeforeRetry: shortDelay) { () -> Promise<String> in
            let run = runs.increment()
            // an asynchronous body, as a real request would be
            return after(.milliseconds(1)).map { () throws -> String in
                guard run == 3 else { throw TestError(run) }
                return "third"
            }
        }
        XCTAssertEqual(value(of: result), "third")
        XCTAssertEqual(runs.value, 3)
    }

    func test_givenShouldRetryRefuses_thenItStopsWithThatError() {
        let runs = Counter()
        let asked = Recorder<Int>()
        let result = attempt(
            maximumRetryCount: 5, delayBeforeRetry: shortDelay,
            shouldRetry: { error in
                let id = (error as? TestError)?.id ?? -1
                asked.record(id)
                return id < 2
            }
        ) { () -> Promise<Int> in
            Promise(error: TestError(runs.increment()))
        }
        XCTAssertEqual(error(of: result) as? TestError, TestError(2))
        XCTAssertEqual(runs.value, 2)
        XCTAssertEqual(asked.events, [1, 2])
    }

    /// `shouldRetry` is the caller's code: not run inside `attempt` for a try that rejected at
    /// once (Promises/A+ 2.2.4), nor inside the producer's `reject` (which may hold its locks).
    /// Both calls are made on this test's thread, so a predicate run inside either runs here.
    func test_givenShouldRetry_thenItNeverRunsInsideTheAttachingCallOrTheProducersReject() {
        let testThread = pthread_self()
        let ranOnTestThread = Recorder<Bool>()
        let predicate: @Sendable (any Error) -> Bool = { _ in
            ranOnTestThread.record(pthread_equal(pthread_self(), testThread) != 0)
            return false
        }
        let immediate = attempt(maximumRetryCount: 1, delayBeforeRetry: shortDelay, shouldRetry: predicate) {
            Promise<Int>(error: TestError(1))
        }
        XCTAssertEqual(error(of: immediate) as? TestError, TestError(1))

        let (pending, seal) = Promise<Int>.pending()
        let later = attempt(maximumRetryCount: 1, delayBeforeRetry: shortDelay, shouldRetry: predicate) { pending }
        seal.reject(TestError(2))
        XCTAssertEqual(error(of: later) as? TestError, TestError(2))
        XCTAssertEqual(ranOnTestThread.events, [false, false], "shouldRetry ran inside attempt(...) or inside reject")
    }

    func test_givenBodyRejectsWithACancellation_thenItIsNotRetried() {
        let runs = Counter()
        let result = attempt(maximumRetryCount: 3, delayBeforeRetry: shortDelay) { () -> Promise<Int> in
            runs.increment()
            return Promise(error: CancellationError())
        }
        XCTAssertTrue(error(of: result) is CancellationError)
        XCTAssertEqual(runs.value, 1)
    }

    func test_givenAttemptCancelledDuringTheDelay_thenItRejectsAndNeverRetries() {
        let runs = Counter()
        let cancelIssued = Box(false)
        let retried = expectation(description: "body ran again after the cancel")
        retried.isInverted = true
        let result = attempt(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(250)) { () -> Promise<Int> in
            runs.increment()
            if cancelIssued.get() { retried.fulfill() }
            return Promise(error: TestError(1))
        }
        XCTAssertTrue(result.isPending)  // the first try failed; the delay is running
        // A stall of this thread past the delay legitimately lets a retry start before the
        // cancel: only a try that starts after it is a failure.
        cancelIssued.mutate { $0 = true }
        result.cancel()
        XCTAssertEqual(settledError(result) as? PromiseError, .cancelled)
        wait(for: [retried], timeout: 0.6)  // more than two delays' worth: no retry may start
        XCTAssertGreaterThanOrEqual(runs.value, 1)
    }

    func test_givenAttemptCancelledDuringATry_thenTheTryIsCancelledAndNotRetried() {
        let runs = Counter()
        let tryHook = Counter()
        let retried = expectation(description: "body ran again")
        retried.isInverted = true
        let result = attempt(maximumRetryCount: 3, delayBeforeRetry: shortDelay) { () -> Promise<Int> in
            if runs.increment() > 1 { retried.fulfill() }
            let (promise, resolver) = Promise<Int>.pending()
            resolver.onCancel { tryHook.increment() }
            DispatchQueue.global().asyncAfter(deadline: .now() + testTimeout) { resolver.reject(TestError(1)) }
            return promise
        }
        result.cancel()
        XCTAssertEqual(tryHook.value, 1)
        XCTAssertEqual(settledError(result) as? PromiseError, .cancelled)
        wait(for: [retried], timeout: 0.1)
        XCTAssertEqual(runs.value, 1)
    }

    func test_givenAttemptDerivedChain_whenCancelledDownstream_thenTheRunningTryIsCancelled() {
        let tryHook = Counter()
        let result = attempt(maximumRetryCount: 1, delayBeforeRetry: shortDelay) { () -> Promise<Int> in
            let (promise, resolver) = Promise<Int>.pending()
            resolver.onCancel { tryHook.increment() }
            DispatchQueue.global().asyncAfter(deadline: .now() + testTimeout) { resolver.fulfill(0) }
            return promise
        }
        result.map { $0 + 1 }.cancel()
        XCTAssertEqual(tryHook.value, 1)
    }

    /// A pause that never ends would leave the promise pending forever: `.never` means no retry.
    func test_givenANeverEndingDelay_whenTheFirstTryFails_thenItRejectsWithThatErrorAtOnce() {
        let runs = Box(0)
        let promise = attempt(maximumRetryCount: 3, delayBeforeRetry: .never) { () -> Promise<Int> in
            runs.mutate { $0 += 1 }
            return Promise(error: TestError(7))
        }
        XCTAssertEqual(error(of: promise) as? TestError, TestError(7))
        XCTAssertEqual(runs.get(), 1)
    }
}
