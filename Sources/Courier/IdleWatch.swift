import Foundation

/// Ends an attempt on which nothing moved for a whole idle period (``Endpoint/idleTimeout``).
///
/// The transport's progress reports ``touch()`` it; a check every period compares the count of
/// reports with the one it saw last, and calls `onIdle` once when nothing came in between, so a
/// stall is noticed between one and two periods after the last report (exactly one period when
/// nothing was ever reported). No clock is read: the checks run on the client's scheduler, which a
/// `VirtualClock` drives in tests.
final class IdleWatch: Sendable {
    private struct State {
        var reports: UInt64 = 0
        var reportsSeen: UInt64 = 0
        var check: ScheduledWork?
        /// How many checks were scheduled, and which of them `check` is.
        var checksScheduled = 0
        var checkNumber = 0
        var stopped = false
    }

    private let state = Protected(State())
    private let period: TimeInterval
    private let scheduler: any RequestScheduler
    private let onIdle: @Sendable () -> Void

    /// - Parameters:
    ///   - period: Seconds without a report that count as a stall; finite and positive.
    ///   - onIdle: Runs at most once, on the scheduler's queue, when a stall is noticed.
    init(period: TimeInterval, scheduler: any RequestScheduler, onIdle: @escaping @Sendable () -> Void) {
        self.period = period
        self.scheduler = scheduler
        self.onIdle = onIdle
    }

    /// Something moved.
    func touch() {
        state.withLock { $0.reports &+= 1 }
    }

    /// Arms the next check, unless ``stop()`` came first.
    ///
    /// Each check arms the next from inside it, so a later number means the earlier check ran.
    /// A check may run before this call stores its handle (a short period on a busy machine, or a
    /// `VirtualClock` moved by another thread), and the check it arms then stores its handle
    /// first: the earlier, late handle must not replace it, or ``stop()`` would miss the pending one.
    func start() {
        let number = state.withLock { state -> Int? in
            guard !state.stopped else { return nil }
            state.checksScheduled += 1
            return state.checksScheduled
        }
        guard let number else { return }
        let check = scheduler.schedule(after: period) { [self] in checkIdle() }
        let kept = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            if number > state.checkNumber {
                state.check = check
                state.checkNumber = number
            }
            return true
        }
        if !kept { check.cancel() }
    }

    /// Stops the checks; `onIdle` will not run. Safe to call more than once, and before ``start()``.
    func stop() {
        let check = state.withLock { state -> ScheduledWork? in
            state.stopped = true
            defer { state.check = nil }
            return state.check
        }
        check?.cancel()
    }

    private func checkIdle() {
        let idle = state.withLock { state -> Bool? in
            guard !state.stopped else { return nil }
            if state.reports == state.reportsSeen {
                state.stopped = true
                return true
            }
            state.reportsSeen = state.reports
            return false
        }
        switch idle {
        case true?: onIdle()
        case false?: start()
        case nil: break
        }
    }
}
