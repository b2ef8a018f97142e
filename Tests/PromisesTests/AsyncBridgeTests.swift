import Dispatch
import Foundation
import Promises
import XCTest

/// `try await promise.value` and `Promise { try await … }`: values, errors, no main-queue hop,
/// and cancellation in both directions.
final class AsyncBridgeTests: XCTestCase {
    func test_givenFulfilledOrRejectedPromise_whenAwaited_thenValueIsReturnedOrErrorThrown() async {
        do {
            let value = try await Promise.value(1).map { $0 + 1 }.value
            XCTAssertEqual(value, 2)
        } catch {
            XCTFail("unexpected \(error)")
        }
        do {
            _ = try await Promise<Int>(error: TestError(3)).value
            XCTFail("expected a throw")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(3))
        }
    }

    /// An object made on the settling thread, read by the awaiting task: each task must see its
    /// own, whole. Under Thread Sanitizer this also checks that the hand-over through the
    /// continuation is seen as ordered.
    func test_givenObjectsMadeOnOtherThreads_whenManyTasksAwaitThem_thenEachReadsItsOwn() async throws {
        final class Parcel: Sendable {
            let label: String
            let weight: Int
            init(label: String, weight: Int) { self.label = label; self.weight = weight }
        }
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var sum = 0
                    for round in 0..<1_500 {
                        let label = "\(task)-\(round)"
                        let parcel = try await Promise<Parcel> { seal in
                            DispatchQueue.global().async { seal.fulfill(Parcel(label: label, weight: round)) }
                        }.value
                        XCTAssertEqual(parcel.label, label)
                        sum += parcel.weight
                    }
                    return sum
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(total, 8 * (0..<1_500).reduce(0, +))
    }

    func test_givenPromiseSettledLaterOnAnotherThread_whenAwaited_thenTheTaskResumes() {
        let (promise, resolver) = Promise<String>.pending()
        let resumed = DispatchSemaphore(value: 0)
        let received = Box<String?>(nil)
        Task.detached {
            received.set(try? await promise.value)
            resumed.signal()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { resolver.fulfill("late") }
        // Bounded: a bridge that never resumed would fail here instead of hanging the suite.
        XCTAssertEqual(resumed.wait(timeout: .now() + testTimeout), .success)
        XCTAssertEqual(received.get(), "late")
    }

    /// The main thread stays blocked for the whole test: if resuming needed the main queue,
    /// the awaiting task could never finish.
    func test_givenMainThreadIsBlocked_whenAPromiseSettlesOffMain_thenTheAwaitingTaskStillResumes() {
        let (promise, resolver) = Promise<Int>.pending()
        let resumed = DispatchSemaphore(value: 0)
        let received = Box<Int?>(nil)
        Task.detached {
            received.set(try? await promise.value)
            resumed.signal()
        }
        DispatchQueue.global().async { resolver.fulfill(5) }
        XCTAssertEqual(resumed.wait(timeout: .now() + testTimeout), .success)
        XCTAssertEqual(received.get(), 5)
    }

    func test_givenAwaitingTask_whenTheTaskIsCancelled_thenThePromiseAndItsProducerAreCancelled() {
        let (promise, resolver, hookRuns) = cancellableProducer(Int.self)
        let finished = DispatchSemaphore(value: 0)
        let thrown = Box<PromiseError?>(nil)
        let awaiting = Task {
            do {
                _ = try await promise.value
            } catch {
                thrown.set(error as? PromiseError)
            }
            finished.signal()
        }
        awaiting.cancel()
        // Bounded: the producer is kept alive below, so only the cancellation can end the wait.
        XCTAssertEqual(finished.wait(timeout: .now() + testTimeout), .success, "the awaiting task never ended")
        XCTAssertEqual(thrown.get(), .cancelled)
        XCTAssertTrue(promise.isCancelled)
        XCTAssertEqual(hookRuns.value, 1)
        withExtendedLifetime(resolver) {}
    }

    func test_givenTaskAlreadyAwaiting_whenCancelled_thenTheAwaitThrowsCancelled() {
        let (promise, resolver, hookRuns) = cancellableProducer(Int.self)
        let awaitStarted = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let thrown = Box<(any Error)?>(nil)
        let awaiting = Task.detached {
            awaitStarted.signal()
            do { _ = try await promise.value } catch { thrown.set(error) }
            finished.signal()
        }
        XCTAssertEqual(awaitStarted.wait(timeout: .now() + testTimeout), .success)
        awaiting.cancel()
        XCTAssertEqual(finished.wait(timeout: .now() + testTimeout), .success)
        XCTAssertEqual(thrown.get() as? PromiseError, .cancelled)
        XCTAssertEqual(hookRuns.value, 1)
        withExtendedLifetime(resolver) {}
    }

    func test_givenCancelledTask_whenAwaitingAnAlreadyFulfilledPromise_thenTheValueIsStillReturned() async {
        let promise = Promise.value(9)
        let awaiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await promise.value
        }
        let value = try? await awaiting.value
        XCTAssertEqual(value, 9)
        XCTAssertTrue(promise.isFulfilled)
    }

    // MARK: Promise from async work

    func test_givenAsyncOperation_thenThePromiseSettlesWithItsOutcome() {
        let fulfilled = Promise<Int> {
            await Task.yield()
            return 4
        }
        XCTAssertEqual(value(of: fulfilled), 4)
        let rejected = Promise<Int> { () async throws -> Int in throw TestError(5) }
        XCTAssertEqual(error(of: rejected) as? TestError, TestError(5))
    }

    func test_givenAsyncOperation_whenThePromiseIsCancelled_thenTheTaskIsCancelled() {
        let operationSawCancellation = expectation(description: "operation cancelled")
        let started = DispatchSemaphore(value: 0)
        let promise = Promise<Int> {
            started.signal()
            do {
                try await Task.sleep(nanoseconds: UInt64(testTimeout * 1e9))
            } catch {
                operationSawCancellation.fulfill()
                throw error
            }
            return 1
        }
        XCTAssertEqual(started.wait(timeout: .now() + testTimeout), .success)
        promise.map { $0 + 1 }.cancel()
        wait(for: [operationSawCancellation], timeout: testTimeout)
        XCTAssertEqual(settledError(promise) as? PromiseError, .cancelled)
    }

    func test_givenPromiseKitsAsyncName_whenAwaited_thenItGivesTheValueOrThrows() async {
        let answer = try? await Promise.value(42).async()
        XCTAssertEqual(answer, 42)
        do {
            _ = try await Promise<Int>(error: TestError(3)).async()
            XCTFail("a rejected promise throws")
        } catch {
            XCTAssertEqual(error as? TestError, TestError(3))
        }
    }
}
