import Foundation
import Promises

/// Pending promises a test double hands out and keeps (so they never settle by themselves),
/// counting how many were cancelled: the adapters and retriers that "never answer".
// @unchecked: `resolvers` and `cancels` are only touched while holding `lock`.
final class HeldPromises<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var resolvers: [Resolver<Value>] = []
    private var made = 0
    private var cancels = 0

    /// A new pending promise, kept until ``takeAll()``; its cancellation is counted.
    func make() -> Promise<Value> {
        let (promise, resolver) = Promise<Value>.pending()
        resolver.onCancel { [self] in lock.withLock { cancels += 1 } }
        lock.withLock {
            made += 1
            resolvers.append(resolver)
        }
        return promise
    }

    /// How many promises were made, and how many of them were cancelled.
    var counts: (held: Int, cancelled: Int) { lock.withLock { (made, cancels) } }

    var cancelCount: Int { counts.cancelled }

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
