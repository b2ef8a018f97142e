import Dispatch
import Promises

/// How far one request's transfer has come: bytes of the body sent, bytes of the response
/// received, and the totals when they are known.
///
/// Delivered to a ``ProgressHandler`` given to ``NetworkClient/request(_:progress:)`` (or the
/// `send` and completion-handler forms) as the transfer goes on.
///
/// ```swift
/// client.request(UploadPhoto(data: jpeg), progress: ProgressHandler(queue: .main) { progress in
///     bar.value = progress.sendFraction ?? 0
/// }).done(on: .main) { _ in
///     bar.isHidden = true
/// }
/// ```
///
/// A response sent compressed (`Content-Encoding: gzip`) has no known total: its
/// `Content-Length` counts compressed bytes, while ``bytesReceived`` counts the bytes as
/// delivered, after decompression.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes of the request body sent so far.
    public var bytesSent: Int64
    /// The size of the request body, or `nil` when the transport does not know it. `0` for a
    /// request without a body.
    public var totalBytesToSend: Int64?
    /// Bytes of the response body received so far.
    public var bytesReceived: Int64
    /// The size of the response body as the server declared it (`Content-Length`), or `nil`
    /// when it declared none (a chunked response).
    public var totalBytesToReceive: Int64?

    /// Creates a report (for transports and tests).
    ///
    /// - Parameters:
    ///   - bytesSent: Body bytes sent so far. Default: 0.
    ///   - totalBytesToSend: The body's size, `nil` if unknown. Default: `nil`.
    ///   - bytesReceived: Response bytes received so far. Default: 0.
    ///   - totalBytesToReceive: The response's declared size, `nil` if unknown. Default: `nil`.
    public init(
        bytesSent: Int64 = 0, totalBytesToSend: Int64? = nil,
        bytesReceived: Int64 = 0, totalBytesToReceive: Int64? = nil
    ) {
        self.bytesSent = bytesSent
        self.totalBytesToSend = totalBytesToSend
        self.bytesReceived = bytesReceived
        self.totalBytesToReceive = totalBytesToReceive
    }

    /// The share of the body sent, from 0 to 1 (1 for a request without a body), or `nil` while
    /// the body's size is unknown.
    public var sendFraction: Double? {
        Self.fraction(bytesSent, of: totalBytesToSend)
    }

    /// The share of the response received, from 0 to 1, or `nil` when the server declared no
    /// length.
    public var receiveFraction: Double? {
        Self.fraction(bytesReceived, of: totalBytesToReceive)
    }

    /// For example `sent 65536 of 3145728 bytes, received 0 bytes`.
    public var description: String {
        func amount(_ done: Int64, _ total: Int64?) -> String {
            total.map { "\(done) of \($0) bytes" } ?? "\(done) bytes"
        }
        return "sent \(amount(bytesSent, totalBytesToSend)), received \(amount(bytesReceived, totalBytesToReceive))"
    }

    private static func fraction(_ done: Int64, of total: Int64?) -> Double? {
        guard let total, total >= 0 else { return nil }
        guard total > 0 else { return 1 }
        return min(1, max(0, Double(done) / Double(total)))
    }
}

/// Where and how a request reports its ``TransferProgress``.
///
/// Reports arrive on `queue` while the request runs, in order, and are queued before the request
/// settles: on a serial queue that also runs the request's completion handler or promise handler
/// (the usual `.main`), every report runs before that handler, and `send(_:progress:)` returns
/// only after them. A request that is retried (or replayed after a credential refresh) reports
/// from zero again for each attempt, and so does an attempt whose request is sent again within
/// it (on Linux, a redirect that keeps its body, or a credential answered to a `Basic` challenge);
/// an abandoned attempt's late reports are dropped. Reports
/// are not guaranteed for every byte: a transport reports as often as its engine tells it
/// (`URLSessionTransport`: every chunk URLSession hands over; a stub: once, when it answers),
/// and when reports come faster than `queue` runs them, only the newest waiting one runs.
///
/// ```swift
/// let progress = ProgressHandler(queue: .main) { bar.value = $0.receiveFraction ?? 0 }
/// let file = try await client.send(DownloadReport(), progress: progress)
/// bar.isHidden = true   // after every report
/// ```
public struct ProgressHandler: Sendable {
    /// The queue reports run on; `nil`: the completion's queue (the call's `callbackQueue` when
    /// it names one), else the client's ``NetworkClient/Configuration/callbackQueue``.
    public let queue: DispatchQueue?
    /// Called with each report.
    public let report: @Sendable (TransferProgress) -> Void

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - queue: Where `report` runs. Default: `nil`, the call's or the client's `callbackQueue`.
    ///   - report: Called with each report.
    public init(queue: DispatchQueue? = nil, _ report: @escaping @Sendable (TransferProgress) -> Void) {
        self.queue = queue
        self.report = report
    }

    /// Creates a handler whose reports run on the main actor (see `MainActorTarget`), so that
    /// they may update main-actor state directly under Swift 6.
    ///
    /// ```swift
    /// let progress = ProgressHandler(queue: .mainActor) { self.progressBar.value = $0.receiveFraction ?? 0 }
    /// ```
    ///
    /// The resulting ``report`` must run on the main thread: the client calls it there; call it
    /// yourself only from the main thread too.
    ///
    /// - Parameters:
    ///   - queue: `.mainActor`.
    ///   - report: Called with each report, on the main queue.
    public init(queue: MainActorTarget, _ report: @escaping @MainActor (TransferProgress) -> Void) {
        self.init(queue: .main) { progress in MainActor.assumeIsolated { report(progress) } }
    }
}

/// Forwards a request's progress from its transport to the caller's ``ProgressHandler``: only
/// the current attempt's reports, only until the request settles, and coalesced (a report that
/// has not run yet is replaced by a newer one instead of queuing another block, so a fast
/// download does not flood a queue that other requests' handlers share).
final class ProgressRelay: Sendable {
    private struct State: Sendable {
        var attempt = 0
        var isFinished = false
        /// The newest report not yet handed to the handler; a block that will hand it over is
        /// queued whenever this is set.
        var pending: TransferProgress?
    }

    let queue: DispatchQueue
    private let report: @Sendable (TransferProgress) -> Void
    private let state = Protected(State())

    init(_ handler: ProgressHandler, defaultQueue: DispatchQueue) {
        queue = handler.queue ?? defaultQueue
        report = handler.report
    }

    /// Attempt `attempt` starts: later reports of earlier attempts are dropped, and one of
    /// theirs not yet handed over is discarded. A call for an attempt older than the current one
    /// (its thread was overtaken by a retry that began meanwhile) does nothing.
    func begin(attempt: Int) {
        state.withLock { state in
            guard attempt > state.attempt else { return }
            state.attempt = attempt
            state.pending = nil
        }
    }

    /// The closure a transport reports attempt `attempt`'s progress to.
    func reporter(forAttempt attempt: Int) -> @Sendable (TransferProgress) -> Void {
        { [self] progress in forward(progress, attempt: attempt) }
    }

    /// Queues `progress` for the handler, unless its attempt is over or the request settled.
    private func forward(_ progress: TransferProgress, attempt: Int) {
        let schedule = state.withLock { state -> Bool in
            guard !state.isFinished, state.attempt == attempt else { return false }
            defer { state.pending = progress }
            return state.pending == nil
        }
        if schedule { queue.async { [self] in handOver() } }
    }

    /// Runs on `queue`: gives the handler the newest report.
    private func handOver() {
        if let progress = state.withLock({ state -> TransferProgress? in
            defer { state.pending = nil }
            return state.pending
        }) {
            report(progress)
        }
    }

    /// Called when the request settles, before its outcome is delivered: no report is accepted
    /// after this. One already accepted is still handed over (its block is already queued).
    func finish() {
        state.withLock { $0.isFinished = true }
    }
}
