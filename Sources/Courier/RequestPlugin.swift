import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A hook into every request a client sends: change it, watch it go out, see how it ended and
/// how long it took.
///
/// Every method has a default that does nothing, so implement only what you need. Plugins run in the
/// order of the client's `plugins` array; they must be thread-safe, as requests run concurrently.
///
/// ```swift
/// struct UserAgentPlugin: RequestPlugin {
///     func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
///         var request = request
///         request.setValue("MyApp/1.0", forHTTPHeaderField: "User-Agent")
///         return request
///     }
/// }
/// ```
public protocol RequestPlugin: Sendable {
    /// Returns the request to send in place of `request`; called before sending, after the
    /// authenticator applied its credential and before the request adapters run (see
    /// ``RequestAdapter``).
    ///
    /// - Parameters:
    ///   - request: the request as built so far.
    ///   - endpoint: the endpoint it was built from.
    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest

    /// Called when `request` is handed to the transport (once per attempt, retries included).
    ///
    /// - Parameter request: the request exactly as sent.
    func willSend(_ request: URLRequest)

    /// Called when an attempt of `request` ended, with its response or the error it failed with.
    ///
    /// - Parameters:
    ///   - result: the response (a status the endpoint accepts), or the error; any other status
    ///     arrives as its ``NetworkError`` (``NetworkError/clientError(statusCode:metadata:response:)`` …).
    ///   - request: the request as sent.
    func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest)

    /// ``willSend(_:)`` with the endpoint the caller passed, for plugins that tell calls apart
    /// by endpoint (Moya's `willSend(_:target:)`). The client calls this one; its default calls
    /// ``willSend(_:)``, so implement one of the two.
    ///
    /// ```swift
    /// struct Analytics: RequestPlugin {
    ///     func willSend(_ request: URLRequest, for endpoint: any Endpoint) {
    ///         if endpoint is Checkout { Tracker.mark("checkout started") }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - request: the request exactly as sent.
    ///   - endpoint: the endpoint the caller passed (a ``Request`` made from another endpoint
    ///     keeps that one in ``Request/base``).
    func willSend(_ request: URLRequest, for endpoint: any Endpoint)

    /// ``didReceive(_:for:)`` with the endpoint the caller passed (Moya's
    /// `didReceive(_:target:)`). The client calls this one; its default calls
    /// ``didReceive(_:for:)``, so implement one of the two.
    ///
    /// - Parameters:
    ///   - result: the response (any status the endpoint accepts), or the error.
    ///   - request: the request as sent.
    ///   - endpoint: the endpoint the caller passed.
    func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint)

    /// Returns the outcome the client goes on with in place of `result` (Moya's
    /// `process(_:target:)`): rewrite a body before it is decoded, turn an error reported inside a
    /// `200` into a ``NetworkError``, or answer an error with a response of your own.
    ///
    /// It runs once per attempt whose response or transport error reached the client, right after
    /// ``didReceive(_:for:endpoint:)`` (which sees `result` as it arrived), and before the retry
    /// decision, decoding and delivery: an error it returns can be retried like any other
    /// (``RetryPolicy``, the request retriers), and a response it returns is decoded as if the
    /// server had sent it. Plugins run in the order of the client's `plugins`, each given what the
    /// one before returned.
    ///
    /// It does not see:
    /// - an attempt the authenticator calls an authentication failure: that attempt is replayed
    ///   after a refresh, or the request fails (with ``NetworkError/authenticationFailed(underlying:)``,
    ///   or with the failure itself when the replay is refused again);
    /// - an attempt refused before it was sent (a request adapter's error, a header the
    ///   authenticator or a plugin made invalid, a missing upload file);
    /// - the client's own endings: the request's deadline (``NetworkError/timedOut``),
    ///   ``NetworkError/cancelled``, and a request that could not be built.
    ///
    /// A streamed response (``NetworkClient/stream(_:)``) is seen as its head, and its body goes
    /// on streaming to the caller when the outcome is a success: a body the plugin puts in the
    /// head is not what the caller reads. A download's body is in the file
    /// at ``HTTPResponse/bodyFileURL``: keep that URL to keep the file (it is then moved to the
    /// destination), or return a response with the body in memory, which is written there instead.
    ///
    /// ```swift
    /// /// Turns `{"ok":false,"error":{...}}` inside a 2xx into a client error the caller can match.
    /// struct EnvelopeErrors: RequestPlugin {
    ///     func process(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest,
    ///                  endpoint: any Endpoint) -> Result<HTTPResponse, NetworkError> {
    ///         guard case .success(let response) = result,
    ///               let json = try? JSON(data: response.body), json["ok"].bool == false else { return result }
    ///         return .failure(.clientError(statusCode: 422, metadata: ServerMetadata.parse(response), response: response))
    ///     }
    /// }
    /// ```
    ///
    /// It runs on the thread that received the answer, so keep it short and thread-safe.
    ///
    /// - Parameters:
    ///   - result: The attempt's response, classified: a status the endpoint does not accept, or
    ///     that the client's ``NetworkClient/Configuration/responseValidator`` rejected, is already
    ///     a ``NetworkError``. After the first plugin, what the plugin before returned.
    ///   - request: The request as sent.
    ///   - endpoint: The endpoint the caller passed.
    /// - Returns: The outcome to go on with; `result` unchanged by default.
    func process(
        _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint
    ) -> Result<HTTPResponse, NetworkError>

    /// Called once per request when it ends, after its last attempt and its decoding, just before
    /// the caller gets the result: with how it ended and how long it took (see
    /// ``RequestMetrics``). Every request the client started calls it exactly once, whether it
    /// succeeded, failed, timed out or was cancelled (held or in flight); a request that could not
    /// be built (``NetworkError/invalidRequest(reason:)`` from the call itself) never reaches
    /// plugins. It runs on the thread that ends the request: keep it short.
    ///
    /// It reports how the request ended in the pipeline. A caller's `cancel()` that arrives
    /// while a finished request's result is being handed over is too late to change that, so
    /// the plugin may see the response while the caller's promise rejects with a cancellation;
    /// a request the plugin sees cancelled is always cancelled for the caller too.
    ///
    /// ```swift
    /// struct Timings: RequestPlugin {
    ///     func didFinish(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest,
    ///                    endpoint: any Endpoint, metrics: RequestMetrics) {
    ///         Analytics.record(endpoint.path, seconds: metrics.totalDuration, attempts: metrics.attemptCount)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - result: The final response when the request succeeded (a streamed response's head;
    ///     a download's body file may have been moved to its destination since), or the error
    ///     the caller gets, `.decodingFailed` and `.cancelled` included.
    ///   - request: The last request sent, or the request as built (without credentials) when
    ///     no attempt was sent.
    ///   - endpoint: The endpoint the caller passed.
    ///   - metrics: The request's timings and attempt count.
    func didFinish(
        _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint,
        metrics: RequestMetrics)
}

extension RequestPlugin {
    /// Default: returns `request` unchanged.
    public func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest { request }
    /// Default: does nothing.
    public func willSend(_ request: URLRequest) {}
    /// Default: does nothing.
    public func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {}
    /// Default: calls ``willSend(_:)``.
    public func willSend(_ request: URLRequest, for endpoint: any Endpoint) { willSend(request) }
    /// Default: calls ``didReceive(_:for:)``.
    public func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint) {
        didReceive(result, for: request)
    }
    /// Default: returns `result` unchanged.
    public func process(
        _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint
    ) -> Result<HTTPResponse, NetworkError> {
        result
    }
    /// Default: does nothing.
    public func didFinish(
        _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint,
        metrics: RequestMetrics
    ) {}
}
