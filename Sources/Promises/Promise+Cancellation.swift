import Foundation

extension Promise: PromiseUpstream {
    /// Cancels the promise: if it is pending it rejects with ``PromiseError/cancelled``,
    /// its producer's ``Resolver/onCancel(_:)`` hooks run, and the cancellation travels
    /// upstream through `then`, `map`, `done`, `recover`, `ensure`, `timeout`, … to the
    /// promise the chain started from, so the underlying work (a network request, a timer)
    /// stops. Cancelling a settled promise does nothing.
    ///
    /// A promise shared by several chains is cancelled for all of them; to let each chain stop
    /// on its own, hand them promises from ``shared()``.
    ///
    /// ```swift
    /// let request = client.request(Feed.latest).done { show($0) }
    /// request.cancel()   // the HTTP request is cancelled too
    /// ```
    public func cancel() {
        // A settled promise never changes, and its upstream link is gone: nothing to do, and no
        // cancellation loop to set up (that costs allocations).
        guard isPending else { return }
        Promise._cancelChain(from: self, with: .cancelled)
    }

    /// Aborts `start`, then each promise upstream of it, in a loop (no recursion).
    ///
    /// Every promise of the chain is settled and every `onCancel` hook has run before any
    /// observer is notified, so a handler that sees the cancellation (or the time-out) can
    /// rely on the upstream work having been told to stop.
    ///
    /// A `cancel()` made while this thread is already cancelling (from an `onCancel` hook, or a
    /// `when` cancelling its inputs) joins that loop: it takes effect once the hooks of the chain
    /// being cancelled have run, so combinators nested in one another cancel in constant stack.
    @usableFromInline
    static func _cancelChain(from start: any PromiseUpstream, with error: PromiseError) {
        Trampoline.cancel(from: start, with: error)
    }

    @usableFromInline
    func _abort(
        with error: PromiseError, deferring deliveries: inout [@Sendable () -> Void]
    ) -> (any PromiseUpstream)? {
        // The leftovers (hooks, upstream link) leave the lock whole and are taken apart after it.
        var leftovers = PromiseLeftovers()
        guard let observers = _lock.withLock({ _settle(.failure(error), leftovers: &leftovers) }) else { return nil }
        for hook in leftovers.cancelHooks { hook() }
        if !observers.isEmpty {
            deliveries.append { Promise._deliver(observers, of: self, .failure(error)) }
        }
        return leftovers.upstream
    }

    /// Adds a producer hook; see ``Resolver/onCancel(_:)``.
    @usableFromInline
    func _addCancelHook(_ hook: @escaping @Sendable () -> Void) {
        let runNow = _lock.withLock { () -> Bool in
            guard _core.isSettled else {
                _core.cancelHooks.append(hook)
                return false
            }
            if let error = _core.error { return Promises.isCancellation(error) }
            return false
        }
        if runNow { hook() }
    }
}
