import Dispatch
import Foundation

/// A value that will be available later, or an error explaining why it will not.
///
/// A promise starts pending and settles once: fulfilled with a value or rejected with an
/// error. Attach handlers with `then`, `map`, `done`, `catch` and friends; each returns a
/// new promise, so work reads as a chain:
///
/// ```swift
/// firstly {
///     client.request(Users.list)
/// }.map { users in
///     users[0]["id"].int ?? 0
/// }.then { id in
///     client.request(Users.detail(id: id))
/// }.done { user in
///     print(user["name"].string ?? "?")
/// }.catch { error in
///     print("failed:", error)
/// }
/// ```
///
/// Guarantees:
/// - Handlers never run inside the call that attached them, even when the promise is
///   already settled; they run on the `on:` queue, by default ``Dispatch/DispatchQueue/promises``
///   (never the main queue).
/// - Any handler may throw; the throw rejects the promise that handler returned.
/// - A promise is thread-safe: settle, attach and cancel from any thread.
/// - ``cancel()`` rejects a pending promise with ``PromiseError/cancelled`` and travels
///   upstream to the work that produced it.
///
/// `Promise` is `@unchecked Sendable` because its only stored property is a lock-box;
/// every read and write of its state goes through that lock.
public final class Promise<Value: Sendable>: @unchecked Sendable {
    // The state is split so that nothing stored needs generic metadata to destroy (see
    // `PromiseCore`): the lock, the fixed-layout core, and a two-word slot for the value.
    // `@exclusivity(unchecked)`: `_core` and `_slot` are only accessed while `_lock` is held
    // (or by `init` and `deinit`, which own the object alone), which already guarantees
    // exclusive access; the run-time check would cost a call per access.
    @usableFromInline let _lock = PromiseLock()
    @usableFromInline @exclusivity(unchecked) var _core = PromiseCore<Value>()
    @usableFromInline @exclusivity(unchecked) var _slot = PromiseValueSlot()

    @inlinable
    init(upstream: (any PromiseUpstream)?) {
        if let upstream { _core.upstream = upstream }
    }

    @inlinable
    init(settled result: Result<Value, any Error>) {
        _record(result)
    }

    deinit {
        // Only an in-place value needs destroying by hand; `_isPOD` and the value witness
        // come from this class's own metadata (no run-time lookup).
        if _hasInlineValue && !_isPOD(Value.self) {
            withUnsafeMutableBytes(of: &_slot) { bytes in
                _ = bytes.baseAddress.map { $0.assumingMemoryBound(to: Value.self).deinitialize(count: 1) }
            }
        }
    }

    /// Creates a promise and hands its ``Resolver`` to `body`, which runs synchronously.
    ///
    /// ```swift
    /// let data = Promise<Data> { seal in
    ///     loadFile(completion: { result in seal.resolve(result) })
    /// }
    /// ```
    ///
    /// - Parameter body: Starts the work and arranges for the resolver to settle the promise.
    ///   A throw from `body` rejects the promise. If every reference to the resolver is
    ///   released before it settles, the promise rejects with ``PromiseError/resolverReleased``.
    public convenience init(_ body: (Resolver<Value>) throws -> Void) {
        self.init(upstream: nil)
        let resolver = Resolver(self)
        do {
            try body(resolver)
        } catch {
            resolver.reject(error)
        }
    }

    /// Creates a promise that is already rejected with `error`.
    public convenience init(error: any Error) {
        self.init(settled: .failure(error))
    }

    /// A promise that is already fulfilled with `value`.
    ///
    /// ```swift
    /// func cachedUser() -> Promise<User> { .value(user) }
    /// ```
    @inlinable
    public static func value(_ value: Value) -> Promise<Value> {
        Promise(settled: .success(value))
    }

    /// A pending promise and the resolver that settles it, for bridging callback APIs.
    ///
    /// ```swift
    /// let (promise, resolver) = Promise<Int>.pending()
    /// worker.onFinish = { resolver.fulfill($0) }
    /// return promise
    /// ```
    public static func pending() -> (promise: Promise<Value>, resolver: Resolver<Value>) {
        let promise = Promise(upstream: nil)
        return (promise, Resolver(promise))
    }

    // MARK: State

    /// The result, or `nil` while the promise is pending.
    @inlinable
    public var result: Result<Value, any Error>? {
        _lock.withLock { _settledResult }
    }

    /// `true` until the promise is fulfilled or rejected.
    @inlinable
    public var isPending: Bool {
        _lock.withLock { !_core.isSettled }
    }

    /// `true` once the promise is fulfilled.
    public var isFulfilled: Bool {
        if case .success = result { return true }
        return false
    }

    /// `true` once the promise is rejected (cancellation included).
    public var isRejected: Bool {
        if case .failure = result { return true }
        return false
    }

    /// `true` once the promise is rejected with a cancellation error.
    public var isCancelled: Bool {
        if case .failure(let error) = result { return Promises.isCancellation(error) }
        return false
    }

    // MARK: Settling (internal)

    /// Stores `result` as this promise's outcome. Call with the lock held (or from `init`),
    /// once, while pending.
    @inlinable
    func _record(_ result: Result<Value, any Error>) {
        _core.isSettled = true
        switch result {
        case .success(let value):
            if PromiseValueSlot.fits(Value.self) {
                withUnsafeMutableBytes(of: &_slot) { bytes in
                    _ = bytes.baseAddress.map { $0.initializeMemory(as: Value.self, to: value) }
                }
            } else {
                _core.boxedValue = PromiseValueBox(value)
            }
        case .failure(let error):
            _core.error = error
        }
    }

    /// Whether `_slot` holds a value: fulfilled with a `Value` that fits in place. Call with the
    /// lock held, or from `deinit`.
    @inlinable
    var _hasInlineValue: Bool {
        _core.isSettled && _core.error == nil && PromiseValueSlot.fits(Value.self)
    }

    /// The outcome, or `nil` while pending. Call with the lock held.
    @inlinable
    var _settledResult: Result<Value, any Error>? {
        guard _core.isSettled else { return nil }
        if let error = _core.error { return .failure(error) }
        if PromiseValueSlot.fits(Value.self) {
            return .success(withUnsafeBytes(of: &_slot) { $0.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Value.self).pointee })
        }
        return .success(unsafeDowncast(_core.boxedValue.unsafelyUnwrapped, to: PromiseValueBox<Value>.self).value)
    }

    /// Settles a pending promise with `result` and returns its observers (see
    /// `PromiseCore.settle(leftovers:)`), or `nil` when it had already settled. Call with the lock held.
    @inlinable
    func _settle(
        _ result: Result<Value, any Error>, leftovers: inout PromiseLeftovers
    ) -> PromiseObservers<Value>? {
        guard !_core.isSettled else { return nil }
        _record(result)
        return _core.settle(leftovers: &leftovers)
    }

    /// Rejects the promise with ``PromiseError/resolverReleased`` if it is pending: its resolver
    /// went away without settling it.
    @usableFromInline @inline(never)
    func _rejectAbandoned() {
        _resolve(.failure(PromiseError.resolverReleased))
    }

    /// Settles the promise if it is pending and notifies its observers. Returns whether it did.
    @inlinable
    @discardableResult
    func _resolve(_ result: Result<Value, any Error>) -> Bool {
        var leftovers = PromiseLeftovers()  // released when this function returns, after the lock
        guard let observers = _lock.withLock({ _settle(result, leftovers: &leftovers) }) else { return false }
        if !observers.isEmpty { Promise._deliver(observers, of: self, result) }
        withExtendedLifetime(leftovers) {}
        return true
    }

    /// ``_resolve(_:)`` for a combinator's result (`when`, `race`, `attempt`), settled from an
    /// observer of one of its inputs: its own observers are notified through the thread's
    /// ``Trampoline``, so combinators nested in one another settle in constant stack.
    /// Returns whether it settled the promise.
    @inlinable
    @discardableResult
    func _resolveNested(_ result: Result<Value, any Error>) -> Bool {
        var leftovers = PromiseLeftovers()  // released when this function returns, after the lock
        guard let observers = _lock.withLock({ _settle(result, leftovers: &leftovers) }) else { return false }
        if !observers.isEmpty { Trampoline.settle { Promise._deliver(observers, of: self, result) } }
        withExtendedLifetime(leftovers) {}
        return true
    }

    /// Registers an observer; when the promise is already settled the observer is
    /// notified right away (callbacks then hop to their queue, so user code still runs later),
    /// unless the settling thread is still notifying earlier observers: then it is queued
    /// behind them, to keep attachment order.
    ///
    /// `isStep` marks the observer of a `map`/`done`/`get` step (see `StepBatch`).
    @inlinable
    func _observe(_ observer: PromiseObserver<Value>, isStep: Bool = false) {
        let settled: Result<Value, any Error>? = _lock.withLock {
            guard !_core.isDelivering, let result = _settledResult else {
                _core.soleObserverIsStep = isStep && _core.observers.isEmpty
                _core.observers.append(observer)
                return nil
            }
            return result
        }
        if let settled { Promise._deliver(.one(observer), of: nil, settled) }
    }

    /// Settles the promise from the end of a chain step running in `batch`: when the promise's
    /// only observer is the next step, that step may join the batch (see `StepBatch`); any
    /// other observer is notified as usual.
    @inlinable
    func _resolve(_ result: Result<Value, any Error>, fromStepIn batch: UnsafeMutablePointer<StepBatch>) {
        var leftovers = PromiseLeftovers()  // released when this function returns, after the lock
        var soleStep = false
        let observers = _lock.withLock { () -> PromiseObservers<Value>? in
            soleStep = _core.soleObserverIsStep
            return _settle(result, leftovers: &leftovers)
        }
        defer { withExtendedLifetime(leftovers) {} }
        guard let observers, !observers.isEmpty else { return }
        if soleStep, case .one = observers { batch.pointee.isAccepting = true }
        Promise._deliver(observers, of: self, result)
        batch.pointee.isAccepting = false
    }

    /// Notifies observers in a loop. A pipe settles its target and queues the target's own
    /// observers here instead of recursing, so a 100 000-link chain uses constant stack.
    /// `owner` is the promise that just settled with `first` as its observers (`nil` for a
    /// single late observer): observers attached to it meanwhile are notified here too.
    @inlinable
    static func _deliver(
        _ first: consuming PromiseObservers<Value>, of owner: Promise<Value>?, _ result: Result<Value, any Error>
    ) {
        var observers = first
        var owner = owner
        var backlog: [Pending] = []
        while true {
            let notified: Bool
            switch consume observers {
            case .none:
                notified = false
            case .one(let observer):
                notified = true
                _notify(observer, result, &backlog)
            case .many(let list):
                notified = true
                for observer in list { _notify(observer, result, &backlog) }
            }
            if notified, let current = owner, let late = current._lock.withLock({ current._core.takeLateObservers() }) {
                observers = late
            } else if let pending = backlog.popLast() {
                observers = pending.observers
                owner = pending.owner
            } else {
                return
            }
        }
    }

    /// Observers of a piped promise, waiting in `_deliver`'s backlog.
    @usableFromInline
    struct Pending {
        @usableFromInline let observers: PromiseObservers<Value>
        @usableFromInline let owner: Promise<Value>

        @inlinable init(_ observers: PromiseObservers<Value>, _ owner: Promise<Value>) {
            self.observers = observers
            self.owner = owner
        }
    }

    @inlinable
    static func _notify(
        _ observer: borrowing PromiseObserver<Value>, _ result: Result<Value, any Error>,
        _ backlog: inout [Pending]
    ) {
        switch observer {
        case .callback(let body):
            body(result)
        case .pipe(let target):
            var leftovers = PromiseLeftovers()  // released after the lock
            if let more = target._lock.withLock({ target._settle(result, leftovers: &leftovers) }), !more.isEmpty {
                backlog.append(Pending(more, target))
            }
            withExtendedLifetime(leftovers) {}
        case .collect(let collector, let index):
            collector.receive(result, at: index)
        }
    }

    /// Makes this pending promise follow `inner`: its result becomes this promise's result and
    /// cancelling this promise cancels `inner`.
    @inlinable
    func _adopt(_ inner: Promise<Value>) {
        guard inner !== self else {
            _resolve(.failure(PromiseError.returnedSelf))
            return
        }
        if _setUpstream(inner) {
            inner._observe(.pipe(self))
        } else if isCancelled {
            inner.cancel()
        }
    }

    /// Points cancellation at `upstream`; returns `false` (and leaves it alone) when this
    /// promise already settled. The link it replaces (the parent of a `then`/`recover` step) is
    /// released after the lock.
    @usableFromInline
    func _setUpstream(_ upstream: any PromiseUpstream) -> Bool {
        let (accepted, replaced) = _lock.withLock { () -> (Bool, (any PromiseUpstream)?) in
            guard !_core.isSettled else { return (false, nil) }
            var replaced: (any PromiseUpstream)? = upstream
            swap(&replaced, &_core.upstream)
            return (true, replaced)
        }
        withExtendedLifetime(replaced) {}
        return accepted
    }
}

extension Promise where Value == Void {
    /// A `Promise<Void>` that is already fulfilled (PromiseKit's `Promise()`): a start for a chain
    /// whose first step needs no input, or an answer for "nothing to do".
    ///
    /// ```swift
    /// func syncIfNeeded() -> Promise<Void> {
    ///     guard hasChanges else { return Promise() }
    ///     return client.request(Sync()).asVoid()
    /// }
    /// ```
    public convenience init() {
        self.init(settled: .success(()))
    }
}
