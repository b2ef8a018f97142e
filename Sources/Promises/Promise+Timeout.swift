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
    /// The timer stays scheduled until the deadline even when the promise settles first (about
    /// half a kilobyte each): prefer deadlines of minutes to ones of days in a long-lived process.
    ///
    /// - Parameter seconds: The time allowed, from now. Zero or less times out at once
    ///   (asynchronously) unless the promise is already settled; `.infinity` (or NaN) never
    ///   times out and schedules nothing.
    public func timeout(seconds: TimeInterval) -> Promise<Value> {
        let child = Promise<Value>(upstream: self)
        _observe(.pipe(child))
        guard let delay = finiteDelay(seconds) else { return child }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak child] in
            guard let child else { return }
            Promise._cancelChain(from: child, with: .timedOut)
        }
        return child
    }
}

/// A promise fulfilled after `seconds` have passed. Cancelling it rejects it at once.
///
/// ```swift
/// after(seconds: 0.5).then { client.request(Feed.latest) }
/// ```
///
/// - Parameter seconds: The delay; zero or less fulfils at once (asynchronously), and
///   `.infinity` (or NaN) never fulfils and schedules nothing (cancel it instead).
public func after(seconds: TimeInterval) -> Promise<Void> {
    guard let delay = finiteDelay(seconds) else { return Promise<Void>(upstream: nil) }
    return fulfilled(at: .now() + delay)
}

/// `seconds` as a delay for `DispatchTime`: at least 0 (so also for `-infinity`), or `nil` for
/// `.infinity` and NaN, which never come. Seconds go to `DispatchTime` as a `Double` (it
/// clamps), never through a nanosecond `Int`, which holds barely a second on a 32-bit `Int`
/// (watchOS devices).
private func finiteDelay(_ seconds: TimeInterval) -> TimeInterval? {
    if seconds.isNaN || seconds == .infinity { return nil }
    return max(0, seconds)
}

/// A promise fulfilled after `interval` has passed. Cancelling it rejects it at once.
///
/// - Parameter interval: The delay; `.never` never fulfils (cancel it instead).
public func after(_ interval: DispatchTimeInterval) -> Promise<Void> {
    interval == .never ? Promise<Void>(upstream: nil) : fulfilled(at: .now() + interval)
}

/// A promise fulfilled at `deadline`, on a global queue.
private func fulfilled(at deadline: DispatchTime) -> Promise<Void> {
    let promise = Promise<Void>(upstream: nil)
    DispatchQueue.global().asyncAfter(deadline: deadline) { [weak promise] in
        promise?._resolve(.success(()))
    }
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
