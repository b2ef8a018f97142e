import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An endpoint written where it is used, without a type of its own: a value holding every
/// property of ``Endpoint``.
///
/// Declare an endpoint type for the calls an app makes again and again; use `Request` for a
/// one-off call, a script, or a call whose parts are only known at run time. Without a type
/// argument the response is untyped ``JSON``.
///
/// ```swift
/// let profile = try await client.send(Request("me"))                       // JSON
/// let user = try await client.send(Request<User>("users/42"))               // User
/// let created = try await client.send(
///     Request<User>.post("users", body: .json(NewUser(name: "Ada"))))
///
/// var search = Request<[Article]>.get("articles", query: [URLQueryItem(name: "q", value: "swift")])
/// search.timeout = 5
/// search.retryPolicy = .default
/// ```
///
/// `Request(_:)` also wraps an endpoint of any type with the same `Response`, so endpoints of
/// different types can share one array or one function (what Moya's `MultiTarget` does):
///
/// ```swift
/// let warmUp: [Request<JSON>] = [Request(GetConfig()), Request(ListFeatures())]
/// ```
///
/// Every property is a stored `var`: a copy can be changed freely. The path follows the
/// client's usual rules (joined to the base URL with one `/`, percent-encoded, no `..`
/// segments). A whole URL in `path` (`"https://…"`) fails with ``NetworkError/invalidRequest(reason:)``
/// rather than going to the wrong place: a whole URL (a next-page link the server sent) goes in
/// `Request(url:)`, which sets ``baseURL``, and credentials then stay with the client's own origin.
///
/// Alamofire and Get also declare a `Request`: in a file that imports one of them as well,
/// write `Courier.Request`.
public struct Request<Response: Decodable & Sendable>: Endpoint {
    /// The path appended to the client's base URL, e.g. `"users/42"`.
    public var path: String
    /// The base URL ``path`` is joined to instead of the client's; default `nil`, the client's
    /// (see ``Endpoint/baseURL`` for what another origin gets).
    public var baseURL: URL?
    /// The HTTP method; default ``HTTPMethod/get``.
    public var method: HTTPMethod
    /// Query items appended to the URL; default none.
    public var query: [URLQueryItem]
    /// Extra header fields, over the client's default headers; default none.
    public var headers: [String: String]
    /// The request body; default ``RequestBody/none``.
    public var body: RequestBody
    /// The timeout in seconds; default `nil`, the client's.
    public var timeout: TimeInterval?
    /// The cache policy; default `nil`, the client's.
    public var cachePolicy: URLRequest.CachePolicy?
    /// How to retry failures; default `nil`, the client's policy (none unless configured).
    public var retryPolicy: RetryPolicy?
    /// Whether the client's authenticator applies its credential; default `true`.
    public var requiresAuthentication: Bool
    /// The body a stub answers with when none is configured; default empty.
    public var sampleData: Data
    /// The statuses decoded into `Response`; default ``StatusCodeSet/successful``.
    public var acceptedStatusCodes: StatusCodeSet
    /// The decoder for `Response`; default `nil`, the client's decoder.
    ///
    /// ```swift
    /// var orders = Request<[Order]>("legacy/orders")
    /// orders.decoder = legacyDecoder   // snake_case keys
    /// ```
    public var decoder: JSONDecoder? {
        get { sharedDecoder?.coder }
        set { sharedDecoder = newValue.map(SharedCoder.init(coder:)) }
    }
    /// The encoder for a ``RequestBody/json(_:)`` body; default `nil`, the client's encoder.
    public var encoder: JSONEncoder? {
        get { sharedEncoder?.coder }
        set { sharedEncoder = newValue.map(SharedCoder.init(coder:)) }
    }
    /// Where `Response` is inside the JSON body; default `nil`, the whole body (see
    /// ``Endpoint/responseKeyPath``).
    ///
    /// ```swift
    /// var products = Request<[Product]>("products")
    /// products.responseKeyPath = "data.products"
    /// ```
    public var responseKeyPath: String?
    /// Seconds an attempt may go without a byte moving; default `nil`, the client's (see
    /// ``Endpoint/idleTimeout``).
    public var idleTimeout: TimeInterval?
    /// Adapters for this request alone, run before the client's; default none (see
    /// ``Endpoint/requestAdapters``).
    ///
    /// ```swift
    /// var upload = Request<Receipt>.post("uploads", body: .file(video, contentType: "video/mp4"))
    /// upload.requestAdapters = [StorageSigningAdapter(bucket: bucket)]
    /// ```
    public var requestAdapters: [any RequestAdapter] = []
    /// Retriers for this request alone, asked before the client's; default none (see
    /// ``Endpoint/requestRetriers``).
    public var requestRetriers: [any RequestRetrier] = []
    /// Whether an identical request in flight is shared; default `nil`, the client's (see
    /// ``Endpoint/sharesIdenticalRequests``).
    public var sharesIdenticalRequests: Bool?
    /// Changes the built `URLRequest` in ways the other properties do not cover; default `nil`
    /// (see ``Endpoint/requestModifier``).
    ///
    /// ```swift
    /// var export = Request<HTTPResponse>.get("exports/latest")
    /// export.requestModifier = { $0.allowsCellularAccess = false }
    /// ```
    public var requestModifier: (@Sendable (inout URLRequest) -> Void)?
    /// Which redirects this request follows; default `nil`, the transport's (see
    /// ``Endpoint/redirectPolicy``).
    ///
    /// ```swift
    /// var authorize = Request<HTTPResponse>.get("oauth/authorize", query: query)
    /// authorize.redirectPolicy = .never
    /// authorize.acceptedStatusCodes = [302]
    /// ```
    public var redirectPolicy: URLSessionTransport.RedirectPolicy?
    /// ``decoder`` and ``encoder`` as stored (see ``SharedCoder``).
    private var sharedDecoder: SharedCoder<JSONDecoder>?
    private var sharedEncoder: SharedCoder<JSONEncoder>?
    /// The endpoint this request was copied from by `Request(endpoint)`, or `nil`.
    ///
    /// A plugin that recognises endpoints by type looks here: `prepare(_:for:)` receives the
    /// `Request`. Changes made to the request after wrapping do not show in `base`.
    public let base: (any Endpoint)?

    /// A request for `path`, answered with `Response`.
    ///
    /// - Parameters:
    ///   - path: The path appended to the client's base URL, e.g. `"users/42"`.
    ///   - method: The HTTP method; default `.get`.
    ///   - query: Query items; default none.
    ///   - headers: Header fields over the client's defaults; default none.
    ///   - body: The body; default `.none`.
    ///   - timeout: The timeout in seconds; default `nil`, the client's.
    ///   - retryPolicy: How to retry; default `nil`, the client's policy (none unless configured).
    ///   - requiresAuthentication: Whether the authenticator applies its credential; default `true`.
    ///   - acceptedStatusCodes: The statuses decoded into `Response`; default 200–299.
    ///   - sampleData: What a stub answers with when none is configured; default empty.
    public init(
        _ path: String, method: HTTPMethod = .get, query: [URLQueryItem] = [], headers: [String: String] = [:],
        body: RequestBody = .none, timeout: TimeInterval? = nil, retryPolicy: RetryPolicy? = nil,
        requiresAuthentication: Bool = true, acceptedStatusCodes: StatusCodeSet = .successful, sampleData: Data = Data()
    ) {
        self.init(
            path: path, method: method, query: query, headers: headers, body: body, timeout: timeout,
            retryPolicy: retryPolicy, requiresAuthentication: requiresAuthentication,
            acceptedStatusCodes: acceptedStatusCodes, sampleData: sampleData, base: nil)
    }

    /// A request with every property of `endpoint`, answered with the same `Response`.
    ///
    /// See the type's overview for an example.
    ///
    /// - Parameter endpoint: The endpoint to copy; it is kept in ``Request/base``.
    public init<Base: Endpoint>(_ endpoint: Base) where Base.Response == Response {
        self.init(copying: endpoint)
    }

    /// A request with every property of `endpoint`, whatever its `Response`: `Request(_:)` and
    /// ``Endpoint/decoding(_:atKeyPath:)``.
    init<Base: Endpoint>(copying endpoint: Base) {
        self.init(
            path: endpoint.path, method: endpoint.method, query: endpoint.query, headers: endpoint.headers,
            body: endpoint.body, timeout: endpoint.timeout, retryPolicy: endpoint.retryPolicy,
            requiresAuthentication: endpoint.requiresAuthentication,
            acceptedStatusCodes: endpoint.acceptedStatusCodes, sampleData: endpoint.sampleData, base: endpoint)
        decoder = endpoint.decoder
        encoder = endpoint.encoder
        baseURL = endpoint.baseURL
        cachePolicy = endpoint.cachePolicy
        responseKeyPath = endpoint.responseKeyPath
        idleTimeout = endpoint.idleTimeout
        requestAdapters = endpoint.requestAdapters
        requestRetriers = endpoint.requestRetriers
        sharesIdenticalRequests = endpoint.sharesIdenticalRequests
        requestModifier = endpoint.requestModifier
        redirectPolicy = endpoint.redirectPolicy
    }

    /// A request for exactly `url`, such as a next-page link from a response: its path and
    /// query as they are, on its own server.
    ///
    /// ```swift
    /// if let next = page.next {                       // "https://api.example.com/v1/items?cursor=8f2c"
    ///     let more = try await client.send(Request<Page>(url: next))
    /// }
    /// ```
    ///
    /// It sets ``baseURL`` to `url` and ``path`` to `""`. On another origin than the client's, the
    /// authenticator and the credential headers among the client's `defaultHeaders` are not
    /// applied (see ``Endpoint/baseURL``); query items added to ``query`` follow the URL's own.
    ///
    /// - Parameters:
    ///   - url: The whole URL, with a scheme and a host.
    ///   - method: The HTTP method; default `.get`.
    ///   - headers: Header fields over the client's defaults; default none.
    ///   - body: The body; default `.none`.
    public init(url: URL, method: HTTPMethod = .get, headers: [String: String] = [:], body: RequestBody = .none) {
        self.init("", method: method, headers: headers, body: body)
        baseURL = url
    }

    // The one initialiser that sets the stored properties; the public ones differ in their first
    // label, so neither can call itself by overload resolution.
    init(
        path: String, method: HTTPMethod, query: [URLQueryItem], headers: [String: String], body: RequestBody,
        timeout: TimeInterval?, retryPolicy: RetryPolicy?, requiresAuthentication: Bool,
        acceptedStatusCodes: StatusCodeSet, sampleData: Data, base: (any Endpoint)?
    ) {
        self.path = path
        self.method = method
        self.query = query
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.retryPolicy = retryPolicy
        self.requiresAuthentication = requiresAuthentication
        self.acceptedStatusCodes = acceptedStatusCodes
        self.sampleData = sampleData
        self.base = base
    }
}

extension Request where Response == JSON {
    /// A request for `path` answered with untyped ``JSON``: what `Request("…")` gives when the
    /// response type is not spelled out.
    ///
    /// ```swift
    /// let status = try await client.send(Request("status"))
    /// print(status["healthy"].bool ?? false)
    /// ```
    ///
    /// The parameters and their defaults are those of the typed `init(_:method:…)`.
    public init(
        _ path: String, method: HTTPMethod = .get, query: [URLQueryItem] = [], headers: [String: String] = [:],
        body: RequestBody = .none, timeout: TimeInterval? = nil, retryPolicy: RetryPolicy? = nil,
        requiresAuthentication: Bool = true, acceptedStatusCodes: StatusCodeSet = .successful, sampleData: Data = Data()
    ) {
        self.init(
            path: path, method: method, query: query, headers: headers, body: body, timeout: timeout,
            retryPolicy: retryPolicy, requiresAuthentication: requiresAuthentication,
            acceptedStatusCodes: acceptedStatusCodes, sampleData: sampleData, base: nil)
    }

    /// A request for exactly `url`, answered with untyped ``JSON``; see the typed
    /// `init(url:method:headers:body:)`.
    public init(url: URL, method: HTTPMethod = .get, headers: [String: String] = [:], body: RequestBody = .none) {
        self.init("", method: method, headers: headers, body: body)
        baseURL = url
    }
}

extension Request {
    /// A `GET` request, e.g. `Request<[User]>.get("users", query: [URLQueryItem(name: "page", value: "2")])`.
    ///
    /// - Parameters:
    ///   - path: The path appended to the client's base URL.
    ///   - query: Query items; default none.
    ///   - headers: Header fields over the client's defaults; default none.
    /// - Returns: The request; set its other properties on the copy.
    public static func get(_ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:]) -> Request {
        Request(path, method: .get, query: query, headers: headers)
    }

    /// A `POST` request, e.g. `Request<User>.post("users", body: .json(newUser))`.
    ///
    /// - Parameters:
    ///   - path: The path appended to the client's base URL.
    ///   - query: Query items; default none.
    ///   - body: The body; default `.none`.
    ///   - headers: Header fields over the client's defaults; default none.
    /// - Returns: The request; set its other properties on the copy.
    public static func post(
        _ path: String, query: [URLQueryItem] = [], body: RequestBody = .none, headers: [String: String] = [:]
    ) -> Request {
        Request(path, method: .post, query: query, headers: headers, body: body)
    }

    /// A `PUT` request; the parameters are those of ``post(_:query:body:headers:)``.
    public static func put(
        _ path: String, query: [URLQueryItem] = [], body: RequestBody = .none, headers: [String: String] = [:]
    ) -> Request {
        Request(path, method: .put, query: query, headers: headers, body: body)
    }

    /// A `PATCH` request; the parameters are those of ``post(_:query:body:headers:)``.
    public static func patch(
        _ path: String, query: [URLQueryItem] = [], body: RequestBody = .none, headers: [String: String] = [:]
    ) -> Request {
        Request(path, method: .patch, query: query, headers: headers, body: body)
    }

    /// A `DELETE` request, with a body when the API wants one (`DELETE` with a list of IDs);
    /// the parameters are those of ``post(_:query:body:headers:)``.
    public static func delete(
        _ path: String, query: [URLQueryItem] = [], body: RequestBody = .none, headers: [String: String] = [:]
    ) -> Request {
        Request(path, method: .delete, query: query, headers: headers, body: body)
    }

    /// A `HEAD` request: the status and headers of `path` without its body (declare the
    /// `Response` as ``HTTPResponse`` or ``EmptyResponse``); the parameters are those of
    /// ``get(_:query:headers:)``.
    public static func head(_ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:]) -> Request {
        Request(path, method: .head, query: query, headers: headers)
    }

    /// An `OPTIONS` request (what a server allows on `path`); the parameters are those of
    /// ``get(_:query:headers:)``.
    public static func options(_ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:]) -> Request {
        Request(path, method: .options, query: query, headers: headers)
    }
}
