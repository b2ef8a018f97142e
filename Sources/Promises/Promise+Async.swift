import Dispatch
import Foundation

extension Promise {
    /// The fulfilled value, awaited without blocking a thread.
    ///
    /// ```swift
    /// let feed = try await client.request(Feed.latest).value
    /// ```
    ///
    /// The awaiting task resumes straight from the thread that settled the promise (no queue
    /// hop, never the main queue). Cancelling the awaiting `Task` cancels the promise, which
    /// then throws ``PromiseError/cancelled``.
    public var value: Value {
        get async throws {
            // One pass through the promise's lock once the task resumes. The continuation
            // already orders the settling thread's work before this task's, but Thread
            // Sanitizer cannot see it (the runtime hands the value over through atomics it does
            // not instrument) and reported objects made for the value as raced. Settling
            // released this lock after storing the value; taking it is an ordering it sees.
            defer { _ = isPending }
            return try await withTaskCancellationHandler {
                // Unsafe rather than checked: the checked variant allocates a canary object per
                // await. The continuation is resumed exactly once, because a promise settles once
                // and notifies each observer once; a dropped `Resolver` rejects, so it always is.
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Value, any Error>) in
                    _observe(.callback { continuation.resume(with: $0) })
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// Starts `operation` in a new `Task` and settles with its outcome; cancelling the promise
    /// cancels the task.
    ///
    /// ```swift
    /// let promise = Promise { try await store.loadProfile() }
    /// ```
    /// - Parameters:
    ///   - priority: The task's priority. Default: `nil`, inherited.
    ///   - operation: The async work.
    public convenience init(priority: TaskPriority? = nil, operation: @escaping @Sendable () async throws -> Value) {
        self.init(upstream: nil)
        let task = Task(priority: priority) { [self] in
            do {
                _resolve(.success(try await operation()))
            } catch {
                _resolve(.failure(error))
            }
        }
        _addCancelHook { task.cancel() }
    }

    /// Blocks the calling thread until the promise settles, then returns its value or throws.
    ///
    /// For tests and command-line scripts only: never call it on a queue the promise
    /// needs to settle (that deadlocks), and it is unavailable from async code, where
    /// `try await promise.value` is the way.
    @available(*, noasync, message: "Use `try await promise.value` in async code")
    public func wait() throws -> Value {
        let semaphore = DispatchSemaphore(value: 0)
        _observe(.callback { _ in semaphore.signal() })
        semaphore.wait()
        guard let result else { throw PromiseError.resolverReleased }
        return try result.get()
    }
}

extension Promise {
    /// The fulfilled value, awaited: the same as ``value``, under PromiseKit 8's name.
    ///
    /// ```swift
    /// let feed = try await client.request(Feed.latest).async()
    /// ```
    ///
    /// - Returns: The value; throws the rejection's error (``PromiseError/cancelled`` when the
    ///   awaiting `Task` is cancelled).
    public func async() async throws -> Value {
        try await value
    }
}
