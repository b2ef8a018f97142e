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
    /// - Parameter seconds: The time allowed, from now. Zero or less times out at once
    ///   (asynchronously) unless the promise is already settled.
    public func timeout(seconds: TimeInterval) -> Promise<Value> {
        let child = Promise<Value>(upstream: self)
        _observe(.pipe(child))
        let delay = seconds.isFinite ? max(0, seconds) : Double(Int32.max)
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
public func after(seconds: TimeInterval) -> Promise<Void> {
    // Seconds go to `DispatchTime` as a `Double` (it clamps), never through a nanosecond `Int`,
    // which holds barely a second on a 32-bit `Int` (watchOS devices).
    let delay = seconds.isFinite ? max(0, seconds) : Double(Int32.max)
    return fulfilled(at: .now() + delay)
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
