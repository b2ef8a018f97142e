import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// A plugin that tells when requests start and stop using the network: for an activity
/// indicator, a "syncing…" label, or a check in a test that nothing is left on the wire
/// (Moya's `NetworkActivityPlugin`).
///
/// It comes in two forms:
///
/// - **Per attempt**, as in Moya: `.began` when an attempt is handed to the transport, `.ended`
///   when that attempt ended, with the endpoint. The closure runs on the thread that sent or
///   ended the attempt.
/// - **Busy or idle**: `true` when the first attempt starts, `false` when the last one ends,
///   run on the queue you name, in order. The count is kept for you, so the indicator is right
///   however many requests overlap.
///
/// ```swift
/// var configuration = NetworkClient.Configuration(baseURL: url)
/// configuration.plugins = [
///     NetworkActivityPlugin(queue: .mainActor) { isActive in
///         spinner.isHidden = !isActive
///     },
/// ]
/// ```
///
/// What counts: every attempt handed to the transport is one `.began` and exactly one `.ended`,
/// whether it answered, failed, timed out or was cancelled, so the busy form always returns to
/// idle. Between a failed attempt and its retry (the back-off) nothing is on the network; a
/// request held by ``NetworkClient/pause()`` or waiting for a token refresh has not begun. A
/// streamed response (``NetworkClient/stream(_:)``) ends when its head arrives, while its body
/// may still be arriving; an attempt that joins an identical one in flight
/// (``NetworkClient/Configuration/sharesIdenticalRequests``) counts as its own.
public struct NetworkActivityPlugin: RequestPlugin {
    /// What happened to an attempt.
    public enum Change: Sendable, Hashable {
        /// The attempt was handed to the transport.
        case began
        /// The attempt ended: answered, failed, timed out or cancelled.
        case ended
    }

    private let onChange: @Sendable (Change, any Endpoint) -> Void

    /// Creates a plugin that calls `networkActivityClosure` as each attempt begins and ends.
    ///
    /// ```swift
    /// let activity = NetworkActivityPlugin { change, endpoint in
    ///     if change == .began { Log.debug("→ \(endpoint.path)") }
    /// }
    /// ```
    ///
    /// Attempts overlap and end on other threads than they began on, so a closure that keeps a
    /// count must guard it with a lock, and may see an `.ended` before an overlapping attempt's
    /// `.began`. The busy-or-idle form, ``init(queue:isActive:)-(DispatchQueue,_)``, does
    /// that counting.
    ///
    /// - Parameter networkActivityClosure: Called with `.began` in
    ///   ``RequestPlugin/willSend(_:for:)`` and `.ended` in
    ///   ``RequestPlugin/didReceive(_:for:endpoint:)``, on the thread that calls them: keep it
    ///   short.
    public init(networkActivityClosure: @escaping @Sendable (Change, any Endpoint) -> Void) {
        onChange = networkActivityClosure
    }

    /// Creates a plugin that reports whether any attempt is on the network.
    ///
    /// `isActive(true)` runs when the first attempt begins and `isActive(false)` when the last
    /// one ends. Reports run on `queue`, one at a time and in order, and they alternate: never
    /// two `true` or two `false` in a row. Changes that come faster than `queue` runs them are
    /// folded together, so a request that ends while another begins does not flicker the
    /// indicator, and a burst that is over before `queue` gets to it may report nothing at all.
    ///
    /// The count belongs to the plugin: give the same plugin to several clients and it reports
    /// whether any of them is busy.
    ///
    /// - Parameters:
    ///   - queue: Where `isActive` runs.
    ///   - isActive: `true` when the network becomes busy, `false` when it becomes idle.
    public init(queue: DispatchQueue, isActive: @escaping @Sendable (Bool) -> Void) {
        let counter = ActivityCounter(queue: queue, report: isActive)
        onChange = { change, _ in counter.apply(change) }
    }

    /// ``init(queue:isActive:)-(DispatchQueue,_)`` with reports isolated to the main actor, so
    /// they may update main-actor state (a view, a view model) directly under Swift 6.
    ///
    /// ```swift
    /// NetworkActivityPlugin(queue: .mainActor) { isActive in
    ///     UIApplication.shared.isNetworkActivityIndicatorVisible = isActive
    /// }
    /// ```
    ///
    /// The main queue must be serviced (apps do; see `MainActorTarget`).
    ///
    /// - Parameters:
    ///   - queue: `.mainActor`.
    ///   - isActive: `true` when the network becomes busy, `false` when it becomes idle, on the
    ///     main queue.
    public init(queue: MainActorTarget, isActive: @escaping @MainActor (Bool) -> Void) {
        self.init(queue: .main) { active in MainActor.assumeIsolated { isActive(active) } }
    }

    /// Reports `.began` for the attempt about to go out.
    public func willSend(_ request: URLRequest, for endpoint: any Endpoint) {
        onChange(.began, endpoint)
    }

    /// Reports `.ended` for the attempt that ended.
    public func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint) {
        onChange(.ended, endpoint)
    }
}

/// Counts attempts on the network and reports busy/idle transitions on a queue.
///
/// At most one delivery block is queued or running at a time (`scheduled`); it reports until
/// what it last reported matches the count, so reports never overlap or arrive out of order,
/// even on a concurrent queue, and a change made while it runs is picked up by the same block.
/// After a few reports in a row it queues itself again instead of looping on, so traffic that
/// keeps flipping the state cannot hold its queue (the main queue, often).
final class ActivityCounter: Sendable {
    private struct State: Sendable {
        var active = 0
        var reported = false
        var scheduled = false
    }

    /// Reports one delivery block makes before it lets other work on its queue run.
    static let reportsPerTurn = 4

    private let state = Protected(State())
    private let queue: DispatchQueue
    private let report: @Sendable (Bool) -> Void

    init(queue: DispatchQueue, report: @escaping @Sendable (Bool) -> Void) {
        self.queue = queue
        self.report = report
    }

    /// Whether a delivery block is queued or running (for tests that wait for the last report).
    var hasDeliveryPending: Bool { state.withLock { $0.scheduled } }

    func apply(_ change: NetworkActivityPlugin.Change) {
        let schedule = state.withLock { state -> Bool in
            // Never below zero: an `.ended` without its `.began` (a plugin called by hand) would
            // otherwise make every later attempt count as idle.
            state.active = max(0, state.active + (change == .began ? 1 : -1))
            guard !state.scheduled, (state.active > 0) != state.reported else { return false }
            state.scheduled = true
            return true
        }
        if schedule { queue.async { self.deliver() } }
    }

    private func deliver() {
        for _ in 0..<Self.reportsPerTurn {
            guard let next = nextReport() else { return }
            report(next)
        }
        queue.async { self.deliver() }   // still `scheduled`: nobody else queues a block meanwhile
    }

    /// The report to make now, or `nil` (and no block scheduled any more) when the last one
    /// still holds.
    private func nextReport() -> Bool? {
        state.withLock { state in
            let busy = state.active > 0
            guard busy != state.reported else {
                state.scheduled = false
                return nil
            }
            state.reported = busy
            return busy
        }
    }
}
