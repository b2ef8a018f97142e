import Dispatch
import Foundation

extension Promise {
    /// Gives the promise a deadline: if it has not settled after `seconds`, the returned
    /// promise rejects with ``PromiseError/timedOut`` and this promise (and the work upstream
    /// of it) is cancelled.
    ///
    /// ```swift
    /// client.request(Feed.latest).timeout(seconds: 5).catch { error in
    ///     if case PromiseError.timedOut = error { showSlowNetworkBanner() }
    /// }
    /// ```
    /// The timer is removed as soon as the promise settles, with everything it holds, so a
    /// long-lived process may give every operation a generous deadline.
    ///
    /// - Parameter seconds: The time allowed, from now. Zero or less times out at once
    ///   (asynchronously) unless the promise is already settled; `.infinity`, NaN or more than
    ///   about 30 years never times out and schedules nothing.
    public func timeout(seconds: TimeInterval) -> Promise<Value> {
        let child = Promise<Value>(upstream: self)
        _observe(.pipe(child))
        guard let delay = PromiseTimers.nanoseconds(seconds), isPending else { return child }
        let id = PromiseTimers.schedule(after: delay) { [weak child] in
            guard let child else { return }
            Promise._cancelChain(from: child, with: .timedOut)
        }
        // This promise settles whenever the child does: with its own result, or cancelled from
        // the child (by the caller or the timer), since a cancellation travels upstream.
        if let id { _observe(.callback { _ in PromiseTimers.heap.remove(id) }) }
        return child
    }
}

/// A promise fulfilled after `seconds` have passed. Cancelling it rejects it at once and
/// removes its timer.
///
/// ```swift
/// after(seconds: 0.5).then { client.request(Feed.latest) }
/// ```
///
/// - Parameter seconds: The delay; zero or less fulfils at once (asynchronously), and
///   `.infinity`, NaN or more than about 30 years never fulfils and schedules nothing (cancel it
///   instead).
public func after(seconds: TimeInterval) -> Promise<Void> {
    fulfilled(after: PromiseTimers.nanoseconds(seconds))
}

/// A promise fulfilled after `interval` has passed. Cancelling it rejects it at once and
/// removes its timer.
///
/// - Parameter interval: The delay; `.never` (or more than about 30 years) never fulfils
///   (cancel it instead).
public func after(_ interval: DispatchTimeInterval) -> Promise<Void> {
    fulfilled(after: PromiseTimers.nanoseconds(interval))
}

/// The timers of `timeout` and `after`: one heap for the process, on a serial queue of its own.
/// Each timer that fires runs on its own through ``PoolFallback`` (the global queue, or a serial
/// lane when the pool is blocked), so a slow `onCancel` hook of one timed-out chain does not hold
/// up the others, and a time-out fires even while every thread of the global pool is blocked (in
/// `wait()`, say).
package enum PromiseTimers {
    package static let heap = TimerHeap(queue: DispatchQueue(label: "Promises.PromiseTimers"), separately: true)

    /// Runs `work` after `nanoseconds`, through ``PoolFallback``: at once (asynchronously, no
    /// timer) for 0, otherwise on ``heap``. Returns the heap entry's id, for
    /// ``TimerHeap/remove(_:)``, or `nil` when there is none.
    static func schedule(after nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) -> UInt64? {
        guard nanoseconds > 0 else {
            PoolFallback.run(work)
            return nil
        }
        return heap.add(after: nanoseconds, work)
    }

    /// Delays longer than this many nanoseconds (about 30 years) never come: nothing is scheduled.
    package static let longestDelay: UInt64 = 1_000_000_000_000_000_000

    /// `seconds` in nanoseconds: 0 for zero, negative and `-infinity`; `nil` for `.infinity`, NaN
    /// and anything beyond ``longestDelay``, which never come. (The conversion stays in `UInt64`:
    /// an `Int` of nanoseconds holds barely a second on a 32-bit `Int`, as on watchOS devices.)
    package static func nanoseconds(_ seconds: TimeInterval) -> UInt64? {
        guard !seconds.isNaN, seconds <= Double(longestDelay) / 1e9 else { return nil }
        return seconds > 0 ? UInt64(seconds * 1e9) : 0
    }

    /// `interval` in nanoseconds, exactly (integer arithmetic): 0 for zero and negative values;
    /// `nil` for `.never` and anything beyond ``longestDelay``.
    package static func nanoseconds(_ interval: DispatchTimeInterval) -> UInt64? {
        let value: Int
        let scale: UInt64
        switch interval {
        case .seconds(let count): (value, scale) = (count, 1_000_000_000)
        case .milliseconds(let count): (value, scale) = (count, 1_000_000)
        case .microseconds(let count): (value, scale) = (count, 1_000)
        case .nanoseconds(let count): (value, scale) = (count, 1)
        case .never: return nil
        @unknown default: return nil
        }
        guard value > 0 else { return 0 }
        let (product, overflow) = UInt64(value).multipliedReportingOverflow(by: scale)
        return overflow || product > longestDelay ? nil : product
    }
}

/// A promise fulfilled after `nanoseconds` (never when `nil`), through ``PromiseTimers``.
private func fulfilled(after nanoseconds: UInt64?) -> Promise<Void> {
    let promise = Promise<Void>(upstream: nil)
    guard let nanoseconds else { return promise }
    let id = PromiseTimers.schedule(after: nanoseconds) { [weak promise] in promise?._resolve(.success(())) }
    if let id { promise._addCancelHook { PromiseTimers.heap.remove(id) } }
    return promise
}

/// Starts a chain with a closure, so that every step reads the same way and a throw
/// from the first step rejects the chain.
///
/// ```swift
/// firstly { client.request(Users.list) }.map { $0["users"] }.done { print($0) }
/// ```
public func firstly<U>(_ body: () throws -> Promise<U>) -> Promise<U> {
    do {
        return try body()
    } catch {
        return Promise(error: error)
    }
}
