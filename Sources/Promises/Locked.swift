import Foundation

#if canImport(Darwin)
import os

/// A value guarded by an `os_unfair_lock`; the only way to reach the value is `withLock`.
///
/// On Apple platforms `Synchronization.Mutex` needs macOS 15 / iOS 18, above this
/// package's floor, so the lock lives in a small heap box of its own.
@usableFromInline
struct Locked<State: Sendable>: ~Copyable {
    @usableFromInline let box: LockedBox<State>

    @inlinable init(_ state: State) { box = LockedBox(state) }

    /// Runs `body` with exclusive access to the state. Never call back into user code from `body`.
    @inlinable
    func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
        os_unfair_lock_lock(box.lock)
        defer { os_unfair_lock_unlock(box.lock) }
        return body(&box.state)
    }
}

// @unchecked: `state` is read and written only between lock and unlock of `lock`.
@usableFromInline
final class LockedBox<State>: @unchecked Sendable {
    @usableFromInline let lock: UnsafeMutablePointer<os_unfair_lock>
    @usableFromInline var state: State

    @inlinable init(_ state: State) {
        lock = .allocate(capacity: 1)
        lock.initialize(to: os_unfair_lock())
        self.state = state
    }

    deinit {
        lock.deinitialize(count: 1)
        lock.deallocate()
    }
}
#else
import Synchronization

/// A value guarded by a futex-based `Mutex`, stored inline in its owner (no extra allocation).
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
