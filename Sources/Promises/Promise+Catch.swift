import Dispatch

/// Which errors a `catch` handler sees.
public enum CatchPolicy: Sendable {
    /// Every rejection, cancellations included (the default).
    case allErrors
    /// Every rejection except cancellations (see ``isCancellation(_:)``); a cancelled chain ends quietly.
    case allErrorsExceptCancellation
}

/// What `catch` returns: the end of a chain. Add ``finally(on:_:)-(DispatchQueue,_)`` for clean-up, or
/// ``cancel()`` to cancel the whole chain.
///
/// ```swift
/// client.request(Feed.latest)
///     .done { show($0) }
///     .catch { show(error: $0) }
///     .finally { spinner.stop() }
/// ```
public struct PromiseFinalizer: Sendable {
    /// Fulfilled once the `catch` handler ran (or was skipped because the chain fulfilled).
    @usableFromInline let promise: Promise<Void>
    /// The promise `catch` was attached to; ``cancel()`` starts there, so that the `catch`
    /// handler sees the cancellation before `finally` runs.
    @usableFromInline let chain: any PromiseUpstream

    @usableFromInline init(_ promise: Promise<Void>, chain: any PromiseUpstream) {
        self.promise = promise
        self.chain = chain
    }

    /// Runs `body` after the chain ended, whether it fulfilled or the `catch` handler ran.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - body: Clean-up work.
    /// - Returns: A promise fulfilled after `body` ran, for callers that want to wait on it.
    @discardableResult
    public func finally(on queue: DispatchQueue = .promises, _ body: @escaping @Sendable () -> Void) -> Promise<Void> {
        promise.ensure(on: queue, body)
    }

    /// Cancels the chain this finalizer ends. The `catch` handler then sees
    /// ``PromiseError/cancelled`` (unless its policy skips cancellations), and `finally` runs after it.
    public func cancel() {
        Promise<Void>._cancelChain(from: chain, with: .cancelled)
    }
}

extension Promise {
    /// Handles a rejection at the end of a chain.
    ///
    /// - Parameters:
    ///   - queue: Where `body` runs. Default: ``Dispatch/DispatchQueue/promises``.
    ///   - policy: Whether cancellations reach `body`. Default: ``CatchPolicy/allErrors``.
    ///   - body: Sees the error.
    /// - Returns: A ``PromiseFinalizer`` for `finally` or `cancel`.
    @inlinable
    @discardableResult
    public func `catch`(
        on queue: DispatchQueue = .promises,
        policy: CatchPolicy = .allErrors,
        _ body: @escaping @Sendable (any Error) -> Void
    ) -> PromiseFinalizer {
        let end = Promise<Void>(upstream: self)
        _observe(.callback { result in
            queue.async {
                if case .failure(let error) = result,
                    policy == .allErrors || !isCancellation(error)
                {
                    body(error)
                }
                end._resolve(.success(()))
            }
        })
        return PromiseFinalizer(end, chain: self)
    }

    /// Ends a chain whose errors you deliberately ignore (PromiseKit's `cauterize`): a
    /// rejection, cancellation included, is dropped without a trace.
    ///
    /// ```swift
    /// client.request(Analytics.ping).asVoid().cauterize()
    /// ```
    ///
    /// - Returns: A ``PromiseFinalizer`` for `finally` or `cancel`.
    @discardableResult
    public func cauterize() -> PromiseFinalizer {
        self.catch { _ in }
    }
}
