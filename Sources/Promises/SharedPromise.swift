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

// @unchecked: `source` is a thread-safe promise and `waiting` a lock-box; neither is reassigned.
/// A promise that several consumers wait for, each through a promise of its own (see
/// ``Promise/shared()``).
///
/// Each consumer's promise settles with the shared result, without a queue hop of its own (its
/// handlers run on their `on:` queue as usual). Cancelling a consumer's promise, or letting a
/// ``Promise/timeout(seconds:)`` on it fire, settles that consumer alone; when the last consumer
/// still waiting cancels, the shared promise is cancelled too, and the cancellation travels on
/// upstream. A consumer made after that (or after the shared promise settled) gets its result
/// at once. So make the consumers that must not miss the result before others may cancel: a
/// count of waiting consumers that drops to zero, even for a moment, stops the work.
///
/// - A consumer is cancelled by anything that cancels its promise: ``Promise/cancel()`` on it or
///   on a chain built from it, a ``Promise/timeout(seconds:)`` (the time-out's own promise rejects
///   with ``PromiseError/timedOut``, the consumer with ``PromiseError/cancelled``), or a `when`,
///   `race` or `attempt` it was given to that cancels its inputs.
/// - A consumer that is dropped without being cancelled still counts as waiting (promises do
///   not cancel when released): the others cancelling then never stop the work.
/// - Until the shared promise settles, it keeps each consumer made from it, cancelled ones too
///   (a settled promise, about 130 bytes each): make consumers for the callers that need one,
///   not in a loop that runs for as long as the work does.
///
/// `@unchecked Sendable`: both stored properties are constants, a promise (itself thread-safe)
/// and a lock-box.
public final class SharedPromise<Value: Sendable>: @unchecked Sendable {
    private let source: Promise<Value>
    /// How many consumers have not settled by cancellation yet (fulfilled and rejected ones
    /// included: they never cancel, so they never count down).
    private let waiting = Locked(0)

    init(_ source: Promise<Value>) {
        self.source = source
    }

    /// A new consumer's promise: it settles as the shared promise does, and cancelling it
    /// leaves the other consumers alone.
    ///
    /// - Returns: A promise of the shared result for one consumer.
    public func makePromise() -> Promise<Value> {
        let consumer = Promise<Value>(upstream: self)
        waiting.withLock { $0 += 1 }
        source._observe(.pipe(consumer))
        return consumer
    }

    /// Whether the shared promise has not settled yet.
    public var isPending: Bool { source.isPending }

    /// Cancels the shared promise, and with it every consumer and the work upstream, whatever
    /// the consumers still waiting; see ``Promise/cancel()``.
    public func cancel() {
        source.cancel()
    }
}

extension SharedPromise: PromiseUpstream {
    /// A consumer was cancelled (or timed out): the shared promise is next in the cancellation
    /// loop only when it was the last consumer still waiting.
    @usableFromInline
    func _abort(with error: PromiseError, deferring deliveries: inout [@Sendable () -> Void]) -> (any PromiseUpstream)? {
        let last = waiting.withLock { count -> Bool in
            count -= 1
            return count == 0
        }
        return last ? source : nil
    }
}
