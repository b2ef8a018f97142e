import Dispatch
import Foundation
import Promises
import XCTest

/// `recover(only:)` and `catch(only:)`: handlers for one error type or one error value.
final class TypedErrorTests: XCTestCase {
    struct Offline: Error, Equatable {}

    func test_givenAResultWithATypedError_whenAResolverSettlesFromIt_thenThePromiseHasItsValueOrError() {
        let fulfilled = Promise<Int> { seal in seal.resolve(Result<Int, Offline>.success(3)) }
        let rejected = Promise<Int> { seal in seal.resolve(Result<Int, Offline>.failure(Offline())) }
        let untyped = Promise<Int> { seal in seal.resolve(Result<Int, any Error>.failure(TestError(5))) }
        XCTAssertEqual(value(of: fulfilled), 3)
        XCTAssertEqual(error(of: rejected) as? Offline, Offline())
        XCTAssertEqual(error(of: untyped) as? TestError, TestError(5))
        // As a completion handler itself: `(Result<Int, Offline>) -> Void`.
        func load(_ completion: @escaping @Sendable (Result<Int, Offline>) -> Void) {
            DispatchQueue.global().async { completion(.success(8)) }
        }
        XCTAssertEqual(value(of: Promise<Int> { seal in load(seal.resolve) }), 8)
    }

    func test_givenRecoverOnlyAType_whenTheErrorMatches_thenItRecoversAndOtherErrorsPassThrough() {
        let ran = Box(0)
        let recovered = Promise<Int>(error: TestError(4)).recover(only: TestError.self) { error in
            ran.set(ran.get() + 1)
            return .value(error.id * 10)
        }
        XCTAssertEqual(value(of: recovered), 40)
        let passed = Promise<Int>(error: Offline()).recover(only: TestError.self) { _ in
            ran.set(ran.get() + 1)
            return .value(0)
        }
        XCTAssertEqual(error(of: passed) as? Offline, Offline())
        XCTAssertEqual(value(of: Promise.value(7).recover(only: TestError.self) { _ in .value(0) }), 7)
        XCTAssertEqual(ran.get(), 1, "the body ran for the matching error only")
        let rethrown = Promise<Int>(error: TestError(1)).recover(only: TestError.self) { _ in throw TestError(2) }
        XCTAssertEqual(error(of: rethrown) as? TestError, TestError(2))
    }

    func test_givenRecoverOnlyAType_whenThePolicySkipsCancellations_thenACancellationPassesThrough() {
        // The resolvers are kept: a released one would reject with `.resolverReleased` first.
        let (pending, resolver) = Promise<Int>.pending()
        let skipping = pending.recover(only: PromiseError.self, policy: .allErrorsExceptCancellation) { _ in .value(1) }
        let (other, otherResolver) = Promise<Int>.pending()
        let taking = other.recover(only: PromiseError.self) { _ in .value(2) }
        pending.cancel()
        other.cancel()
        XCTAssertEqual(error(of: skipping) as? PromiseError, .cancelled)
        XCTAssertEqual(value(of: taking), 2, "the default policy hands cancellations to the body")
        withExtendedLifetime((resolver, otherResolver)) {}
    }

    func test_givenRecoverOnlyAValue_whenTheTimeoutFires_thenOnlyThatErrorIsRecovered() {
        let (slow, resolver) = Promise<String>.pending()
        let fallback = slow.timeout(seconds: 0.01).recover(only: PromiseError.timedOut) { _ in .value("cached") }
        XCTAssertEqual(value(of: fallback), "cached")
        XCTAssertTrue(slow.isCancelled, "the timeout cancelled the slow work")
        withExtendedLifetime(resolver) {}
        let cancelled = Promise<String>(error: PromiseError.cancelled).recover(only: PromiseError.timedOut) { _ in .value("no") }
        XCTAssertEqual(error(of: cancelled) as? PromiseError, .cancelled)
        let otherType = Promise<String>(error: TestError(3)).recover(only: PromiseError.timedOut) { _ in .value("no") }
        XCTAssertEqual(error(of: otherType) as? TestError, TestError(3))
    }

    func test_givenCascadingCatchOnly_whenEachKindOfOutcome_thenExactlyOneHandlerRuns() {
        func run(_ promise: Promise<Int>) -> [String] {
            let seen = Box<[String]>([])
            let queue = DispatchQueue(label: "catch")   // one serial queue: both handlers are in order
            let end = promise
                .catch(only: TestError.self, on: queue) { error in seen.set(seen.get() + ["typed \(error.id)"]) }
                .catch(on: queue) { error in seen.set(seen.get() + ["rest \(error)"]) }
                .finally(on: queue) {}
            _ = value(of: end)
            return seen.get()
        }
        XCTAssertEqual(run(Promise(error: TestError(8))), ["typed 8"])
        XCTAssertEqual(run(Promise(error: Offline())), ["rest Offline()"])
        XCTAssertEqual(run(.value(1)), [])
    }

    func test_givenCatchOnlyAValue_whenAnotherValueOfTheSameTypeArrives_thenItIsPassedOn() {
        let matched = Promise<Int>(error: TestError(1)).catch(only: TestError(1)) { _ in }
        XCTAssertNotNil(value(of: matched))
        let other = Promise<Int>(error: TestError(2)).catch(only: TestError(1)) { _ in XCTFail("wrong error handled") }
        XCTAssertEqual(error(of: other) as? TestError, TestError(2))
        // The source is cancelled (not the typed catch's own promise, which would reject at
        // once whatever the policy): a body that ignored the policy would fulfil `skipping`.
        let (pending, resolver) = Promise<Int>.pending()
        let ran = Box(false)
        let skipping = pending.catch(only: PromiseError.self, policy: .allErrorsExceptCancellation) { _ in ran.set(true) }
        pending.cancel()
        XCTAssertEqual(error(of: skipping) as? PromiseError, .cancelled)
        XCTAssertFalse(ran.get(), "a cancellation reached a policy that skips it")
        withExtendedLifetime(resolver) {}
    }
}

extension TypedErrorTests {
    /// `finally` after a typed `catch` runs once for every outcome, after the `catch` handler.
    func test_givenATypedCatchFollowedByFinally_whenEachKindOfOutcome_thenFinallyRunsLast() {
        func run(_ promise: Promise<Void>) -> [String] {
            let seen = Box<[String]>([])
            let queue = DispatchQueue(label: "typed.finally")   // serial: the order is the order of events
            let done = promise
                .catch(only: TestError.self, on: queue) { error in seen.set(seen.get() + ["typed \(error.id)"]) }
                .finally(on: queue) { seen.set(seen.get() + ["finally"]) }
            _ = result(of: done)   // waits for it to settle, whatever the outcome
            return seen.get()
        }
        XCTAssertEqual(run(Promise<Void>(error: TestError(5))), ["typed 5", "finally"])
        XCTAssertEqual(run(Promise<Void>(error: Offline())), ["finally"], "an error not taken still reaches finally")
        XCTAssertEqual(run(Promise.value(())), ["finally"])
    }
}
