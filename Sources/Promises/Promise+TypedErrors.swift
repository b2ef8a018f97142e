import Dispatch

extension Promise {
    /// Recovers from errors of type `E` only; every other error passes through untouched
    /// (PromiseKit's `recover(only:)`).
    ///
    /// ```swift
    /// client.request(Feed.latest)
    ///     .recover(only: NetworkError.self) { error in
    ///         guard error.statusCode == 404 else { throw error }
    ///         return .value(Feed.empty)
    ///     }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The error type to recover from.
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - policy: Whether a cancellation of type `E` reaches `body`. Default: ``CatchPolicy/allErrors``.
    ///   - body: Returns a replacement promise, or throws to keep the promise rejected.
    /// - Returns: A promise with this one's value, or the replacement's outcome.
    public func recover<E: Error>(
        only type: E.Type,
        on queue: DispatchQueue = .promises,
        policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (E) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(on: queue) { error in
            guard let typed = Self._match(error, E.self, policy) else { throw error }
            return try body(typed)
        }
    }

    /// Recovers from one particular error value only, for example
    /// ``PromiseError/timedOut``; every other error passes through untouched.
    ///
    /// ```swift
    /// loadProfile()
    ///     .timeout(seconds: 2)
    ///     .recover(only: PromiseError.timedOut) { _ in .value(Profile.placeholder) }
    /// ```
    ///
    /// - Parameters:
    ///   - error: The error to recover from, compared with `==`.
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Receives the error; returns a replacement promise, or throws.
    /// - Returns: A promise with this one's value, or the replacement's outcome.
    public func recover<E: Error & Equatable>(
        only error: E,
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (E) throws -> Promise<Value>
    ) -> Promise<Value> {
        recover(on: queue) { received in
            guard let typed = received as? E, typed == error else { throw received }
            return try body(typed)
        }
    }

    /// Handles errors of type `E` only; any other error is passed on to the next `catch`
    /// (PromiseKit's cascading `catch(only:)`).
    ///
    /// ```swift
    /// client.request(Users.me)
    ///     .done { show($0) }
    ///     .catch(only: NetworkError.self) { error in showBanner(error.localizedDescription) }
    ///     .catch { error in log(error) }   // everything that is not a NetworkError
    /// ```
    ///
    /// - Parameters:
    ///   - type: The error type to handle.
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - policy: Whether a cancellation of type `E` reaches `body`. Default: ``CatchPolicy/allErrors``.
    ///   - body: Sees the error.
    /// - Returns: A promise fulfilled when this one fulfils or `body` ran, and rejected with
    ///   any error `body` did not take, for the next `catch`.
    @discardableResult
    public func `catch`<E: Error>(
        only type: E.Type,
        on queue: DispatchQueue = .promises,
        policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (E) -> Void
    ) -> Promise<Void> {
        _catch(on: queue) { error in
            guard let typed = Self._match(error, E.self, policy) else { return false }
            body(typed)
            return true
        }
    }

    /// Handles one particular error value only; any other error is passed on to the next `catch`.
    ///
    /// ```swift
    /// sync().catch(only: PromiseError.timedOut) { _ in retryLater() }.catch { error in log(error) }
    /// ```
    ///
    /// - Parameters:
    ///   - error: The error to handle, compared with `==`.
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Receives the error.
    /// - Returns: A promise fulfilled when this one fulfils or `body` ran, and rejected with
    ///   any other error, for the next `catch`.
    @discardableResult
    public func `catch`<E: Error & Equatable>(
        only error: E,
        on queue: DispatchQueue = .promises,
        _ body: @escaping @Sendable (E) -> Void
    ) -> Promise<Void> {
        _catch(on: queue) { received in
            guard let typed = received as? E, typed == error else { return false }
            body(typed)
            return true
        }
    }

    /// `error` as an `E`, unless it is not one or `policy` keeps cancellations away.
    static func _match<E: Error>(_ error: any Error, _: E.Type, _ policy: CatchPolicy) -> E? {
        guard let typed = error as? E, policy == .allErrors || !isCancellation(error) else { return nil }
        return typed
    }

    /// A `Promise<Void>` that fulfils when this promise does or when `handle` (run on `queue`)
    /// takes the error, and rejects with any error `handle` declines.
    func _catch(on queue: DispatchQueue, _ handle: @escaping @Sendable (any Error) -> Bool) -> Promise<Void> {
        let end = Promise<Void>(upstream: self)
        _observe(.callback { result in
            queue.async {
                switch result {
                case .success:
                    end._resolve(.success(()))
                case .failure(let error):
                    end._resolve(handle(error) ? .success(()) : .failure(error))
                }
            }
        })
        return end
    }
}

extension Promise where Value == Void {
    /// Runs `body` once the chain ended, however it ended: the end of a chain of typed `catch`es
    /// (PromiseKit's `CascadingFinalizer.finally`). It is ``ensure(on:_:)-(DispatchQueue,_)`` under the name a chain
    /// of `catch`es ends with, on any `Promise<Void>`: an error that no `catch` took reaches only
    /// the promise it returns, which a chain's end usually ignores.
    ///
    /// ```swift
    /// spinner.start()
    /// client.request(Users.me)
    ///     .done { show($0) }
    ///     .catch(only: NetworkError.self) { error in showBanner(error.localizedDescription) }
    ///     .finally { spinner.stop() }
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Clean-up work.
    /// - Returns: A promise settled like this one after `body` ran, for callers that wait on it.
    @discardableResult
    public func finally(on queue: DispatchQueue = .promises, _ body: @escaping @Sendable () -> Void) -> Promise<Void> {
        ensure(on: queue, body)
    }
}
