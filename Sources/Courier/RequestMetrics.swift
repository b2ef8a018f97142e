import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long one request took from the call to its result, and where the time went: held in the
/// queue, on the transport, decoding. Plugins receive it once per request in
/// ``RequestPlugin/didFinish(_:for:endpoint:metrics:)`` (Alamofire's
/// `EventMonitor.request(_:didFinishCollecting:)`, Get's task metrics).
///
/// ```swift
/// struct SlowRequestReporter: RequestPlugin {
///     func didFinish(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest,
///                    endpoint: any Endpoint, metrics: RequestMetrics) {
///         if metrics.totalDuration > 2 { Analytics.slow(endpoint.path, metrics.description) }
///     }
/// }
/// ```
///
/// Durations are measured with the system's monotonic clock, or in virtual time when the client's
/// ``NetworkClient/Configuration/scheduler`` is a ``VirtualClock`` (so tests can assert exact
/// figures). The parts add up to at most ``totalDuration``; what is left over is
/// ``otherDuration``.
public struct RequestMetrics: Sendable, Equatable {
    /// When the request was started (the `request`, `send` or `download` call), by the wall clock.
    public var startDate: Date
    /// From the call to the result being handed over, retries, waits and decoding included.
    public var totalDuration: TimeInterval
    /// Time spent held at the client's queue before each attempt left it, summed over attempts:
    /// while the client was paused (``NetworkClient/pause()``), which includes a credential
    /// refresh that another request started. A request's own wait for a refresh (after its `401`,
    /// or before sending because its token was about to expire) is ``otherDuration``.
    public var queuedDuration: TimeInterval
    /// Time from each attempt leaving the queue until the transport answered, failed or the
    /// attempt was abandoned (timed out, cancelled), summed over attempts. It includes applying
    /// the credential and the plugins' `prepare`, which are usually negligible.
    public var transportDuration: TimeInterval
    /// Time spent turning the final response into the caller's `Response` type (`JSONDecoder`,
    /// ``JSON`` parsing, text; for a download, moving the file to its destination); close to 0
    /// for a response passed on as it is (``HTTPResponse``), 0 when the request failed first.
    public var decodingDuration: TimeInterval
    /// How many attempts were handed to the transport: 1 for a request answered at the first try,
    /// more after retries (``RetryPolicy``) and a replay after a refreshed credential, 0 for a
    /// request that ended before any was sent (cancelled or timed out while held, refused). An
    /// attempt that joined an identical one in flight
    /// (``NetworkClient/Configuration/sharesIdenticalRequests``) counts as handed over.
    public var attemptCount: Int

    /// Creates metrics, for testing plugins of your own.
    ///
    /// - Parameters:
    ///   - startDate: When the request started.
    ///   - totalDuration: From start to result, in seconds.
    ///   - queuedDuration: Held at the queue; default 0.
    ///   - transportDuration: On the transport; default 0.
    ///   - decodingDuration: Decoding; default 0.
    ///   - attemptCount: Attempts handed to the transport (one that joined a shared exchange
    ///     counts); default 1.
    public init(
        startDate: Date, totalDuration: TimeInterval, queuedDuration: TimeInterval = 0,
        transportDuration: TimeInterval = 0, decodingDuration: TimeInterval = 0, attemptCount: Int = 1
    ) {
        self.startDate = startDate
        self.totalDuration = totalDuration
        self.queuedDuration = queuedDuration
        self.transportDuration = transportDuration
        self.decodingDuration = decodingDuration
        self.attemptCount = attemptCount
    }

    /// The time not spent queued, on the transport or decoding: waits between attempts (a retry's
    /// back-off, a credential refresh after a `401`), a wait for a refresh before sending, writing
    /// a multipart form's files to disk, plugins and the pipeline's own work.
    public var otherDuration: TimeInterval {
        max(0, totalDuration - queuedDuration - transportDuration - decodingDuration)
    }
}

extension RequestMetrics: CustomStringConvertible {
    /// A one-line summary in milliseconds, e.g. `1250 ms in all: 2 attempts, 800 ms queued,
    /// 300 ms on the transport, 2 ms decoding`.
    public var description: String {
        "\(Self.milliseconds(totalDuration)) in all: \(attemptsText), \(Self.milliseconds(queuedDuration)) queued, "
            + "\(Self.milliseconds(transportDuration)) on the transport, \(Self.milliseconds(decodingDuration)) decoding"
    }

    /// `1 attempt`, `3 attempts`.
    var attemptsText: String {
        attemptCount == 1 ? "1 attempt" : "\(attemptCount) attempts"
    }

    static func milliseconds(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0 ms" }
        return "\(Int((seconds * 1000).rounded())) ms"
    }
}

/// The clock ``RequestMetrics`` are measured with: the system's monotonic clock, or a test's
/// ``VirtualClock`` when it is the client's scheduler.
enum MetricsClock: Sendable {
    case system
    case virtual(VirtualClock)

    init(for scheduler: any RequestScheduler) {
        if let clock = scheduler as? VirtualClock { self = .virtual(clock) } else { self = .system }
    }

    /// Seconds from an origin of the clock's choosing.
    var now: TimeInterval {
        switch self {
        case .system: return Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        case .virtual(let clock): return clock.now
        }
    }
}

/// Where a request's time goes while it runs (see ``RequestMetrics``). Allocated only for a
/// client with plugins, so that other requests' state stays small; updated at each change of
/// phase with times read from its ``MetricsClock`` before the lock is taken.
///
/// `@unchecked Sendable`: its properties are read and written only while the lock of the
/// request's `RequestState` (which holds the only reference) is held.
final class RequestTimeline: @unchecked Sendable {
    /// What the request is doing since ``mark``.
    enum Stage {
        case queued, onTransport, elsewhere
    }

    let start: TimeInterval
    let startDate: Date
    /// The last request handed to the transport, for ``RequestPlugin/didFinish(_:for:endpoint:metrics:)``.
    private(set) var lastRequest: URLRequest?
    private var mark: TimeInterval
    private var stage = Stage.elsewhere
    private var queued: TimeInterval = 0
    private var transport: TimeInterval = 0
    private var attempts = 0

    init(start: TimeInterval) {
        self.start = start
        self.startDate = Date()
        self.mark = start
    }

    /// An attempt starts waiting at the queue.
    func enterQueue(at now: TimeInterval) {
        enter(.queued, at: now)
    }

    /// An attempt left the queue: it is being prepared for the transport.
    func leaveQueue(at now: TimeInterval) {
        enter(.onTransport, at: now)
    }

    /// The attempt is handed to the transport as `request`: it counts.
    func send(_ request: URLRequest) {
        lastRequest = request
        attempts += 1
    }

    /// The current attempt's exchange ended (answered, abandoned, waiting to retry), or the attempt
    /// stopped before it was sent (it waits for a credential refresh first).
    func endExchange(at now: TimeInterval) {
        enter(.elsewhere, at: now)
    }

    /// The figures at `now`, the request's end; the current stage counts up to `now`.
    func metrics(at now: TimeInterval, decoding: TimeInterval) -> RequestMetrics {
        let open = max(0, now - mark)
        return RequestMetrics(
            startDate: startDate, totalDuration: max(0, now - start),
            queuedDuration: queued + (stage == .queued ? open : 0),
            transportDuration: transport + (stage == .onTransport ? open : 0),
            decodingDuration: max(0, decoding), attemptCount: attempts)
    }

    private func enter(_ next: Stage, at now: TimeInterval) {
        let elapsed = max(0, now - mark)
        switch stage {
        case .queued: queued += elapsed
        case .onTransport: transport += elapsed
        case .elsewhere: break
        }
        stage = next
        mark = max(mark, now)
    }
}
