import Dispatch

extension Promise {
    /// Chains an asynchronous step: when this promise fulfils, `body` runs on `queue` and the
    /// promise it returns decides the result.
    ///
    /// ```swift
    /// client.request(Auth.login(user)).then { session in
    ///     client.request(Profile.me(session.id))
    /// }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Returns the next promise; a throw rejects the returned promise.
    /// - Returns: A promise settled like the one `body` returns, or rejected with this
    ///   promise's error (then `body` does not run).
    @inlinable
    public func then<U>(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Promise<U>
    ) -> Promise<U> {
        _step(on: queue, .then(body))
    }

    /// Transforms the value: when this promise fulfils, `body` runs on `queue`.
    ///
    /// ```swift
    /// let count: Promise<Int> = client.request(Feed.latest).map { $0["items"].array?.count ?? 0 }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Returns the new value; a throw rejects the returned promise.
    @inlinable
    public func map<U>(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> U
    ) -> Promise<U> {
        _step(on: queue, .map(body))
    }

    /// Consumes the value at the end of a chain; follow it with `catch`.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Uses the value; a throw rejects the returned promise.
    /// - Returns: A `Promise<Void>` fulfilled once `body` returned.
    @inlinable
    public func done(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Void> {
        _step(on: queue, .map(body))
    }

    /// Runs a side effect with the value and passes the value on unchanged.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: The side effect; a throw rejects the returned promise.
    @inlinable
    public func get(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Value) throws -> Void
    ) -> Promise<Value> {
        _step(on: queue, .map { value in
            try body(value)
            return value
        })
    }

    /// Looks at the result, whatever it is, and passes it on unchanged (for logging).
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Sees the result.
    @inlinable
    public func tap(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
    ) -> Promise<Value> {
        let child = Promise<Value>(upstream: self)
        _observe(.callback { result in
            queue.async {
                guard child.isPending else { return }
                body(result)
                child._resolve(result)
            }
        })
        return child
    }

    /// Turns a rejection into a new attempt: when this promise rejects, `body` runs on `queue`
    /// and the promise it returns decides the result. A fulfilment passes through.
    ///
    /// ```swift
    /// client.request(Feed.latest).recover { error in
    ///     guard case NetworkError.transport = error else { throw error }
    ///     return cache.load()
    /// }
    /// ```
    ///
    /// A fallback that must not hide a cancellation (a logout's `cancelAll()`, a screen that
    /// went away) passes `policy: .allErrorsExceptCancellation`, PromiseKit's default: the
    /// cancellation then travels on to `catch` instead of the fallback's value.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - policy: Whether cancellations reach `body`. Default: ``CatchPolicy/allErrors``, as for
    ///     `catch`.
    ///   - body: Returns a replacement promise, or rethrows to keep the promise rejected.
    @inlinable
    public func recover(
        on queue: DispatchQueue = .promises,
        policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (any Error) throws -> Promise<Value>
    ) -> Promise<Value> {
        let child = Promise<Value>(upstream: self)
        _observe(.callback { result in
            queue.async {
                guard child.isPending else { return }
                switch result {
                case .success:
                    child._resolve(result)
                case .failure(let error) where policy == .allErrorsExceptCancellation && isCancellation(error):
                    child._resolve(result)
                case .failure(let error):
                    do { child._adopt(try body(error)) } catch { child._resolve(.failure(error)) }
                }
            }
        })
        return child
    }

    /// Runs `body` however the promise settles, then passes the result on unchanged.
    ///
    /// `body` runs even when the chain is cancelled (also when the promise `ensure` returns,
    /// or one after it, is the one cancelled): it runs once this promise has settled.
    ///
    /// ```swift
    /// spinner.start()
    /// client.request(Feed.latest).ensure { spinner.stop() }.done { show($0) }.catch { show($0) }
    /// ```
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Clean-up work.
    @inlinable
    public func ensure(
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable () -> Void
    ) -> Promise<Value> {
        let child = Promise<Value>(upstream: self)
        _observe(.callback { result in
            queue.async {
                body()  // unlike `tap`, no "child still pending?" check: clean-up always runs
                child._resolve(result)
            }
        })
        return child
    }

    /// Forgets the value: a `Promise<Void>` settled when this one is.
    @inlinable
    public func asVoid() -> Promise<Void> {
        map(on: .promises) { _ in () }
    }
}
