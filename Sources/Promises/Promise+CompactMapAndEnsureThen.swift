import Dispatch

extension Promise {
    /// Transforms the value like ``map(on:_:)-(DispatchQueue,_)``, rejecting when the transform returns `nil`.
    ///
    /// ```swift
    /// client.request(Users.me)
    ///     .compactMap { $0["id"].int }          // rejects with PromiseError.compactMapReturnedNil
    ///     .then { id in client.request(Users.detail(id: id)) }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Returns the new value, or `nil` to reject with
    ///     ``PromiseError/compactMapReturnedNil``; a throw rejects with the thrown error.
    /// - Returns: A promise of the non-`nil` result.
    public func compactMap<U: Sendable>(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> U?
    ) -> Promise<U> {
        map(on: queue) { value in
            guard let transformed = try body(value) else { throw PromiseError.compactMapReturnedNil }
            return transformed
        }
    }

    /// Like ``ensure(on:_:)-(DispatchQueue,_)``, for clean-up that is itself asynchronous: `body` runs once this
    /// promise settles, and the returned promise settles with this promise's result only after
    /// the promise `body` returned has settled (its own outcome is ignored).
    ///
    /// ```swift
    /// client.request(Upload.start(file))
    ///     .ensureThen { client.request(Upload.releaseLock).asVoid() }
    ///     .done { print("uploaded", $0) }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Starts the clean-up and returns a promise of its end.
    /// - Returns: A promise with this promise's value or error.
    public func ensureThen(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable () -> Promise<Void>
    ) -> Promise<Value> {
        let child = Promise<Value>(upstream: self)
        _observe(.callback { result in
            queue.async {
                // As with `ensure`, clean-up runs even when the chain was cancelled. The observer
                // keeps the clean-up's promise alive until it settles: nothing else may (a bare
                // `after(…)` has no resolver, and its timer holds it weakly).
                let cleanUp = body()
                cleanUp._observe(.callback { _ in
                    withExtendedLifetime(cleanUp) {}
                    child._resolve(result)
                })
            }
        })
        return child
    }
}
