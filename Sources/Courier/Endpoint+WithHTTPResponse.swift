import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Endpoint {
    /// This endpoint, answering with its decoded `Response` *and* the HTTP response it came
    /// from, for the one call that needs a header or the exact status.
    ///
    /// Everything else is this endpoint's own (every ``Endpoint`` property: path, base URL,
    /// method, query, headers, body, timeouts, cache policy, retry policy, authentication, sample
    /// data, accepted statuses, coders, key path, adapters and retriers, sharing), so stubs, plugins and
    /// the authenticator see the same request. (A plugin's `prepare(_:for:)` receives the wrapper as its endpoint:
    /// one that checks the endpoint's type should look at ``WithHTTPResponse/base`` too.)
    ///
    /// ```swift
    /// let page = try await client.send(ListUsers(page: 2).withHTTPResponse())
    /// let users = page.value                        // [User]
    /// let next = page.header("Link")                // the pagination header
    /// ```
    ///
    /// - Returns: An endpoint whose `Response` is ``DecodedResponse``.
    public func withHTTPResponse() -> WithHTTPResponse<Self> {
        WithHTTPResponse(self)
    }
}

/// An endpoint that answers with its base endpoint's decoded response and the HTTP response
/// together; see ``Endpoint/withHTTPResponse()``.
public struct WithHTTPResponse<Base: Endpoint>: Endpoint {
    /// The base endpoint's decoded `Response`, with the response it came from.
    public typealias Response = DecodedResponse<Base.Response>

    /// The endpoint every property comes from.
    public let base: Base

    /// Wraps `base`; the same as `base.withHTTPResponse()`.
    ///
    /// - Parameter base: The endpoint to send.
    public init(_ base: Base) {
        self.base = base
    }

    /// The base endpoint's path.
    public var path: String { base.path }
    /// The base endpoint's base URL.
    public var baseURL: URL? { base.baseURL }
    /// The base endpoint's method.
    public var method: HTTPMethod { base.method }
    /// The base endpoint's query items.
    public var query: [URLQueryItem] { base.query }
    /// The base endpoint's headers.
    public var headers: [String: String] { base.headers }
    /// The base endpoint's body.
    public var body: RequestBody { base.body }
    /// The base endpoint's timeout.
    public var timeout: TimeInterval? { base.timeout }
    /// The base endpoint's cache policy.
    public var cachePolicy: URLRequest.CachePolicy? { base.cachePolicy }
    /// The base endpoint's retry policy.
    public var retryPolicy: RetryPolicy? { base.retryPolicy }
    /// Whether the base endpoint is authenticated.
    public var requiresAuthentication: Bool { base.requiresAuthentication }
    /// The base endpoint's sample data.
    public var sampleData: Data { base.sampleData }
    /// The base endpoint's accepted statuses.
    public var acceptedStatusCodes: StatusCodeSet { base.acceptedStatusCodes }
    /// The base endpoint's decoder, which decodes ``DecodedResponse/value``.
    public var decoder: JSONDecoder? { base.decoder }
    /// The base endpoint's encoder.
    public var encoder: JSONEncoder? { base.encoder }
    /// The base endpoint's key path, where ``DecodedResponse/value`` is found.
    public var responseKeyPath: String? { base.responseKeyPath }
    /// The base endpoint's idle timeout.
    public var idleTimeout: TimeInterval? { base.idleTimeout }
    /// The base endpoint's adapters.
    public var requestAdapters: [any RequestAdapter] { base.requestAdapters }
    /// The base endpoint's retriers.
    public var requestRetriers: [any RequestRetrier] { base.requestRetriers }
    /// The base endpoint's choice on sharing identical requests.
    public var sharesIdenticalRequests: Bool? { base.sharesIdenticalRequests }
    /// The base endpoint's request modifier.
    public var requestModifier: (@Sendable (inout URLRequest) -> Void)? { base.requestModifier }
    /// The base endpoint's redirect policy.
    public var redirectPolicy: URLSessionTransport.RedirectPolicy? { base.redirectPolicy }
}
