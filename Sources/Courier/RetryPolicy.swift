import Foundation

/// When and how soon a failed request is sent again.
///
/// By default a policy retries only idempotent methods (`GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE`),
/// and only after a timeout, a `408`, `429`, `502`, `503` or `504` response, or a transport error that
/// another try may not meet: a dropped or refused connection, a failed DNS lookup, no network (see
/// ``defaultRetryableURLErrorCodes``). It never retries a cancellation, any other `4xx`, a decoding
/// failure, an invalid request, or a `URLError` that would only repeat itself: an untrusted
/// certificate, a malformed or unsupported URL, a redirect loop.
///
/// The wait before retry *n* (1-based) is `delayBeforeRetry × backoffMultiplier^(n-1)`, spread by ±`jitter`
/// and capped at `maximumDelay`. A `Retry-After` header (seconds or an HTTP date) on the failed response
/// replaces that computation, still capped at `maximumDelay`.
///
/// ```swift
/// struct Feed: Endpoint {
///     var path: String { "feed" }
///     var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(500)) }
/// }
/// // waits ≈0.5 s, ≈1 s, ≈2 s before the three retries
/// ```
public struct RetryPolicy: Sendable {
    /// How many times a request may be retried: it is sent at most `1 + maximumRetryCount` times.
    public let maximumRetryCount: Int
    /// The wait before the first retry.
    public let delayBeforeRetry: DispatchTimeInterval
    /// Each further retry waits this many times longer than the one before.
    public let backoffMultiplier: Double
    /// No wait is longer than this many seconds, whatever the backoff or `Retry-After` say.
    public let maximumDelay: TimeInterval
    /// The fraction (`0...1`) by which each wait is randomly lengthened or shortened, e.g. `0.2` for ±20 %.
    public let jitter: Double
    /// The response statuses that are worth retrying.
    public let retryableStatusCodes: Set<Int>
    /// The methods that may be retried at all.
    public let retryableMethods: Set<HTTPMethod>
    /// The `URLError` codes worth retrying, for a ``NetworkError/transport(underlying:)`` whose
    /// error is a `URLError` (or an `NSError` in `NSURLErrorDomain`). A transport error of another
    /// kind (a custom transport's) is always worth retrying.
    public let retryableURLErrorCodes: Set<URLError.Code>
    /// Your own rule for which failures are worth retrying, or `nil` for the built-in one (see
    /// ``shouldRetry(_:method:)``). It replaces the status and error-kind rules; the method rule
    /// still applies, and a cancellation is never retried.
    public let isRetryable: (@Sendable (NetworkError) -> Bool)?

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - maximumRetryCount: retries allowed after the first attempt; negative values count as `0`.
    ///   - delayBeforeRetry: the wait before the first retry.
    ///   - backoffMultiplier: growth of the wait per retry; default `2`. Use `1` for a constant wait.
    ///   - maximumDelay: the cap on every wait, in seconds; default `30`.
    ///   - jitter: the random spread of each wait, `0...1`; default `0.2` (±20 %).
    ///   - retryableStatusCodes: statuses worth retrying; default `[408, 429, 502, 503, 504]`.
    ///   - retryableMethods: methods that may be retried; default the idempotent ones,
    ///     ``HTTPMethod/idempotentMethods``. Add `.post` only when your server de-duplicates.
    ///   - retryableURLErrorCodes: the `URLError` codes worth retrying; default
    ///     ``defaultRetryableURLErrorCodes`` (connection and DNS failures, not certificate or URL errors).
    ///   - isRetryable: your own rule for which errors to retry, replacing
    ///     `retryableStatusCodes` and the error-kind rules; default `nil`, the built-in rule.
    ///     For example, retry a `500` only when the server's metadata says the failure is temporary:
    ///
    ///     ```swift
    ///     RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .seconds(1)) { error in
    ///         error.metadata?.status == "TEMPORARILY_UNAVAILABLE"
    ///     }
    ///     ```
    public init(
        maximumRetryCount: Int,
        delayBeforeRetry: DispatchTimeInterval,
        backoffMultiplier: Double = 2,
        maximumDelay: TimeInterval = 30,
        jitter: Double = 0.2,
        retryableStatusCodes: Set<Int> = [408, 429, 502, 503, 504],
        retryableMethods: Set<HTTPMethod> = HTTPMethod.idempotentMethods,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes,
        isRetryable: (@Sendable (NetworkError) -> Bool)? = nil
    ) {
        self.maximumRetryCount = max(0, maximumRetryCount)
        self.delayBeforeRetry = delayBeforeRetry
        self.backoffMultiplier = backoffMultiplier.isFinite && backoffMultiplier > 0 ? backoffMultiplier : 1
        self.maximumDelay = maximumDelay.isNaN ? 0 : max(0, maximumDelay)
        self.jitter = jitter.isFinite ? min(max(jitter, 0), 1) : 0
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableMethods = retryableMethods
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.isRetryable = isRetryable
    }

    /// The `URLError` codes a policy retries by default: failures a later try may not meet.
    ///
    /// The connection was refused, dropped or never made (`cannotConnectToHost`,
    /// `networkConnectionLost`, `notConnectedToInternet`, `cannotFindHost`, `dnsLookupFailed`,
    /// `cannotLoadFromNetwork`, `timedOut`, `callIsActive`, `dataNotAllowed`,
    /// `internationalRoamingOff`, the background-session codes), the server's answer was cut
    /// short or garbled in transit (`badServerResponse`, `downloadDecodingFailedMidStream`,
    /// `downloadDecodingFailedToComplete`), or a secure connection failed in a way the clock or a
    /// new handshake can fix (`secureConnectionFailed`, `serverCertificateHasBadDate`,
    /// `serverCertificateNotYetValid`), or failed for no stated reason (`unknown`: FoundationNetworking
    /// on Linux reports a connection dropped in the middle of a body with it). Not included,
    /// because another try meets the same answer:
    /// `badURL`, `unsupportedURL`, `serverCertificateUntrusted`, `serverCertificateHasUnknownRoot`,
    /// `clientCertificateRejected`, `httpTooManyRedirects`, `redirectToNonExistentLocation`,
    /// `cannotDecodeContentData`, `dataLengthExceedsMaximum`, `userAuthenticationRequired`
    /// and the rest. The list is Alamofire's `RetryPolicy` default plus `unknown`.
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse,
        .callIsActive, .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed,
        .dnsLookupFailed, .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete,
        .internationalRoamingOff, .networkConnectionLost, .notConnectedToInternet, .secureConnectionFailed,
        .serverCertificateHasBadDate, .serverCertificateNotYetValid, .timedOut,
        // FoundationNetworking (Linux) reports a connection dropped in the middle of a body so.
        .unknown,
    ]

    /// Never retries.
    public static let none = RetryPolicy(maximumRetryCount: 0, delayBeforeRetry: .seconds(0))

    /// Up to 3 retries, waiting about 0.5 s, 1 s and 2 s, with the default rules.
    public static let `default` = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(500))

    /// Whether a request with `method` that failed with `error` is worth sending again
    /// (the caller still counts retries against ``maximumRetryCount``).
    ///
    /// - Returns: `true` when `method` is in ``retryableMethods`` and the error is a timeout, a
    ///   response whose status is in ``retryableStatusCodes``, or a transport error (one carrying a
    ///   `URLError` only when its code is in ``retryableURLErrorCodes``); `false` for cancellations,
    ///   other statuses, decoding failures, authentication failures and invalid requests. With
    ///   ``isRetryable`` set, it decides instead of the status and error-kind rules (never for a
    ///   cancellation).
    public func shouldRetry(_ error: NetworkError, method: HTTPMethod) -> Bool {
        guard maximumRetryCount > 0, retryableMethods.contains(method) else { return false }
        if let isRetryable {
            if case .cancelled = error { return false }
            return isRetryable(error)
        }
        switch error {
        case .transport(let underlying):
            guard let code = Self.urlErrorCode(of: underlying) else { return true }
            return retryableURLErrorCodes.contains(code)
        case .timedOut:
            return true
        case .clientError(let status, _, _), .serverError(let status, _, _), .unexpectedStatus(let status, _):
            return retryableStatusCodes.contains(status)
        case .cancelled, .decodingFailed, .authenticationFailed, .invalidRequest:
            return false
        }
    }

    /// The code of a `URLError`, or of an `NSError` in `NSURLErrorDomain` (how some transports
    /// report them); `nil` for any other error.
    static func urlErrorCode(of error: any Error) -> URLError.Code? {
        if let urlError = error as? URLError { return urlError.code }
        let nsError = error as NSError
        return nsError.domain == NSURLErrorDomain ? URLError.Code(rawValue: nsError.code) : nil
    }

    /// The wait, in seconds, before retry number `retryNumber` (the first retry is `1`) after `error`.
    ///
    /// A `Retry-After` header on the error's response wins over the backoff; either way the result
    /// lies in `0...maximumDelay`.
    public func delay(beforeRetry retryNumber: Int, after error: NetworkError) -> TimeInterval {
        delay(beforeRetry: retryNumber, after: error, now: Date(), random: { Double.random(in: $0) })
    }

    /// ``delay(beforeRetry:after:)`` with the clock and the random source injected, for tests.
    func delay(
        beforeRetry retryNumber: Int,
        after error: NetworkError,
        now: Date,
        random: (ClosedRange<Double>) -> Double
    ) -> TimeInterval {
        if let header = error.response?.header("Retry-After"),
           let wait = Self.parseRetryAfter(header, now: now) {
            return min(wait, maximumDelay)
        }
        let base = Self.seconds(delayBeforeRetry, cap: maximumDelay)
        guard base > 0 else { return 0 }
        let exponent = Double(max(0, retryNumber - 1))
        var wait = base * pow(backoffMultiplier, exponent)
        if !wait.isFinite || wait > maximumDelay { wait = maximumDelay }
        if jitter > 0 {
            wait *= random((1 - jitter)...(1 + jitter))
        }
        return min(max(wait, 0), maximumDelay)
    }

    /// A `DispatchTimeInterval` in seconds; `.never` counts as `cap`.
    static func seconds(_ interval: DispatchTimeInterval, cap: TimeInterval) -> TimeInterval {
        switch interval {
        case .seconds(let value): Double(value)
        case .milliseconds(let value): Double(value) / 1_000
        case .microseconds(let value): Double(value) / 1_000_000
        case .nanoseconds(let value): Double(value) / 1_000_000_000
        case .never: cap
        @unknown default: cap
        }
    }

    /// Parses a `Retry-After` value: delta-seconds (`"120"`) or an HTTP date
    /// (`"Wed, 21 Oct 2015 07:28:00 GMT"`, also the obsolete RFC 850 and asctime forms).
    ///
    /// - Returns: seconds from `now` (`0` for a date in the past), or `nil` when the value is neither.
    static func parseRetryAfter(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.allSatisfy(\.isASCII), trimmed.allSatisfy(\.isNumber) {
            return Double(trimmed)
        }
        return HTTPDate.parse(trimmed, now: now).map { max(0, $0.timeIntervalSince(now)) }
    }
}
