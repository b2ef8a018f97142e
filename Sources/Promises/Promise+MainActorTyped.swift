import Dispatch

extension Promise {
    /// ``recover(only:on:policy:_:)-(_,DispatchQueue,_,_)`` with a handler isolated to the main actor (see
    /// ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - type: The error type `body` handles; other errors pass through.
    ///   - target: `.mainActor`.
    ///   - policy: Whether cancellations reach `body`. Default: ``CatchPolicy/allErrors``.
    ///   - body: Returns a replacement promise, or rethrows to keep the promise rejected.
    public func recover<E: Error>(
        only type: E.Type, on target: MainActorTarget, policy: CatchPolicy = .allErrors,
        _ body: @escaping @MainActor (E) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(only: type, on: .main, policy: policy) { error in try MainActor.assumeIsolated { try body(error) } }
    }

    /// ``recover(only:on:_:)-(_,DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - error: The one error `body` handles; others pass through.
    ///   - target: `.mainActor`.
    ///   - body: Returns a replacement promise, or rethrows to keep the promise rejected.
    public func recover<E: Error & Equatable>(
        only error: E, on target: MainActorTarget, _ body: @escaping @MainActor (E) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(only: error, on: .main) { matched in try MainActor.assumeIsolated { try body(matched) } }
    }

    /// ``catch(only:on:policy:_:)-(_,DispatchQueue,_,_)`` with a handler isolated to the main actor (see
    /// ``MainActorTarget``).
    ///
    /// ```swift
    /// client.request(Feed.latest)
    ///     .done(on: .mainActor) { feed in self.items = feed.items }
    ///     .catch(only: NetworkError.self, on: .mainActor) { error in self.banner = error.localizedDescription }
    ///     .finally(on: .mainActor) { self.isLoading = false }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The error type `body` handles; other errors reach the returned promise.
    ///   - target: `.mainActor`.
    ///   - policy: Whether cancellations reach `body`. Default: ``CatchPolicy/allErrors``.
    ///   - body: Sees the error.
    /// - Returns: A promise fulfilled once `body` ran, or rejected with an error it does not handle.
    @discardableResult
    public func `catch`<E: Error>(
        only type: E.Type, on target: MainActorTarget, policy: CatchPolicy = .allErrors,
        _ body: @escaping @MainActor (E) -> Void
    ) -> Promise<Void> {
        self.catch(only: type, on: .main, policy: policy) { error in MainActor.assumeIsolated { body(error) } }
    }

    /// ``catch(only:on:_:)-(_,DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - error: The one error `body` handles; others reach the returned promise.
    ///   - target: `.mainActor`.
    ///   - body: Sees the error.
    /// - Returns: A promise fulfilled once `body` ran, or rejected with an error it does not handle.
    @discardableResult
    public func `catch`<E: Error & Equatable>(
        only error: E, on target: MainActorTarget, _ body: @escaping @MainActor (E) -> Void
    ) -> Promise<Void> {
        self.catch(only: error, on: .main) { matched in MainActor.assumeIsolated { body(matched) } }
    }

    /// ``compactMap(on:_:)-(DispatchQueue,_)`` with a handler isolated to the main actor (see ``MainActorTarget``).
    ///
    /// - Parameters:
    ///   - target: `.mainActor`.
    ///   - body: Returns the new value, or `nil` to reject with ``PromiseError/compactMapReturnedNil``.
    public func compactMap<U: Sendable>(
        on target: MainActorTarget, _ body: @escaping @MainActor (Value) throws -> U?
    ) -> Promise<U> {
        compactMap(on: .main) { value in try MainActor.assumeIsolated { try body(value) } }
    }
}
