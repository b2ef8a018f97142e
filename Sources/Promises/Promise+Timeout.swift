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
        guard let delay = timerDelay(seconds), isPending else { return child }
        let expire: @Sendable () -> Void = { [weak child] in
            guard let child else { return }
            Promise._cancelChain(from: child, with: .timedOut)
        }
        guard delay > 0 else {
            DispatchQueue.global().async(execute: expire)
            return child
        }
        let id = PromiseTimers.heap.add(after: delay, expire)
        // This promise settles whenever the child does: with its own result, or cancelled from
        // the child (by the caller or the timer), since a cancellation travels upstream.
        _observe(.callback { _ in PromiseTimers.heap.remove(id) })
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
    fulfilled(after: timerDelay(seconds))
}

/// A promise fulfilled after `interval` has passed. Cancelling it rejects it at once and
/// removes its timer.
///
/// - Parameter interval: The delay; `.never` (or more than about 30 years) never fulfils
///   (cancel it instead).
public func after(_ interval: DispatchTimeInterval) -> Promise<Void> {
    let seconds: TimeInterval
    switch interval {
    case .seconds(let value): seconds = TimeInterval(value)
    case .milliseconds(let value): seconds = TimeInterval(value) / 1e3
    case .microseconds(let value): seconds = TimeInterval(value) / 1e6
    case .nanoseconds(let value): seconds = TimeInterval(value) / 1e9
    case .never: seconds = .infinity
    @unknown default: seconds = .infinity
    }
    return fulfilled(after: timerDelay(seconds))
}

/// The timers of `timeout` and `after`: one heap for the process, work run on a global queue.
package enum PromiseTimers {
    package static let heap = TimerHeap(queue: .global())

    /// Delays longer than this many seconds (about 30 years) never come: nothing is scheduled.
    static let longestDelay: TimeInterval = 1e9
}

/// `seconds` in nanoseconds for ``PromiseTimers``: 0 for zero, negative and `-infinity`; `nil`
/// for `.infinity`, NaN and anything beyond ``PromiseTimers/longestDelay``, which never come.
/// (The conversion stays in `UInt64`: an `Int` of nanoseconds holds barely a second on a 32-bit
/// `Int`, as on watchOS devices.)
private func timerDelay(_ seconds: TimeInterval) -> UInt64? {
    guard !seconds.isNaN, seconds <= PromiseTimers.longestDelay else { return nil }
    return seconds > 0 ? UInt64(seconds * 1e9) : 0
}

/// A promise fulfilled after `nanoseconds` (never when `nil`), on a global queue.
private func fulfilled(after nanoseconds: UInt64?) -> Promise<Void> {
    let promise = Promise<Void>(upstream: nil)
    guard let nanoseconds else { return promise }
    let fulfil: @Sendable () -> Void = { [weak promise] in promise?._resolve(.success(())) }
    guard nanoseconds > 0 else {
        DispatchQueue.global().async(execute: fulfil)
        return promise
    }
    let id = PromiseTimers.heap.add(after: nanoseconds, fulfil)
    promise._addCancelHook { PromiseTimers.heap.remove(id) }
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
