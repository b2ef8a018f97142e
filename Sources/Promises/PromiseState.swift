import Dispatch

/// Something that is waiting for a promise's result.
@usableFromInline
enum PromiseObserver<Value: Sendable>: Sendable {
    /// Settle another promise of the same type with the result. Pipes are followed in a loop,
    /// not by recursion, so arbitrarily long `then` chains settle without growing the stack.
    case pipe(Promise<Value>)
    /// Call a closure with the result, on the settling thread. Operators use it to hop
    /// to the handler's queue; it must never run user code directly.
    case callback(@Sendable (Result<Value, any Error>) -> Void)
    /// Report the result to slot `index` of a `when(fulfilled:)` (no closure allocation per input).
    case collect(WhenCollector<Value>, Int)
}

/// The observers of a pending promise: none and one need no array allocation.
@usableFromInline
enum PromiseObservers<Value: Sendable>: Sendable {
    case none
    case one(PromiseObserver<Value>)
    case many([PromiseObserver<Value>])

    @inlinable
    var isEmpty: Bool {
        if case .none = self { return true }
        return false
    }

    @inlinable
    mutating func append(_ observer: PromiseObserver<Value>) {
        switch self {
        case .none: self = .one(observer)
        case .one(let first): self = .many([first, observer])
        case .many(var list):
            self = .none
            list.append(observer)
            self = .many(list)
        }
    }
}

/// Something a cancellation can travel to: the promise a derived promise was made from.
@usableFromInline
protocol PromiseUpstream: AnyObject, Sendable {
    /// Settles the receiver with `error` if it is pending, runs its cancel hooks, appends the
    /// notification of its observers to `deliveries` (the caller runs them once every hook up
    /// the chain ran), and returns the next promise upstream so that the caller can continue
    /// in a loop.
    func _abort(
        with error: PromiseError, deferring deliveries: inout [@Sendable () -> Void]
    ) -> (any PromiseUpstream)?
}

/// Everything mutable about one promise except its value; it is read and written only while
/// the promise's lock is held.
///
/// Every stored property has the same size whatever `Value` is (closures, references, an
/// error), so the type's layout is fixed: releasing a promise destroys it without asking the
/// runtime for generic metadata. The fulfilled value itself lives in ``PromiseValueSlot``.
@usableFromInline
struct PromiseCore<Value: Sendable>: Sendable {
    @usableFromInline var observers: PromiseObservers<Value> = .none
    /// The error of a rejected promise.
    @usableFromInline var error: (any Error)?
    /// The promise this one was derived from; `cancel()` travels there.
    @usableFromInline var upstream: (any PromiseUpstream)?
    /// Producer hooks registered with `Resolver.onCancel`.
    @usableFromInline var cancelHooks: [@Sendable () -> Void] = []
    /// The value of a fulfilled promise whose `Value` does not fit ``PromiseValueSlot``.
    @usableFromInline var boxedValue: (any AnyObject & Sendable)?
    /// `true` once settled; a settled promise never changes.
    @usableFromInline var isSettled = false
    /// `true` from the moment a promise with observers settles until the settling thread has
    /// notified all of them. Observers attached meanwhile are queued behind the others (and
    /// notified by that thread), so handlers sharing a serial queue run in attachment order.
    @usableFromInline var isDelivering = false
    /// `true` while the promise's only observer is a `map`/`done`/`get` step (see `StepBatch`):
    /// only then may the step that settles this promise run that observer's step right after it.
    @usableFromInline var soleObserverIsStep = false

    @inlinable init() {}

    /// Marks the promise settled and hands back the observers to notify outside the lock,
    /// with everything else that could keep other objects alive (the upstream link, the cancel
    /// hooks), so that a settled promise holds nothing but its result.
    ///
    /// The caller releases the leftovers only after unlocking: the last reference to an object
    /// whose `deinit` reads this promise (its own `Resolver`, held by a hook) may be among them,
    /// and that read takes the lock.
    ///
    /// When the returned observers are not empty, the caller must notify them and then call
    /// ``takeLateObservers()`` until it returns `nil`.
    ///
    /// The leftovers go out through an `inout` parameter rather than in a tuple with the
    /// observers: a tuple with a generic element costs a run-time metadata lookup (about 1 000
    /// instructions) in unspecialised code such as Courier's request path.
    @inlinable
    mutating func settle(leftovers: inout PromiseLeftovers) -> PromiseObservers<Value> {
        isSettled = true
        var taken = PromiseObservers<Value>.none
        swap(&taken, &observers)
        swap(&leftovers.upstream, &upstream)
        if !cancelHooks.isEmpty { swap(&leftovers.cancelHooks, &cancelHooks) }
        isDelivering = !taken.isEmpty
        return taken
    }

    /// For the thread delivering a settled promise's result: the observers attached since it
    /// took the last batch, or `nil` (ending the delivery) when there are none.
    @inlinable
    mutating func takeLateObservers() -> PromiseObservers<Value>? {
        guard !observers.isEmpty else {
            isDelivering = false
            return nil
        }
        var taken = PromiseObservers<Value>.none
        swap(&taken, &observers)
        return taken
    }
}

/// What settling removes from a promise's state besides its observers; see
/// `PromiseCore.settle(leftovers:)`. Dropped by the settling thread once the lock is released.
@usableFromInline
struct PromiseLeftovers: Sendable {
    @usableFromInline var upstream: (any PromiseUpstream)?
    @usableFromInline var cancelHooks: [@Sendable () -> Void] = []

    @inlinable init() {}
}

/// Room for a fulfilled value inside the promise object: values of up to two words (`Int`,
/// `String`, `Data`, arrays, class references, …) are stored here in place, larger ones in a
/// ``PromiseValueBox``. Either way the promise needs no `Optional<Value>` stored property,
/// whose destruction in a generic `deinit` costs a run-time metadata lookup.
@usableFromInline
struct PromiseValueSlot: Sendable {
    @usableFromInline var word0: UInt = 0
    @usableFromInline var word1: UInt = 0

    @inlinable init() {}

    /// Whether a `Value` fits in place (decided at compile time once specialised).
    @inlinable
    static func fits<Value>(_: Value.Type) -> Bool {
        MemoryLayout<Value>.size <= MemoryLayout<PromiseValueSlot>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<PromiseValueSlot>.alignment
    }
}

/// Holds a fulfilled value too large for ``PromiseValueSlot``.
@usableFromInline
final class PromiseValueBox<Value: Sendable>: Sendable {
    @usableFromInline let value: Value
    @inlinable init(_ value: Value) { self.value = value }
}
