import Dispatch
import Foundation
import Promises

/// Runs work after a delay: the clock behind every request deadline and every retry delay.
///
/// The client uses ``DispatchScheduler`` unless ``NetworkClient/Configuration/scheduler`` names
/// another; tests plug in a virtual clock to make timeouts and back-off instant and exact.
///
/// ```swift
/// let work = scheduler.schedule(after: 2) { print("two seconds later") }
/// work.cancel()   // it will not run
/// ```
public protocol RequestScheduler: Sendable {
    /// Runs `work` once, `delay` seconds from now, on a thread of the scheduler's choosing.
    ///
    /// - Parameters:
    ///   - delay: Seconds to wait; zero or less means "as soon as possible" (never inside this call);
    ///     `.infinity` means never.
    ///   - work: The work to run. It is not run if the returned ``ScheduledWork`` is cancelled first.
    /// - Returns: A handle that cancels the work.
    @discardableResult
    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork
}

/// A handle to work given to a ``RequestScheduler``; ``cancel()`` stops it from running.
public final class ScheduledWork: Sendable {
    private let onCancel: Protected<(@Sendable () -> Void)?>

    /// Creates a handle.
    ///
    /// - Parameter onCancel: What ``cancel()`` does the first time it is called, for example
    ///   removing the work from a timer list. It runs at most once.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Protected(onCancel)
    }

    /// Cancels the work if it has not run yet. Calling it again does nothing.
    public func cancel() {
        let action = onCancel.withLock { stored -> (@Sendable () -> Void)? in
            defer { stored = nil }
            return stored
        }
        action?()
    }
}

/// The default ``RequestScheduler``: one dispatch timer per scheduler, shared by all its work.
///
/// Scheduled work sits in a min-heap ordered by due time; a single `DispatchSourceTimer` is armed
/// for the earliest entry. Cancelling removes the work (and everything it captured) at once, so
/// a busy client that finishes requests long before their 60-second deadlines keeps no pile of
/// pending timers around; scheduling and cancelling cost a lock and a heap step each.
///
/// ```swift
/// var configuration = NetworkClient.Configuration(baseURL: url)
/// configuration.scheduler = DispatchScheduler(queue: DispatchQueue(label: "api.deadlines", qos: .utility))
/// ```
public struct DispatchScheduler: RequestScheduler {
    private let timers: TimerHeap
    /// Where work due at once (a delay of zero) runs; `nil`: the global queue, or a serial lane
    /// when the pool is blocked (`PoolFallback`).
    private let immediate: DispatchQueue?

    /// Creates a scheduler with its own timer, on a serial queue of its own: timed work (request
    /// deadlines, retry delays) runs there in due order, and gets a thread even while every
    /// thread of the global pool is blocked, so deadlines still fire then. Work due at once runs
    /// on the global queue, or on a serial queue of the library's when no thread of the pool
    /// takes it within 20 ms.
    public init() {
        timers = TimerHeap(queue: DispatchQueue(label: "Courier.DispatchScheduler"))
        immediate = nil
    }

    /// Creates a scheduler with its own timer, whose work runs on `queue`.
    ///
    /// - Parameter queue: Where scheduled work runs: timed work in due order, work due at once
    ///   as it comes. A global queue waits for a free thread of the pool like any other work.
    public init(queue: DispatchQueue) {
        timers = TimerHeap(queue: queue)
        immediate = queue
    }

    /// Runs `work` on the scheduler's queue after `delay` seconds, unless cancelled first.
    @discardableResult
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        // A delay of `.infinity` (or beyond ~30 years) never fires: nothing is kept at all.
        guard !(delay > Self.longestDelay) else { return ScheduledWork {} }
        guard delay > 0 else {
            // Zero, negative and NaN: as soon as possible, straight onto the queue (a timer would
            // add its leeway for nothing).
            let slot = ImmediateWork(work)
            if let immediate {
                immediate.async { slot.take()?() }
            } else {
                PoolFallback.run { slot.take()?() }
            }
            return ScheduledWork { _ = slot.take() }
        }
        let id = timers.add(after: UInt64(delay * 1e9), work)
        let timers = self.timers
        return ScheduledWork { timers.remove(id) }
    }
}

extension DispatchScheduler {
    /// Delays longer than this many seconds (about 30 years; `.infinity` included) never fire:
    /// the scheduler keeps nothing for them, and a retry that would wait that long fails instead.
    static let longestDelay = TimeInterval(PromiseTimers.longestDelay) / 1e9   // the timers' own limit
}

/// Work queued for "as soon as possible": runs unless cancelled before its turn.
private final class ImmediateWork: Sendable {
    private let work: Protected<(@Sendable () -> Void)?>

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = Protected(work)
    }

    /// Removes and returns the work; `nil` once it ran or was cancelled.
    func take() -> (@Sendable () -> Void)? {
        work.withLock { stored in
            defer { stored = nil }
            return stored
        }
    }
}
