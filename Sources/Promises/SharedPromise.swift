import Dispatch

extension Promise {
    /// Shares this promise between consumers that may each stop waiting on their own.
    ///
    /// ``cancel()`` travels upstream, so when two screens chain off one request and one of them
    /// cancels its chain, the request is cancelled for both. Hand each consumer a promise of its
    /// own from the shared one instead: cancelling it settles only that consumer, and the work
    /// upstream is cancelled once *every* consumer handed out so far has cancelled (the way
    /// Combine's `share()` stops its upstream when the last subscriber leaves).
    ///
    /// ```swift
    /// let profile = client.request(GetProfile()).shared()
    ///
    /// header.show(profile.makePromise())          // each caller gets its own promise
    /// let settings = profile.makePromise()
    /// settings.cancel()                       // the header still gets the profile
    /// ```
    ///
    /// To stop the work for everybody, cancel this promise itself or call
    /// ``SharedPromise/cancel()``.
    ///
    /// - Returns: The shared promise; each ``SharedPromise/makePromise()`` call makes a consumer.
    public func shared() -> SharedPromise<Value> {
        SharedPromise(self)
    }
}

/// A promise that several consumers wait for, each through a promise of its own (see
/// ``Promise/shared()``).
///
/// Each consumer's promise settles with the shared result, without a queue hop of its own (its
/// handlers run on their `on:` queue as usual). Cancelling a consumer's promise, or letting a
/// ``Promise/timeout(seconds:)`` on it fire, settles that consumer alone, and the shared promise
/// lets go of it; when the last consumer still waiting cancels, the shared promise is cancelled
/// too, and the cancellation travels on upstream. A consumer made after that (or after the shared
/// promise settled) gets its result at once. So make the consumers that must not miss the result
/// before others may cancel: a count of waiting consumers that drops to zero, even for a moment,
/// stops the work.
///
/// - A consumer is cancelled by anything that cancels its promise: ``Promise/cancel()`` on it or
///   on a chain built from it, a ``Promise/timeout(seconds:)`` (the time-out's own promise rejects
///   with ``PromiseError/timedOut``, the consumer with ``PromiseError/cancelled``), or a `when`,
///   `race` or `attempt` it was given to that cancels its inputs.
/// - A consumer that is dropped without being cancelled still counts as waiting (promises do
///   not cancel when released), and the shared promise keeps it until the work settles: the
///   others cancelling then never stop the work.
///
/// `@unchecked Sendable`: both stored properties are constants, a promise (itself thread-safe)
/// and a lock-box.
public final class SharedPromise<Value: Sendable>: @unchecked Sendable {
    /// The consumers still waiting, by number, until the shared promise settles.
    private struct Consumers: Sendable {
        var waiting: [Int: Promise<Value>] = [:]
        var nextID = 0
        /// The shared promise settled: consumers are piped from it instead of waiting here.
        var isSettled = false
    }

    private let source: Promise<Value>
    private let consumers = Locked(Consumers())

    init(_ source: Promise<Value>) {
        self.source = source
        // Until the source settles, it keeps this object (and so the consumers still waiting).
        source._observe(.callback { [self] result in settle(with: result) })
    }

    /// A new consumer's promise: it settles as the shared promise does, and cancelling it
    /// leaves the other consumers alone.
    ///
    /// - Returns: A promise of the shared result for one consumer.
    public func makePromise() -> Promise<Value> {
        let id = consumers.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let consumer = Promise<Value>(upstream: ConsumerLink(self, id: id))
        let waits = consumers.withLock { state -> Bool in
            guard !state.isSettled else { return false }
            state.waiting[id] = consumer
            return true
        }
        if !waits { source._observe(.pipe(consumer)) }
        return consumer
    }

    /// Whether the shared promise has not settled yet.
    public var isPending: Bool { source.isPending }

    /// Cancels the shared promise, and with it every consumer and the work upstream, whatever
    /// the consumers still waiting; see ``Promise/cancel()``.
    public func cancel() {
        source.cancel()
    }

    /// The source settled: every consumer still waiting settles with its result, through the
    /// thread's trampoline (shared promises nested in one another settle in constant stack).
    private func settle(with result: Result<Value, any Error>) {
        let waiting = consumers.withLock { state -> [Promise<Value>] in
            state.isSettled = true
            defer { state.waiting = [:] }
            return state.waiting.sorted { $0.key < $1.key }.map(\.value)
        }
        for consumer in waiting { consumer._resolveNested(result) }
    }

    /// Consumer `id` was cancelled: it is let go, and the source is next in the cancellation loop
    /// when it was the last one waiting.
    fileprivate func consumerCancelled(_ id: Int) -> (any PromiseUpstream)? {
        let last = consumers.withLock { state -> Bool in
            guard state.waiting.removeValue(forKey: id) != nil else { return false }
            return state.waiting.isEmpty
        }
        return last ? source : nil
    }
}

/// A consumer's way upstream: its cancellation reaches the shared promise with its number (a
/// consumer piped from a shared promise that had settled is never waiting, so its number is
/// unknown there and counts nothing).
private final class ConsumerLink<Value: Sendable>: PromiseUpstream, Sendable {
    let shared: SharedPromise<Value>
    let id: Int

    init(_ shared: SharedPromise<Value>, id: Int) {
        self.shared = shared
        self.id = id
    }

    func _abort(with error: PromiseError, deferring deliveries: inout [@Sendable () -> Void]) -> (any PromiseUpstream)? {
        shared.consumerCancelled(id)
    }
}
