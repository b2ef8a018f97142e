import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A hook into every request a client sends: change it, watch it go out, see how it ended.
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
    /// Returns the request to send in place of `request`; called just before sending, after the
    /// authenticator applied its credential.
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
    ///   - result: the response (any status), or the error.
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
}
