import Foundation

#if canImport(Darwin) || DEBUG
/// A value guarded by a lock; the only way to reach the value is ``withLock(_:)``.
///
/// On Apple platforms `Synchronization.Mutex` needs macOS 15 / iOS 18, above this package's
/// floor, so the value lives in a small heap box next to an `NSLock`. Debug builds on Linux use
/// this form too: Thread Sanitizer understands `NSLock` (a pthread mutex) but not the futex
/// behind `Mutex`, and would report every guarded access as a race.
struct Protected<State: Sendable>: Sendable {
    private let box: ProtectedBox<State>

    init(_ state: State) { box = ProtectedBox(state) }

    /// Runs `body` with exclusive access to the state. Never call out to user code from `body`.
    func withLock<R>(_ body: (inout State) -> R) -> R {
        box.lock.lock()
        defer { box.lock.unlock() }
        return body(&box.state)
    }
}

// @unchecked: `state` is only read and written between `lock.lock()` and `lock.unlock()`
// (see `Protected.withLock`), so no two threads touch it at once.
private final class ProtectedBox<State>: @unchecked Sendable {
    let lock = NSLock()
    var state: State

    init(_ state: State) { self.state = state }
}
#else
import Synchronization

/// A value guarded by a futex-based `Mutex` stored inline in its owner (no extra allocation);
/// the only way to reach the value is ``withLock(_:)``.
struct Protected<State: Sendable>: ~Copyable, Sendable {
    private let mutex: Mutex<State>

    init(_ state: State) { mutex = Mutex(state) }

    /// Runs `body` with exclusive access to the state. Never call out to user code from `body`.
    func withLock<R>(_ body: (inout State) -> R) -> R {
        mutex.withLock { (state: inout sending State) -> R in body(&state) }
    }
}
#endif
