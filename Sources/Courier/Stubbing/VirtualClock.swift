import Foundation

/// A clock that only moves when a test advances it, for stub delays, request deadlines and
/// retry pauses that take no wall-clock time and always fire in the same order.
///
/// ```swift
/// let clock = VirtualClock()
/// let client = NetworkClient.stubbing().delay(2).clock(clock).makeClient()
/// let promise = client.request(SlowEndpoint())          // timeout 0.5 s
/// clock.waitUntilPending(atLeast: 2)                    // its deadline and the stub's delay
/// clock.advance(by: 0.5)                                // the deadline fires: .timedOut
/// ```
///
/// Work scheduled with no delay (an immediate stub) still runs asynchronously, on a global
/// queue, without waiting for ``advance(by:)``. Work scheduled for later runs inside
/// ``advance(by:)``, on the caller's thread, in time order (ties in scheduling order).
///
/// `@unchecked Sendable`: all mutable state is guarded by `condition`.
public final class VirtualClock: RequestScheduler, @unchecked Sendable {
    private struct Item {
        let id: UInt64
        let due: TimeInterval
        let work: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private var current: TimeInterval = 0
    private var items: [Item] = []
    private var nextID: UInt64 = 0

    /// Creates a clock at virtual time zero.
    public init() {}

    /// The virtual time, in seconds since the clock was created.
    public var now: TimeInterval {
        condition.lock()
        defer { condition.unlock() }
        return current
    }

    /// How many pieces of work are waiting for the clock to reach their time.
    public var pendingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count
    }

    /// The virtual time at which the earliest scheduled work falls due, or `nil` when none is scheduled.
    public var nextDueTime: TimeInterval? {
        condition.lock()
        defer { condition.unlock() }
        return items.map(\.due).min()
    }

    /// Schedules `work` at `now + delay`; with a delay of zero or less (or NaN) it runs at once,
    /// asynchronously; with `.infinity` (or more than about 30 years) it never runs and nothing is
    /// kept, as with ``DispatchScheduler``.
    @discardableResult
    public func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        guard !(delay > DispatchScheduler.longestDelay) else { return ScheduledWork {} }
        guard delay > 0 else {
            let cancelled = CancelFlag()
            DispatchQueue.global().async { if !cancelled.isSet { work() } }
            return ScheduledWork(onCancel: { cancelled.set() })
        }
        condition.lock()
        nextID += 1
        let id = nextID
        items.append(Item(id: id, due: current + delay, work: work))
        condition.broadcast()
        condition.unlock()
        return ScheduledWork(onCancel: { [weak self] in self?.remove(id) })
    }

    /// Moves virtual time forward by `interval`, running every piece of work that falls due, in
    /// time order, on the calling thread. Work scheduled while advancing runs too if it falls due
    /// within the interval. A negative or NaN interval moves nothing; one beyond about 30 years
    /// moves 30 years (so the clock never reaches infinity and keeps its order).
    public func advance(by interval: TimeInterval) {
        let step = interval.isNaN ? 0 : min(max(0, interval), DispatchScheduler.longestDelay)
        condition.lock()
        let target = current + step
        condition.unlock()
        while let item = takeNext(dueBy: target) { item.work() }
        condition.lock()
        current = max(current, target)
        condition.unlock()
    }

    /// Blocks until at least `count` pieces of work are scheduled, or `timeout` real seconds pass.
    /// Use it before ``advance(by:)`` when the work is scheduled from another thread (a request's
    /// deadline and its stub's delay are scheduled as the request travels the pipeline).
    ///
    /// - Returns: `true` when the work is there, `false` on timeout.
    @discardableResult
    public func waitUntilPending(atLeast count: Int, timeout: TimeInterval = 5) -> Bool {
        condition.waitUntil({ items.count >= count }, timeout: timeout)
    }

    /// Blocks until at most `count` pieces of work are scheduled, or `timeout` real seconds pass.
    /// Cancelled work leaves the clock on the thread that cancels it, which may be a moment after
    /// the request it belonged to settled: wait for `atMost: 0` before checking that nothing is
    /// left behind.
    ///
    /// ```swift
    /// client.cancelAll()
    /// XCTAssertTrue(clock.waitUntilPending(atMost: 0))   // deadlines and stub delays are gone
    /// ```
    ///
    /// - Returns: `true` when no more than `count` are left, `false` on timeout.
    @discardableResult
    public func waitUntilPending(atMost count: Int, timeout: TimeInterval = 5) -> Bool {
        condition.waitUntil({ items.count <= count }, timeout: timeout)
    }

    /// Blocks until some work is scheduled to fall due at virtual time `due` (within a
    /// microsecond), or `timeout` real seconds pass: for telling one timer from another, such as
    /// a retry's back-off from the request's deadline.
    ///
    /// ```swift
    /// // RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(5), jitter: 0)
    /// XCTAssertTrue(clock.waitUntilPending(dueAt: clock.now + 5))   // the retry is scheduled
    /// ```
    ///
    /// - Returns: `true` when such work is there, `false` on timeout.
    @discardableResult
    public func waitUntilPending(dueAt due: TimeInterval, timeout: TimeInterval = 5) -> Bool {
        condition.waitUntil({ items.contains { abs($0.due - due) < 1e-6 } }, timeout: timeout)
    }

    private func takeNext(dueBy target: TimeInterval) -> Item? {
        condition.lock()
        defer { condition.unlock() }
        guard let index = items.indices.min(by: { (items[$0].due, items[$0].id) < (items[$1].due, items[$1].id) }),
            items[index].due <= target
        else { return nil }
        let item = items.remove(at: index)
        current = max(current, item.due)
        condition.broadcast()
        return item
    }

    private func remove(_ id: UInt64) {
        condition.lock()
        items.removeAll { $0.id == id }
        condition.broadcast()
        condition.unlock()
    }
}

/// A one-way flag, set from any thread.
///
/// `@unchecked Sendable`: the flag is only touched under its lock.
final class CancelFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}
