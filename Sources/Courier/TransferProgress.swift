import Dispatch

/// How far one request's transfer has come: bytes of the body sent, bytes of the response
/// received, and the totals when they are known.
///
/// Delivered to a ``ProgressHandler`` given to ``NetworkClient/request(_:progress:)`` (or the
/// `send` and completion-handler forms) as the transfer goes on.
///
/// ```swift
/// client.request(UploadPhoto(data: jpeg), progress: ProgressHandler(queue: .main) { progress in
///     bar.value = progress.sendFraction ?? 0
/// })
/// ```
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
/// Reports arrive on `queue` while the request runs, in order, and each one is queued before
/// the request settles: on a serial queue that also runs the request's completion handler or
/// promise handler (the usual `.main`), every report runs before that handler. A request that
/// is retried reports from zero again for each attempt. Reports are not guaranteed for every
/// byte: a transport reports as often as its engine tells it (`URLSessionTransport`: every
/// chunk URLSession hands over; a stub: once, when it answers).
///
/// ```swift
/// let progress = ProgressHandler(queue: .main) { print($0.receiveFraction ?? 0) }
/// let file = try await client.send(DownloadReport(), progress: progress)
/// ```
public struct ProgressHandler: Sendable {
    /// The queue reports run on; `nil`: the client's ``NetworkClient/Configuration/callbackQueue``.
    public let queue: DispatchQueue?
    /// Called with each report.
    public let report: @Sendable (TransferProgress) -> Void

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - queue: Where `report` runs. Default: `nil`, the client's `callbackQueue`.
    ///   - report: Called with each report.
    public init(queue: DispatchQueue? = nil, _ report: @escaping @Sendable (TransferProgress) -> Void) {
        self.queue = queue
        self.report = report
    }
}

/// Forwards a request's progress from its transport to the caller's ``ProgressHandler`` until
/// the request settles; reports after that are dropped.
final class ProgressRelay: Sendable {
    private let queue: DispatchQueue
    private let report: @Sendable (TransferProgress) -> Void
    private let isFinished = Protected(false)

    init(_ handler: ProgressHandler, defaultQueue: DispatchQueue) {
        queue = handler.queue ?? defaultQueue
        report = handler.report
    }

    /// Queues `progress` for the handler, unless the request has settled.
    func forward(_ progress: TransferProgress) {
        // Checked and queued under the lock, so no report is queued after `finish` returned.
        isFinished.withLock { finished in
            guard !finished else { return }
            let report = self.report
            queue.async { report(progress) }
        }
    }

    /// Called when the request settles, before its outcome is delivered.
    func finish() {
        isFinished.withLock { $0 = true }
    }
}
