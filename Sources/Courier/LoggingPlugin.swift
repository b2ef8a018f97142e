import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plugin that logs one line when a request goes out and one when it ends, with secrets redacted.
///
/// ```
/// → GET https://api.example.com/me?token=<redacted> [Accept: application/json, Authorization: <redacted>]
/// ← 200 OK GET https://api.example.com/me?token=<redacted> (12 ms, 512 bytes)
/// ← failed GET https://api.example.com/me?token=<redacted> (30001 ms): The request timed out.
/// ```
///
/// A closing line says what the caller got when that is not already the last line: a success
/// after several attempts, any failure, and a request that ended before it was ever sent
/// (see ``didFinish(_:for:endpoint:metrics:)``):
///
/// ```
/// ✓ 200 OK GET https://api.example.com/feed after 3 attempts (2345 ms in all)
/// ✗ failed GET https://api.example.com/me after 1 attempt (14 ms in all): Could not decode the response to …
/// ✗ GET https://api.example.com/feed never sent (5000 ms queued): The request timed out.
/// ```
///
/// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and token-like headers and query
/// items are printed as `<redacted>`.
///
/// Timing: `willSend` records the start time under the request's method and URL; `didReceive` takes the
/// oldest start recorded under the same method and URL (so concurrent identical requests are paired
/// first-in, first-out). Starts that never see a `didReceive` are bounded: at most 64 per method and URL
/// and 1 024 keys are kept, the oldest being dropped first.
///
/// With `format: .curl`, the outgoing line is a `curl` command that repeats the request instead
/// (see ``CurlCommand``), redacted the same way.
///
/// ```swift
/// var configuration = NetworkClient.Configuration(baseURL: url)
/// configuration.plugins = [LoggingPlugin()]                        // print to stdout
/// configuration.plugins = [LoggingPlugin { logger.debug("\($0)") }] // or your logger
/// configuration.plugins = [LoggingPlugin(format: .curl)]           // requests as curl commands
/// ```
public struct LoggingPlugin: RequestPlugin {
    /// How an outgoing request is logged.
    public enum Format: Sendable {
        /// One line: method, URL, headers and body size (the default).
        case summary
        /// A `curl` command that repeats the request; see ``CurlCommand``.
        case curl
    }

    private let format: Format
    private let log: @Sendable (String) -> Void
    private let clock: @Sendable () -> UInt64
    private let starts = StartTimes()

    /// Creates a logging plugin.
    ///
    /// - Parameters:
    ///   - format: How outgoing requests are logged. Default: ``Format/summary``.
    ///   - log: Receives each line. Default: `print`.
    public init(format: Format = .summary, log: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.init(format: format, log: log, clock: { DispatchTime.now().uptimeNanoseconds })
    }

    /// Creates a logging plugin with an injected monotonic clock in nanoseconds, for tests.
    init(format: Format = .summary, log: @escaping @Sendable (String) -> Void, clock: @escaping @Sendable () -> UInt64) {
        self.format = format
        self.log = { line in log(Redaction.scrub(line)) }
        self.clock = clock
    }

    /// Records the start time and logs `→ METHOD URL [headers]` (or `→ curl …`).
    public func willSend(_ request: URLRequest) {
        starts.push(clock(), for: Self.key(of: request))
        switch format {
        case .summary: log("→ " + Redaction.describe(request))
        case .curl: log("→ " + CurlCommand.string(for: request))
        }
    }

    /// Logs `← STATUS METHOD URL (elapsed ms, size)` or `← failed METHOD URL (elapsed ms): error`.
    public func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {
        let (method, url) = Self.methodAndURL(of: request)
        var timing: [String] = []
        if let start = starts.pop(for: Self.key(of: request)) {
            let now = clock()
            let elapsed = now >= start ? Double(now - start) / 1_000_000 : 0
            timing.append("\(Int(elapsed.rounded())) ms")
        }
        switch result {
        case .success(let response):
            timing.append("\(response.body.count) bytes")
            log("← \(Self.status(of: response)) \(method) \(url) (\(timing.joined(separator: ", ")))")
        case .failure(let error):
            let elapsed = timing.isEmpty ? "" : " (\(timing.joined(separator: ", ")))"
            log("← failed \(method) \(url)\(elapsed): \(error.description)")
        }
    }

    /// Logs a closing line with what the caller gets, unless the request succeeded at its first
    /// attempt (its `←` line says it all): for a success after several attempts (retries, a replay
    /// after a refreshed credential), `✓ 200 OK GET URL after 3 attempts (2345 ms in all)`; for
    /// every failure, which may differ from what its last attempt reported (a `200` that failed to
    /// decode, a cancellation while waiting to retry), `✗ failed GET URL after 1 attempt (12 ms in
    /// all): …`; and for a request that ended before any attempt was sent (cancelled or timed out
    /// while held, refused), `✗ GET URL never sent (5000 ms queued): …`.
    public func didFinish(
        _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint,
        metrics: RequestMetrics
    ) {
        let (method, url) = Self.methodAndURL(of: request)
        let total = RequestMetrics.milliseconds(metrics.totalDuration)
        let attempts = metrics.attemptsText
        switch result {
        case .success(let response):
            guard metrics.attemptCount > 1 else { return }
            log("✓ \(Self.status(of: response)) \(method) \(url) after \(attempts) (\(total) in all)")
        case .failure(let error) where metrics.attemptCount == 0:
            let queued = RequestMetrics.milliseconds(metrics.queuedDuration)
            log("✗ \(method) \(url) never sent (\(queued) queued): \(error.description)")
        case .failure(let error):
            log("✗ failed \(method) \(url) after \(attempts) (\(total) in all): \(error.description)")
        }
    }

    /// The method and the redacted URL of a logged request.
    private static func methodAndURL(of request: URLRequest) -> (method: String, url: String) {
        (request.httpMethod ?? "GET", request.url.map(Redaction.redact) ?? "<no URL>")
    }

    /// `200 OK`: the status code and its reason phrase, when it has one.
    private static func status(of response: HTTPResponse) -> String {
        HTTPResponse.reasonPhrase(for: response.statusCode).map { "\(response.statusCode) \($0)" } ?? "\(response.statusCode)"
    }

    private static func key(of request: URLRequest) -> String {
        (request.httpMethod ?? "GET") + " " + (request.url?.absoluteString ?? "")
    }
}

/// Start times of requests in flight, keyed by method and URL, oldest first.
// @unchecked: `times` is only read or written while `lock` is held.
private final class StartTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [String: [UInt64]] = [:]
    private var keyOrder: [String] = []
    private let maximumPerKey = 64
    private let maximumKeys = 1_024

    func push(_ time: UInt64, for key: String) {
        lock.lock()
        defer { lock.unlock() }
        if times[key] == nil {
            if keyOrder.count >= maximumKeys {
                let oldest = keyOrder.removeFirst()
                times[oldest] = nil
            }
            keyOrder.append(key)
        }
        var list = times[key] ?? []
        if list.count >= maximumPerKey { list.removeFirst() }
        list.append(time)
        times[key] = list
    }

    func pop(for key: String) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        guard var list = times[key], !list.isEmpty else { return nil }
        let first = list.removeFirst()
        if list.isEmpty {
            times[key] = nil
            keyOrder.removeAll { $0 == key }
        } else {
            times[key] = list
        }
        return first
    }
}
