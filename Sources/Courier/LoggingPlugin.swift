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
/// (see ``CurlCommand``), redacted the same way. With `options:`, request and response bodies
/// and response headers are logged too, redacted (see ``Options``).
///
/// ```swift
/// var configuration = NetworkClient.Configuration(baseURL: url)
/// configuration.plugins = [LoggingPlugin()]                        // print to stdout
/// configuration.plugins = [LoggingPlugin { logger.debug("\($0)") }] // or your logger
/// configuration.plugins = [LoggingPlugin(format: .curl)]           // requests as curl commands
/// configuration.plugins = [LoggingPlugin(options: .verbose)]        // bodies and headers too
/// ```
public struct LoggingPlugin: RequestPlugin {
    /// How an outgoing request is logged.
    public enum Format: Sendable {
        /// One line: method, URL, headers and body size (the default).
        case summary
        /// A `curl` command that repeats the request; see ``CurlCommand``.
        case curl
    }

    /// What is logged beyond the summary lines (Moya's `NetworkLoggerPlugin` log options).
    ///
    /// Bodies are shown as ``CurlCommand`` shows them: JSON and URL-encoded forms of at most
    /// ``CurlCommand/maximumPrintedBodySize`` bytes, with credential-named members and fields
    /// redacted (and JSON string values read as text: a link's `access_token`, JSON kept in a
    /// string); any other body (text, HTML, binary, a file or stream) as a placeholder with its
    /// size and type, since it could hold a secret the redaction cannot recognise.
    public struct Options: OptionSet, Sendable {
        /// The options as bits.
        public let rawValue: Int

        /// Creates a set of options from its raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// An indented `body:` line under the outgoing line (not with ``Format/curl``, which
        /// already shows the body).
        public static let requestBody = Options(rawValue: 1 << 0)
        /// An indented `headers:` line under the response line, credentials redacted.
        public static let responseHeaders = Options(rawValue: 1 << 1)
        /// An indented `body:` line under a response the endpoint accepts (a `2xx`).
        public static let successResponseBody = Options(rawValue: 1 << 2)
        /// An indented `body:` line under an error response (a `4xx`, a `5xx`, any status the
        /// endpoint does not accept), whose body usually says what went wrong.
        public static let errorResponseBody = Options(rawValue: 1 << 3)
        /// Everything above.
        public static let verbose: Options = [.requestBody, .responseHeaders, .successResponseBody, .errorResponseBody]
    }

    private let format: Format
    private let options: Options
    private let log: @Sendable (String) -> Void
    private let clock: @Sendable () -> UInt64
    private let starts = StartTimes()

    /// Creates a logging plugin.
    ///
    /// ```swift
    /// LoggingPlugin(options: .errorResponseBody)   // what the server said when it refused
    /// LoggingPlugin(options: .verbose)             // bodies and response headers too
    /// ```
    ///
    /// - Parameters:
    ///   - format: How outgoing requests are logged. Default: ``Format/summary``.
    ///   - options: What is logged beyond the summary lines. Default: none.
    ///   - log: Receives each line. Default: `print`.
    public init(format: Format = .summary, options: Options = [], log: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.init(format: format, options: options, log: log, clock: { DispatchTime.now().uptimeNanoseconds })
    }

    /// Creates a logging plugin with an injected monotonic clock in nanoseconds, for tests.
    init(
        format: Format = .summary, options: Options = [], log: @escaping @Sendable (String) -> Void,
        clock: @escaping @Sendable () -> UInt64
    ) {
        self.format = format
        self.options = options
        self.log = { line in log(Redaction.scrub(line)) }
        self.clock = clock
    }

    /// Records the start time and logs `→ METHOD URL [headers]` (or `→ curl …`).
    public func willSend(_ request: URLRequest) {
        starts.push(clock(), for: Self.key(of: request))
        switch format {
        case .summary:
            log("→ " + Redaction.describe(request))
            if options.contains(.requestBody), let body = Self.requestBody(of: request) { log("  body: " + body) }
        case .curl:
            log("→ " + CurlCommand.string(for: request))
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
            logDetails(of: response, bodyOption: .successResponseBody)
        case .failure(let error):
            let elapsed = timing.isEmpty ? "" : " (\(timing.joined(separator: ", ")))"
            log("← failed \(method) \(url)\(elapsed): \(error.description)")
            if let response = error.response { logDetails(of: response, bodyOption: .errorResponseBody) }
        }
    }

    /// The indented `headers:` and `body:` lines under a response line, as `options` asks.
    private func logDetails(of response: HTTPResponse, bodyOption: Options) {
        if options.contains(.responseHeaders), !response.headers.isEmpty {
            log("  headers: " + Redaction.describe(headers: response.headers))
        }
        if options.contains(bodyOption) {
            if let file = response.bodyFileURL {
                log("  body: <in a file, \(Self.fileSize(file)) bytes>")
            } else if !response.body.isEmpty {
                log("  body: " + CurlCommand.printable(response.body, contentType: response.header("Content-Type")))
            }
        }
    }

    /// The body of an outgoing request as it can be shown, or `nil` when it has none.
    private static func requestBody(of request: URLRequest) -> String? {
        if let body = request.httpBody, !body.isEmpty {
            return CurlCommand.printable(body, contentType: request.value(forHTTPHeaderField: "Content-Type"))
        }
        return request.httpBodyStream == nil ? nil : "<streamed, not shown>"
    }

    private static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
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
