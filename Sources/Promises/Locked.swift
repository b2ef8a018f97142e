import Foundation

#if canImport(Darwin) || DEBUG
#if canImport(Darwin)
import os

/// The lock primitive on Apple platforms.
///
/// `Synchronization.Mutex` needs macOS 15 / iOS 18, above this package's floor, so the lock
/// lives in a small heap box of its own.
@usableFromInline typealias LockPrimitive = os_unfair_lock

@inlinable func lockPrimitiveInitialize(_ lock: UnsafeMutablePointer<LockPrimitive>) {
    lock.initialize(to: os_unfair_lock())
}
@inlinable func lockPrimitiveDestroy(_ lock: UnsafeMutablePointer<LockPrimitive>) {}
@inlinable func lockPrimitiveLock(_ lock: UnsafeMutablePointer<LockPrimitive>) { os_unfair_lock_lock(lock) }
@inlinable func lockPrimitiveUnlock(_ lock: UnsafeMutablePointer<LockPrimitive>) { os_unfair_lock_unlock(lock) }
#else
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lock primitive of debug builds on Linux: a pthread mutex.
///
/// Thread Sanitizer cannot see inside `Synchronization.Mutex` (its futex calls live in the
/// uninstrumented runtime) and reports every promise as a data race; it does understand
/// pthread mutexes. `swift test --sanitize=thread` builds in debug, so debug builds use this
/// boxed mutex and release builds keep the inline `Mutex` below, with no extra allocation.
@usableFromInline typealias LockPrimitive = pthread_mutex_t

@inlinable func lockPrimitiveInitialize(_ lock: UnsafeMutablePointer<LockPrimitive>) {
    lock.initialize(to: pthread_mutex_t())
    pthread_mutex_init(lock, nil)
}
@inlinable func lockPrimitiveDestroy(_ lock: UnsafeMutablePointer<LockPrimitive>) { pthread_mutex_destroy(lock) }
@inlinable func lockPrimitiveLock(_ lock: UnsafeMutablePointer<LockPrimitive>) { pthread_mutex_lock(lock) }
@inlinable func lockPrimitiveUnlock(_ lock: UnsafeMutablePointer<LockPrimitive>) { pthread_mutex_unlock(lock) }
#endif

/// A value guarded by a lock; the only way to reach the value is `withLock`.
@usableFromInline
struct Locked<State: Sendable>: ~Copyable {
    @usableFromInline let box: LockedBox<State>

    @inlinable init(_ state: State) { box = LockedBox(state) }

    /// Runs `body` with exclusive access to the state. Never call back into user code from `body`.
    @inlinable
    func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
        let box = self.box
        return box.lock.withLock { body(&box.state) }
    }
}

@usableFromInline
// @unchecked: `state` is read and written only inside `lock.withLock`.
final class LockedBox<State>: @unchecked Sendable {
    @usableFromInline let lock = PromiseLock()
    @usableFromInline var state: State

    @inlinable init(_ state: State) {
        self.state = state
    }
}
#else
import Synchronization

/// A value guarded by a futex-based `Mutex`, stored inline in its owner (no extra allocation).
/// Release builds on Linux only; see `LockPrimitive` for why debug builds use a pthread mutex.
@usableFromInline
struct Locked<State: Sendable>: ~Copyable {
    @usableFromInline let mutex: Mutex<State>

    @inlinable init(_ state: State) { mutex = Mutex(state) }

    /// Runs `body` with exclusive access to the state. Never call back into user code from `body`.
    @inlinable
    func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
        mutex.withLock { (state: inout sending State) -> R in body(&state) }
    }
}
#endif

// MARK: - The promise's own lock

#if canImport(Darwin) || DEBUG
/// The lock of one promise: a boxed primitive on Apple platforms and in debug builds (see
/// `LockPrimitive`), so that its address is stable.
///
/// It guards the promise's other stored properties, which the promise touches only between
/// ``withLock(_:)``'s lock and unlock.
@usableFromInline
struct PromiseLock: ~Copyable {
    @usableFromInline let lock: UnsafeMutablePointer<LockPrimitive>

    @inlinable init() {
        lock = .allocate(capacity: 1)
        lockPrimitiveInitialize(lock)
    }

    deinit {
        lockPrimitiveDestroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` holding the lock. Never call back into user code from `body`.
    @inlinable
    func withLock<R>(_ body: () -> R) -> R {
        lockPrimitiveLock(lock)
        defer { lockPrimitiveUnlock(lock) }
        return body()
    }
}
#else
/// The lock of one promise: a futex-based `Mutex` stored inline (4 bytes, no allocation).
///
/// It guards no value of its own: the promise keeps its state in stored properties that it
/// touches only inside ``withLock(_:)``. Its type does not depend on the promise's value type,
/// so releasing a promise never asks the runtime for generic metadata (a lock-box over a
/// generic state did, about 1 000 instructions per promise).
@usableFromInline
struct PromiseLock: ~Copyable {
    @usableFromInline let mutex = Mutex<Void>(())

    @inlinable init() {}

    /// Runs `body` holding the lock. Never call back into user code from `body`.
    @inlinable
    func withLock<R>(_ body: () -> R) -> R {
        // `Mutex.withLock` wants a `sending` result; `R` is produced and consumed by the
        // promise's own code on either side of the lock, never shared while locked.
        let box = mutex.withLock { _ in UnsafeSendingBox(body()) }
        return box.value
    }
}

/// Carries a value out of `Mutex.withLock`, whose result must be `sending`.
///
/// `@unchecked Sendable`: it exists only for the instant between the unlock and the caller
/// reading `value`, on one thread.
@usableFromInline
// @unchecked: lives only from the unlock to the caller's read of `value`, on one thread.
struct UnsafeSendingBox<Value>: @unchecked Sendable {
    @usableFromInline var value: Value
    @inlinable init(_ value: Value) { self.value = value }
}
#endif
