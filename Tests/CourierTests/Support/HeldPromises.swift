import Foundation
@testable import Courier
import Promises

/// Pending promises a test double hands out and keeps (so they never settle by themselves),
/// counting how many were cancelled: the adapters and retriers that "never answer".
// @unchecked: `resolvers`, `made` and `cancels` are only touched while holding `lock`.
final class HeldPromises<Value: Sendable>: @unchecked Sendable {
    /// Guards the properties below; signalled on every cancellation, for ``waitForCancels(_:timeout:)``.
    private let lock = NSCondition()
    private var resolvers: [Resolver<Value>] = []
    private var made = 0
    private var cancels = 0

    /// A new pending promise, kept until ``takeAll()``; its cancellation is counted.
    func make() -> Promise<Value> {
        let (promise, resolver) = Promise<Value>.pending()
        resolver.onCancel { [self] in
            lock.withLock {
                cancels += 1
                lock.broadcast()
            }
        }
        lock.withLock {
            made += 1
            resolvers.append(resolver)
        }
        return promise
    }

    /// How many promises were made, and how many of them were cancelled.
    var counts: (held: Int, cancelled: Int) { lock.withLock { (made, cancels) } }

    var cancelCount: Int { counts.cancelled }

    /// Blocks until at least `count` promises were cancelled, or `timeout` passes.
    ///
    /// A double signals that it was asked from inside its own method, before the client has taken
    /// the promise it returns; a cancellation that lands in that gap reaches the promise from the
    /// client's thread after the request has already settled, so a test waits for it here.
    /// - Returns: `true` when `count` cancellations arrived in time.
    func waitForCancels(_ count: Int, timeout: TimeInterval = 5) -> Bool {
        lock.waitUntil({ cancels >= count }, timeout: timeout)
    }

    /// The resolvers of the promises not yet taken, in the order they were made.
    func takeAll() -> [Resolver<Value>] {
        lock.withLock {
            defer { resolvers = [] }
            return resolvers
        }
    }
}

/// Whether `result` is a failure by cancellation (`promise.cancel()` rejects the caller's promise
/// with `PromiseError.cancelled`).
func isCancelled<T>(_ result: Result<T, any Error>?) -> Bool {
    guard case .failure(let error)? = result else { return false }
    return isCancellation(error)
}
