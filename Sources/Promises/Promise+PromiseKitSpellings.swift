import Dispatch

// PromiseKit's spellings that Courier's Promises name differently. Each is unavailable, so code
// ported as it was fails to compile with a message that names the call to write instead of an
// unrelated complaint about closures and `Equatable`. None can be called; each body is the call
// it names, so there is no crash path even in theory.

extension Promise {
    /// PromiseKit's `recover(E.self)`: write ``recover(only:on:policy:_:)-(E.Type,_,_,_)``.
    ///
    /// - Parameters:
    ///   - type: The error type to recover from.
    ///   - queue: Where `body` would run.
    ///   - policy: Whether a cancellation would reach `body`.
    ///   - body: Returns a replacement promise.
    /// - Returns: What the call it names returns; the declaration cannot be called.
    @available(*, unavailable, renamed: "recover(only:on:policy:_:)", message: "Courier's Promises take the error type with the label only:")
    public func recover<E: Error>(
        _ type: E.Type, on queue: DispatchQueue = .promises, policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (E) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(only: type, on: queue, policy: policy, body)
    }

    /// PromiseKit's `recover(error)`: write ``recover(only:on:_:)``.
    ///
    /// - Parameters:
    ///   - error: The error to recover from.
    ///   - queue: Where `body` would run.
    ///   - body: Returns a replacement promise.
    /// - Returns: What the call it names returns; the declaration cannot be called.
    @available(*, unavailable, renamed: "recover(only:on:_:)", message: "Courier's Promises take the error with the label only:")
    public func recover<E: Error & Equatable>(
        _ error: E, on queue: DispatchQueue = .promises, _ body: @escaping @Sendable (E) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(only: error, on: queue, body)
    }

    /// PromiseKit's `catch(E.self)`: write ``catch(only:on:policy:_:)-(E.Type,_,_,_)``.
    ///
    /// - Parameters:
    ///   - type: The error type to handle.
    ///   - queue: Where `body` would run.
    ///   - policy: Whether a cancellation would reach `body`.
    ///   - body: Sees the error.
    /// - Returns: What the call it names returns; the declaration cannot be called.
    @available(*, unavailable, renamed: "catch(only:on:policy:_:)", message: "Courier's Promises take the error type with the label only:")
    @discardableResult
    public func `catch`<E: Error>(
        _ type: E.Type, on queue: DispatchQueue = .promises, policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (E) -> Void
    ) -> Promise<Void> {
        self.catch(only: type, on: queue, policy: policy, body)
    }

    /// PromiseKit's `catch(error)`: write ``catch(only:on:_:)``.
    ///
    /// - Parameters:
    ///   - error: The error to handle.
    ///   - queue: Where `body` would run.
    ///   - body: Sees the error.
    /// - Returns: What the call it names returns; the declaration cannot be called.
    @available(*, unavailable, renamed: "catch(only:on:_:)", message: "Courier's Promises take the error with the label only:")
    @discardableResult
    public func `catch`<E: Error & Equatable>(
        _ error: E, on queue: DispatchQueue = .promises, _ body: @escaping @Sendable (E) -> Void
    ) -> Promise<Void> {
        self.catch(only: error, on: queue, body)
    }
}

/// PromiseKit's `hang(promise)`: write `try promise.wait()` (for scripts and tests; in async
/// code, `try await promise.value`).
///
/// - Parameter promise: The promise to wait for.
/// - Returns: What the call it names returns; the declaration cannot be called.
@available(*, unavailable, message: "write try promise.wait() (scripts and tests), or try await promise.value")
public func hang<T>(_ promise: Promise<T>) throws -> T {
    try promise.wait()
}
