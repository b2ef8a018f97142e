import Dispatch
import Foundation
import Promises
import XCTest

/// How long any single wait in this suite may take before the test fails instead of hanging.
let testTimeout: TimeInterval = 10

/// Errors the tests reject with; `id` lets a test tell one rejection from another.
struct TestError: Error, Equatable, Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

/// A thread-safe value box for handlers to write into.
// @unchecked Sendable: `value` is only read and written while `lock` is held.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T

    init(_ value: T) { self.value = value }

    /// Reads the current value.
    func get() -> T {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Replaces the value.
    func set(_ newValue: T) {
        lock.lock()
        defer { lock.unlock() }
        value = newValue
    }

    /// Changes the value in place and returns what `body` returns, atomically.
    @discardableResult
    func mutate<R>(_ body: (inout T) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let box = Box(0)

    var value: Int { box.get() }

    /// Adds one and returns the new count.
    @discardableResult
    func increment() -> Int { box.mutate { $0 += 1; return $0 } }
}

/// An ordered, thread-safe log of events.
final class Recorder<T: Sendable>: Sendable {
    private let box = Box<[T]>([])

    var events: [T] { box.get() }

    func record(_ event: T) { box.mutate { $0.append(event) } }
}

/// An object whose deallocation a test can observe, to prove that closures capturing it were freed.
final class Canary: Sendable {
    private let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void = {}) { self.onDeinit = onDeinit }

    /// Something for a handler to call, so that the handler really captures the canary.
    func touch() {}

    deinit { onDeinit() }
}

/// A key for `DispatchQueue.setSpecific`, to tell which queue a handler ran on.
let queueNameKey = DispatchSpecificKey<String>()

/// A serial queue that knows its own name (see `currentQueueName()`).
func makeSerialQueue(_ name: String) -> DispatchQueue {
    let queue = DispatchQueue(label: "PromisesTests.\(name)")
    queue.setSpecific(key: queueNameKey, value: name)
    return queue
}

/// The name of the `makeSerialQueue` queue the caller runs on, if any.
func currentQueueName() -> String? {
    DispatchQueue.getSpecific(key: queueNameKey)
}

/// A pending promise whose producer counts `onCancel` calls.
func cancellableProducer<T: Sendable>(
    _ type: T.Type = T.self
) -> (promise: Promise<T>, resolver: Resolver<T>, cancelHookRuns: Counter) {
    let runs = Counter()
    let (promise, resolver) = Promise<T>.pending()
    resolver.onCancel { runs.increment() }
    return (promise, resolver, runs)
}

/// When a promise in a spec test settles, relative to the handler being attached.
enum SettleTiming: CaseIterable, Sendable {
    /// Settled before any handler is attached.
    case already
    /// Settled synchronously right after the handler is attached.
    case immediately
    /// Settled later, from another thread.
    case eventually
}

extension XCTestCase {
    /// Waits (bounded) for `promise` to settle and returns its result, or `nil` on time-out.
    func result<T>(
        of promise: Promise<T>, timeout: TimeInterval = testTimeout,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Result<T, any Error>? {
        let settled = DispatchSemaphore(value: 0)
        let outcome = Box<Result<T, any Error>?>(nil)
        _ = promise.tap { result in
            outcome.set(result)
            settled.signal()
        }
        guard settled.wait(timeout: .now() + timeout) == .success else {
            XCTFail("promise did not settle within \(timeout) s", file: file, line: line)
            return nil
        }
        return outcome.get()
    }

    /// Waits for `promise` and returns its value, failing the test if it rejected.
    func value<T>(
        of promise: Promise<T>, timeout: TimeInterval = testTimeout,
        file: StaticString = #filePath, line: UInt = #line
    ) -> T? {
        switch result(of: promise, timeout: timeout, file: file, line: line) {
        case .success(let value): return value
        case .failure(let error):
            XCTFail("expected a value, got \(error)", file: file, line: line)
            return nil
        case nil: return nil
        }
    }

    /// Waits for `promise` and returns its error, failing the test if it fulfilled.
    func error<T>(
        of promise: Promise<T>, timeout: TimeInterval = testTimeout,
        file: StaticString = #filePath, line: UInt = #line
    ) -> (any Error)? {
        switch result(of: promise, timeout: timeout, file: file, line: line) {
        case .success(let value):
            XCTFail("expected a rejection, got \(value)", file: file, line: line)
            return nil
        case .failure(let error): return error
        case nil: return nil
        }
    }

    /// Runs `test` once per ``SettleTiming`` with a promise that settles with `outcome`.
    ///
    /// `test` attaches its handlers and calls `done` when its assertions ran; each variant
    /// must call `done` within the time-out.
    func specify<T: Sendable>(
        settlingWith outcome: Result<T, any Error>,
        file: StaticString = #filePath, line: UInt = #line,
        _ test: (_ promise: Promise<T>, _ done: @escaping @Sendable () -> Void) -> Void
    ) {
        for timing in SettleTiming.allCases {
            let finished = expectation(description: "\(timing)")
            let done: @Sendable () -> Void = { finished.fulfill() }
            switch timing {
            case .already:
                let promise: Promise<T>
                switch outcome {
                case .success(let value): promise = .value(value)
                case .failure(let error): promise = Promise(error: error)
                }
                test(promise, done)
            case .immediately:
                let (promise, resolver) = Promise<T>.pending()
                test(promise, done)
                resolver.resolve(outcome)
            case .eventually:
                let (promise, resolver) = Promise<T>.pending()
                test(promise, done)
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
                    resolver.resolve(outcome)
                }
            }
            wait(for: [finished], timeout: testTimeout)
        }
    }

    /// `specify` for a promise fulfilled with `value`.
    func specify<T: Sendable>(
        fulfilledWith value: T, file: StaticString = #filePath, line: UInt = #line,
        _ test: (_ promise: Promise<T>, _ done: @escaping @Sendable () -> Void) -> Void
    ) {
        specify(settlingWith: .success(value), file: file, line: line, test)
    }

    /// `specify` for a promise rejected with `error`.
    func specify<T: Sendable>(
        _ type: T.Type = T.self, rejectedWith error: any Error,
        file: StaticString = #filePath, line: UInt = #line,
        _ test: (_ promise: Promise<T>, _ done: @escaping @Sendable () -> Void) -> Void
    ) {
        specify(settlingWith: .failure(error), file: file, line: line, test)
    }

    /// Waits until `queue` has run everything queued on it so far (a serial queue only).
    func drain(_ queue: DispatchQueue) {
        queue.sync {}
    }
}

/// The error of an already-rejected promise, without waiting; `nil` if pending or fulfilled.
func settledError<T>(_ promise: Promise<T>) -> (any Error)? {
    guard case .failure(let error)? = promise.result else { return nil }
    return error
}

/// Thrown by ``Promises/Promise/wait(within:file:line:)`` when the promise is still pending.
struct StillPending: Error, CustomStringConvertible {
    let seconds: TimeInterval
    var description: String { "promise still pending after \(seconds) s" }
}

extension Promise {
    /// `wait()` with a bound, for tests: a promise that never settles fails the test after
    /// `seconds` (and throws ``StillPending``) instead of hanging the whole suite.
    func wait(within seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line) throws -> Value {
        let settled = DispatchSemaphore(value: 0)
        _ = tap { _ in settled.signal() }
        guard settled.wait(timeout: .now() + seconds) == .success, let result else {
            XCTFail("promise still pending after \(seconds) s", file: file, line: line)
            throw StillPending(seconds: seconds)
        }
        return try result.get()
    }
}
