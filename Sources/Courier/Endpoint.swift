import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request an API offers: where it goes, how, and what comes back.
///
/// Only ``path`` is required; everything else has a default.
///
/// Declare each property with exactly the requirement's type: `var timeout: TimeInterval? { 10 }`,
/// not `TimeInterval`; `var headers: [String: String]`, not Moya's optional. A property of
/// another type compiles without a warning but is not the requirement, so the client never
/// reads it and the default applies.
///
/// ```swift
/// struct GetUser: Endpoint {
///     typealias Response = User          // leave out to get untyped `JSON`
///     let id: Int
///     var path: String { "users/\(id)" }
/// }
///
/// struct CreateUser: Endpoint {
///     let user: NewUser
///     var path: String { "users" }
///     var method: HTTPMethod { .post }
///     var body: RequestBody { .json(user) }
/// }
/// ```
public protocol Endpoint: Sendable {
    /// What the response body decodes to; default ``JSON``.
    associatedtype Response: Decodable & Sendable = JSON

    /// The path appended to the client's base URL, with exactly one `/` between them
    /// (a leading `/` is optional), e.g. `"users/42"`.
    ///
    /// A whole URL here (`"https://…"`) fails with ``NetworkError/invalidRequest(reason:)``: set
    /// ``baseURL`` for another server, or send a URL the server handed out with `Request(url:)`.
    var path: String { get }
    /// The base URL this endpoint's ``path`` is joined to, instead of the client's; default `nil`,
    /// the client's ``NetworkClient/Configuration/baseURL`` (Moya's per-target `baseURL`).
    ///
    /// For the odd call to another server (a CDN, an upload host, a pre-signed URL) or to a URL
    /// the server handed out (a next-page link: `Request(url:)`).
    /// The request still runs the whole pipeline and is held by ``NetworkClient/pause()``
    /// (not by a credential refresh: it carries no credential).
    ///
    /// **Credentials stay home.** When this URL's origin (scheme, host and port) differs from the
    /// client's, the client's authenticator is not applied and a `401` from there starts no
    /// refresh, and the client's `defaultHeaders` that hold credentials (`Authorization`,
    /// `Cookie`, API keys, tokens: the names the logs redact) are left out. Put a credential that
    /// server needs in the endpoint's own ``headers``. The same origin with another path (`/v2`
    /// next to `/v1`) keeps everything.
    ///
    /// ```swift
    /// struct Thumbnail: Endpoint {
    ///     typealias Response = HTTPResponse
    ///     let id: String
    ///     var baseURL: URL? { URL(string: "https://cdn.example.com/images") }
    ///     var path: String { "\(id)/small.jpg" }
    /// }
    /// ```
    ///
    /// The type must be exactly `URL?`: a property of another type (Moya's non-optional
    /// `baseURL: URL`) is a different property, and the client's base URL is used.
    var baseURL: URL? { get }
    /// The HTTP method; default ``HTTPMethod/get``.
    var method: HTTPMethod { get }
    /// Query items appended to the URL; default none.
    var query: [URLQueryItem] { get }
    /// Extra header fields; default none. They win over the client's `defaultHeaders`.
    var headers: [String: String] { get }
    /// The request body; default ``RequestBody/none``.
    var body: RequestBody { get }
    /// The timeout in seconds for this request; default `nil`, meaning the client's.
    var timeout: TimeInterval? { get }
    /// The cache policy for this request; default `nil`, meaning the client's
    /// ``NetworkClient/Configuration/cachePolicy`` (Get's `configure` closure, Alamofire's
    /// `requestModifier`, for this one setting).
    ///
    /// ```swift
    /// struct Balance: Endpoint {
    ///     var path: String { "me/balance" }
    ///     var cachePolicy: URLRequest.CachePolicy? { .reloadIgnoringLocalCacheData }   // always fresh
    /// }
    /// ```
    ///
    /// The type must be exactly `URLRequest.CachePolicy?`, as for ``decoder``.
    var cachePolicy: URLRequest.CachePolicy? { get }
    /// How to retry failures; default `nil`, meaning the client's
    /// ``NetworkClient/Configuration/retryPolicy`` (itself `nil` by default: no retries).
    /// `RetryPolicy.none` never retries, whatever the client says (spell it out: a bare `.none`
    /// here is `nil`).
    var retryPolicy: RetryPolicy? { get }
    /// Whether the client's authenticator applies its credential; default `true`. It never does
    /// on another origin than the client's (see ``baseURL``). `false` also lets the request pass
    /// ``NetworkClient/pause()`` (the lane a login or refresh call takes).
    var requiresAuthentication: Bool { get }
    /// The body a stub answers with when none is configured; default empty.
    var sampleData: Data { get }
    /// The statuses that count as success and are decoded into ``Response``; default
    /// ``StatusCodeSet/successful`` (200–299).
    ///
    /// Any other status becomes a ``NetworkError`` as usual (4xx
    /// ``NetworkError/clientError(statusCode:metadata:response:)``, 5xx
    /// ``NetworkError/serverError(statusCode:metadata:response:)``, anything else, a 2xx left out
    /// included, ``NetworkError/unexpectedStatus(statusCode:response:)``). An accepted status is a
    /// success everywhere: it is not retried, plugins see `.success`, and its body is decoded, so
    /// pair an accepted error status with a `Response` that can hold its body (``HTTPResponse``,
    /// ``JSON``, ``DecodedResponse``). The authenticator's
    /// ``Authenticator/isAuthenticationFailure(_:)`` is asked first: with an authenticator,
    /// accepting 401 does not stop a credential refresh, and a 401 to the replay fails the
    /// request with `clientError(401)` rather than being delivered.
    ///
    /// ```swift
    /// struct Avatar: Endpoint {
    ///     typealias Response = HTTPResponse
    ///     let etag: String
    ///     var path: String { "me/avatar" }
    ///     var headers: [String: String] { ["If-None-Match": etag] }
    ///     var acceptedStatusCodes: StatusCodeSet { .successful.union([304]) }  // 304: keep the cached one
    /// }
    /// ```
    var acceptedStatusCodes: StatusCodeSet { get }
    /// The decoder for this endpoint's `Decodable` response; default `nil`, meaning the client's
    /// ``NetworkClient/Configuration/decoder`` (Alamofire's `responseDecodable(of:decoder:)`).
    ///
    /// For the odd endpoint of an API whose conventions differ: one service that writes
    /// `snake_case` or dates as seconds. It decodes typed responses, optional ones (`User?`) and
    /// ``DecodedResponse``'s value; untyped ``JSON``, `String`, `Data` and ``HTTPResponse``
    /// responses are never decoded by a `JSONDecoder`. Return a decoder made once, not a new
    /// one per call: it is read each time the endpoint is sent.
    ///
    /// ```swift
    /// struct LegacyOrders: Endpoint {
    ///     typealias Response = [Order]
    ///     var path: String { "legacy/orders" }
    ///     var decoder: JSONDecoder? { LegacyAPI.decoder }   // snake_case, seconds since 1970
    /// }
    /// ```
    ///
    /// The type must be exactly `JSONDecoder?`: a property of another type (a non-optional
    /// `JSONDecoder`) is a different property, and the client's decoder is used. Where
    /// `JSONDecoder` is not yet `Sendable` (before macOS 13, iOS 16, tvOS 16, watchOS 9), Swift 6
    /// refuses a plain `static let` of one: declare the shared decoder
    /// `nonisolated(unsafe) static let`, and set its strategies only where it is made.
    var decoder: JSONDecoder? { get }
    /// The encoder for this endpoint's ``RequestBody/json(_:)`` body; default `nil`, meaning the
    /// client's ``NetworkClient/Configuration/encoder`` (Alamofire's
    /// `JSONParameterEncoder(encoder:)`, Get's `encoderForRequest`).
    ///
    /// The same rules as ``decoder``: return an encoder made once, of exactly this type.
    var encoder: JSONEncoder? { get }
    /// Where `Response` is inside the JSON body, for APIs that wrap every answer
    /// (`{"data":{"user":{…}},"metadata":{…}}`); default `nil`, the whole body. Moya's
    /// `map(_:atKeyPath:)`, declared once on the endpoint.
    ///
    /// ```swift
    /// struct Products: Endpoint {
    ///     typealias Response = [Product]
    ///     var path: String { "products" }
    ///     var responseKeyPath: String? { "data.products" }
    /// }
    /// ```
    ///
    /// Dot-separated keys and array indices, as ``HTTPResponse/decoded(_:atKeyPath:using:)``
    /// reads them. It applies to typed responses, ``JSON``, `String` (the JSON string found
    /// there, without its quotes), optional responses and ``DecodedResponse``'s value; an empty
    /// body (a `204`) is decoded as it is, so an optional response is still `nil`. ``HTTPResponse``,
    /// `Data` and ``EmptyResponse`` ignore it, and so do error statuses: their metadata is read
    /// from the whole body. A path that leads nowhere fails with
    /// ``NetworkError/decodingFailed(underlying:response:)`` carrying a ``ResponseKeyPathError``
    /// and the whole response.
    var responseKeyPath: String? { get }
    /// Request adapters for this endpoint alone, run on each of its attempts *before* the client's
    /// ``NetworkClient/Configuration/requestAdapters``; default none. Alamofire's per-request
    /// `interceptor:` (asked before the session's).
    ///
    /// For the one call that needs something the rest do not: an upload signed for a storage
    /// service, a step-up token for a payment.
    ///
    /// ```swift
    /// struct Transfer: Endpoint {
    ///     let signer: PaymentSigner
    ///     var path: String { "payments" }
    ///     var method: HTTPMethod { .post }
    ///     var requestAdapters: [any RequestAdapter] { [StepUpAdapter(signer: signer)] }
    /// }
    /// ```
    ///
    /// They run as the client's do (see ``RequestAdapter``), with one difference: the endpoint
    /// chose them for its own URL, so they run whatever its origin, and
    /// ``RequestAdapter/appliesToOtherOrigins`` is not asked. Read once per attempt.
    var requestAdapters: [any RequestAdapter] { get }
    /// Seconds an attempt may go without a byte moving either way before it ends with
    /// ``NetworkError/timedOut``; default `nil`, the client's
    /// ``NetworkClient/Configuration/idleTimeout`` (none unless configured). URLSession's
    /// `timeoutIntervalForRequest`, Alamofire's and Moya's only timeout.
    ///
    /// ``timeout`` bounds the whole exchange; an idle timeout lets a large transfer take as long
    /// as it keeps moving, and still ends one that stalls. Give such an endpoint both:
    ///
    /// ```swift
    /// struct Backup: Endpoint {
    ///     typealias Response = HTTPResponse
    ///     let archive: URL
    ///     var path: String { "backups" }
    ///     var method: HTTPMethod { .put }
    ///     var body: RequestBody { .file(archive, contentType: "application/zip") }
    ///     var timeout: TimeInterval? { 6 * 60 * 60 }     // the whole upload: six hours at most
    ///     var idleTimeout: TimeInterval? { 30 }          // but no 30 seconds without progress
    /// }
    /// ```
    ///
    /// The watch starts when the attempt is handed to the transport (time held by a pause, the
    /// adapters and the queue count only toward ``timeout``) and ends with the response's head and
    /// body; a stalled attempt is noticed between one and two idle periods after its last byte,
    /// and is retried by its ``RetryPolicy`` like any time-out. Activity is what the transport
    /// reports as progress: ``URLSessionTransport`` reports every chunk either way, a stub reports
    /// once when it answers (so a stub whose delay is longer times out) and a streaming stub each
    /// piece, and a transport of your
    /// own must report through `TransportContext.progress`, or its attempts time out after one
    /// idle period. For ``NetworkClient/stream(_:)`` it is also the limit between the body's
    /// pieces, before this endpoint's ``timeout``, the client's idle timeout and the client's
    /// timeout, in that order (so a client-wide idle timeout does not cut short an event stream
    /// whose endpoint allows more). `nil` uses the client's, `.infinity` sets none; zero, a negative number or NaN
    /// fails the request with ``NetworkError/invalidRequest(reason:)``.
    var idleTimeout: TimeInterval? { get }
    /// Request retriers for this endpoint alone, asked *before* the client's
    /// ``NetworkClient/Configuration/requestRetriers``; default none. Alamofire's per-request
    /// `interceptor:` (asked before the session's).
    ///
    /// The first answer other than ``RetryDecision/doNotRetry``, from these or then from the
    /// client's, is the decision; everything else is as ``RequestRetrier`` describes.
    ///
    /// ```swift
    /// struct PlaceOrder: Endpoint {
    ///     var path: String { "orders" }
    ///     var method: HTTPMethod { .post }
    ///     // The server reports a POST it never applied with 503 and "Retry-Safe: 1".
    ///     var requestRetriers: [any RequestRetrier] { [RetrySafePost()] }
    /// }
    /// ```
    var requestRetriers: [any RequestRetrier] { get }
    /// Whether this endpoint's `GET`s and `HEAD`s share an identical request in flight, over the
    /// client's ``NetworkClient/Configuration/sharesIdenticalRequests``; default `nil`, the client's.
    ///
    /// `false` for a `GET` each caller must send itself: a long poll that hands each request the
    /// next event, a read that counts views. `true` shares this endpoint's requests on a client
    /// that shares none.
    ///
    /// ```swift
    /// struct NextEvent: Endpoint {
    ///     var path: String { "events/next" }
    ///     var timeout: TimeInterval? { 90 }
    ///     var sharesIdenticalRequests: Bool? { false }   // each long poll gets its own event
    /// }
    /// ```
    var sharesIdenticalRequests: Bool? { get }
    /// Changes the built `URLRequest` in ways the other properties do not cover; default `nil`,
    /// none (Alamofire's `requestModifier`, Get's `configure`).
    ///
    /// ```swift
    /// struct LargeExport: Endpoint {
    ///     typealias Response = HTTPResponse
    ///     var path: String { "exports/latest" }
    ///     var requestModifier: (@Sendable (inout URLRequest) -> Void)? {
    ///         { $0.allowsCellularAccess = false }
    ///     }
    /// }
    /// ```
    ///
    /// It runs once, when the request is built (in ``NetworkClient/makeURLRequest(for:)`` too),
    /// after the URL, method, headers and body are set and before the authenticator adds its
    /// credential and the plugins and adapters run; it does see the client's `defaultHeaders`,
    /// credential ones included on the client's own origin. Header fields it sets are checked like
    /// any others (a line break fails the request with ``NetworkError/invalidRequest(reason:)``),
    /// and a streamed response's `Accept` is set after it. It may not change the URL (which
    /// decides where credentials go), the method (which decides retries and sharing) or the body
    /// (each attempt of an upload sets it again): use ``path``, ``query``, ``baseURL``, ``method``
    /// and ``body`` for those; a change fails the request with
    /// ``NetworkError/invalidRequest(reason:)``. Unlike Get's `configure`, it cannot fail a request
    /// itself; a ``RequestAdapter`` can.
    var requestModifier: (@Sendable (inout URLRequest) -> Void)? { get }
    /// Which redirects this endpoint's requests follow, when that is stricter than the
    /// transport's own policy (``URLSessionTransport/init(configuration:redirects:taskObserver:)``);
    /// default `nil`, the transport's (Alamofire's per-request `redirect(using:)`).
    ///
    /// It can only tighten the transport's policy, never loosen it: `.never` wins over
    /// `.sameOrigin`, which wins over `.follow`. A transport built with `.sameOrigin` so that the
    /// app talks to one server and nowhere else stays that way whatever an endpoint says.
    ///
    /// An OAuth authorize call that must read the `Location` of its `302` instead of following it:
    ///
    /// ```swift
    /// struct Authorize: Endpoint {
    ///     typealias Response = HTTPResponse
    ///     var path: String { "oauth/authorize" }
    ///     var redirectPolicy: URLSessionTransport.RedirectPolicy? { .never }
    ///     var acceptedStatusCodes: StatusCodeSet { [302] }   // the 302 is the answer, not an error
    /// }
    /// ```
    ///
    /// A redirect that is not followed is delivered as the `3xx` response (see
    /// ``URLSessionTransport/RedirectPolicy``). The security rules hold whatever the policy: a
    /// redirect to another origin loses its credentials, and one from `https` to `http` is
    /// refused. The client hands the policy to the transport in
    /// ``TransportContext/redirectPolicy``; a transport of your own that follows redirects
    /// should honour it. Stubs answer without redirects, so it changes nothing there.
    var redirectPolicy: URLSessionTransport.RedirectPolicy? { get }
}

extension Endpoint {
    /// Default: `nil`, the client's base URL.
    public var baseURL: URL? { nil }
    /// Default: ``HTTPMethod/get``.
    public var method: HTTPMethod { .get }
    /// Default: no query items.
    public var query: [URLQueryItem] { [] }
    /// Default: no extra headers.
    public var headers: [String: String] { [:] }
    /// Default: no body.
    public var body: RequestBody { .none }
    /// Default: `nil`, the client's timeout.
    public var timeout: TimeInterval? { nil }
    /// Default: `nil`, the client's cache policy.
    public var cachePolicy: URLRequest.CachePolicy? { nil }
    /// Default: `nil`, the client's policy (none unless configured).
    public var retryPolicy: RetryPolicy? { nil }
    /// Default: `true`.
    public var requiresAuthentication: Bool { true }
    /// Default: empty.
    public var sampleData: Data { Data() }
    /// Default: ``StatusCodeSet/successful``, 200–299.
    public var acceptedStatusCodes: StatusCodeSet { .successful }
    /// Default: `nil`, the client's decoder.
    public var decoder: JSONDecoder? { nil }
    /// Default: `nil`, the client's encoder.
    public var encoder: JSONEncoder? { nil }
    /// Default: `nil`, the whole body.
    public var responseKeyPath: String? { nil }
    /// Default: `nil`, the client's idle timeout (none unless configured).
    public var idleTimeout: TimeInterval? { nil }
    /// Default: none; the client's adapters alone.
    public var requestAdapters: [any RequestAdapter] { [] }
    /// Default: none; the client's retriers alone.
    public var requestRetriers: [any RequestRetrier] { [] }
    /// Default: `nil`, the client's choice (no sharing unless configured).
    public var sharesIdenticalRequests: Bool? { nil }
    /// Default: `nil`, the request as built.
    public var requestModifier: (@Sendable (inout URLRequest) -> Void)? { nil }
    /// Default: `nil`, the transport's policy.
    public var redirectPolicy: URLSessionTransport.RedirectPolicy? { nil }
}
