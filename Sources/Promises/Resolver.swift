import Foundation

/// The write side of a ``Promise``: settles it once. A second settle is ignored.
///
/// Keep a reference to the resolver for as long as the work runs. When the last reference
/// goes away while the promise is still pending, the promise rejects with
/// ``PromiseError/resolverReleased`` so that no chain waits forever.
///
/// `Resolver` is `@unchecked Sendable` because its only stored property is a constant
/// reference to a promise, which is itself thread-safe.
public final class Resolver<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let promise: Promise<Value>

    @usableFromInline
    init(_ promise: Promise<Value>) {
        self.promise = promise
    }

    deinit {
        // Checked first so that the common case (already settled) boxes no error; the rejection
        // lives in a function of its own so that this `deinit` needs no `Result` metadata.
        if promise.isPending { promise._rejectAbandoned() }
    }

    /// Fulfils the promise with `value`, unless it has already settled.
    @inlinable
    public func fulfill(_ value: Value) {
        promise._resolve(.success(value))
    }

    /// Rejects the promise with `error`, unless it has already settled.
    @inlinable
    public func reject(_ error: any Error) {
        promise._resolve(.failure(error))
    }

    /// Settles the promise with `result`, unless it has already settled.
    @inlinable
    public func resolve(_ result: Result<Value, any Error>) {
        promise._resolve(result)
    }

    /// Settles the promise from a `Result` whose error type is fixed, such as the
    /// `Result<User, NetworkError>` that a Courier completion handler receives.
    ///
    /// ```swift
    /// let user = Promise<User> { seal in
    ///     client.request(Users.me) { result in seal.resolve(result) }   // Result<User, NetworkError>
    /// }
    /// ```
    ///
    /// - Parameter result: The outcome; its error rejects the promise unchanged.
    @inlinable
    public func resolve<Failure: Error>(_ result: Result<Value, Failure>) {
        switch result {
        case .success(let value): promise._resolve(.success(value))
        case .failure(let error): promise._resolve(.failure(error))
        }
    }

    /// Settles the promise from a completion handler's `(value, error)` pair: an error
    /// rejects, otherwise a value fulfils; neither rejects with ``PromiseError/resolverReleased``.
    public func resolve(_ value: Value?, _ error: (any Error)?) {
        if let error {
            reject(error)
        } else if let value {
            fulfill(value)
        } else {
            reject(PromiseError.resolverReleased)
        }
    }

    /// `true` while the promise has not settled; producers may poll it to stop early.
    public var isPending: Bool { promise.isPending }

    /// Registers the producer's cancellation hook: `body` runs once, on the thread that calls
    /// ``Promise/cancel()``, if the promise is cancelled while pending. If it was already
    /// cancelled, `body` runs at once; if it settled otherwise, `body` never runs. A `cancel()`
    /// that `body` makes of another promise takes effect after the hooks of the chain being
    /// cancelled have run (in the same loop, before the outer `cancel()` returns), and
    /// observers are notified after that: never block inside `body` waiting for a promise.
    ///
    /// ```swift
    /// Promise<Data> { seal in
    ///     let task = session.dataTask(with: url) { data, _, error in seal.resolve(data, error) }
    ///     seal.onCancel { task.cancel() }
    ///     task.resume()
    /// }
    /// ```
    ///
    /// The promise keeps `body` until it settles. A `body` that captures this resolver (or work
    /// whose closure does) therefore keeps the resolver alive too: if that work is then dropped
    /// without running, the promise is not rejected with ``PromiseError/resolverReleased`` and
    /// stays pending. Capture what you cancel (the task), not the resolver.
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        promise._addCancelHook(body)
    }
}

extension Resolver where Value == Void {
    /// Fulfils a `Promise<Void>`.
    @inlinable
    public func fulfill() {
        promise._resolve(.success(()))
    }

    /// Settles a `Promise<Void>` from a completion handler that reports only an error: `nil`
    /// fulfils, anything else rejects (PromiseKit's `resolve(_:)` on `Resolver<Void>`).
    ///
    /// ```swift
    /// let saved = Promise<Void> { seal in
    ///     store.save(record, completion: seal.resolve)   // completion: (Error?) -> Void
    /// }
    /// ```
    ///
    /// - Parameter error: The handler's error, or `nil` for success.
    public func resolve(_ error: (any Error)?) {
        if let error { reject(error) } else { fulfill() }
    }
}
