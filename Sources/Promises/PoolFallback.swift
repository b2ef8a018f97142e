import Dispatch

/// Runs work as soon as possible, even while every thread of the global pool is blocked.
///
/// The work goes to the global queue, as any work does; if no thread of the pool has taken it
/// within a short grace period, one of a few serial queues of this module's runs it instead
/// (a serial queue gets a thread of its own even then). Whichever comes first runs it; the other
/// finds nothing left to do. A new queue for each piece of work would get a thread at once too,
/// but a burst of time-outs would then ask for hundreds of threads (libdispatch's limit on Linux
/// is 255, and once it is reached no serial queue in the process gets a thread); the lanes bound
/// the extra threads to ``laneCount``, and the global pool keeps absorbing slow work (a blocking
/// `onCancel` hook) as before.
package enum PoolFallback {
    /// How long the global queue has before a lane runs the work.
    static let grace: DispatchTimeInterval = .milliseconds(20)
    /// How many serial queues stand by.
    static let laneCount = 4
    private static let lanes = (0..<laneCount).map { DispatchQueue(label: "Promises.PoolFallback.\($0)") }

    /// Runs `work` once: on the global queue, or on a lane when the pool is blocked.
    package static func run(_ work: @escaping @Sendable () -> Void) {
        let once = OnceWork(work)
        DispatchQueue.global().async { once.run() }
        // Spread over the lanes by the work's address, so that no shared counter is contended.
        let lane = lanes[Int(UInt(bitPattern: ObjectIdentifier(once).hashValue) >> 4 % UInt(laneCount))]
        lane.asyncAfter(deadline: .now() + grace) { once.run() }
    }
}

/// A piece of work that runs at most once, whichever of its callers comes first.
// @unchecked: the only state, `work`, is reached only through `Locked.withLock`; `Locked`, the
// module's lock-box, does not declare `Sendable` itself.
private final class OnceWork: @unchecked Sendable {
    private let work: Locked<(@Sendable () -> Void)?>

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = Locked(work)
    }

    func run() {
        let taken = work.withLock { work -> (@Sendable () -> Void)? in
            defer { work = nil }
            return work
        }
        taken?()
    }
}
