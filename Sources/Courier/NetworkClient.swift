import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// Sends requests described by ``Endpoint`` values and delivers typed results, as a promise,
/// with `async`/`await`, or to a completion handler. All three share one pipeline:
///
/// 1. build the `URLRequest` (``makeURLRequest(for:)``),
/// 2. pass the pause gate (``pause()``/``resume()``),
/// 3. apply the authenticator's credential and the plugins,
/// 4. send it through the transport, with one deadline per attempt,
/// 5. classify the status (2xx succeeds, or the endpoint's ``Endpoint/acceptedStatusCodes``; see ``NetworkError``),
/// 6. react: authentication failure, retry per the endpoint's ``RetryPolicy``,
/// 7. decode the body into `E.Response`,
/// 8. deliver.
///
/// ```swift
/// struct User: Decodable, Sendable { let id: Int; let name: String }
/// struct GetUser: Endpoint {
///     typealias Response = User
///     let id: Int
///     var path: String { "users/\(id)" }
/// }
///
/// let client = NetworkClient(baseURL: URL(string: "https://api.example.com/v1")!)
/// client.request(GetUser(id: 42)).done { user in print(user.name) }.catch { print($0) }
/// let user = try await client.send(GetUser(id: 42))
/// ```
///
/// A client is thread-safe. When it is released, requests it still holds paused settle with
/// ``NetworkError/cancelled``; requests already in flight finish normally.
public final class NetworkClient: Sendable {
    let core: ClientCore

    /// The configuration the client was created with.
    public var configuration: Configuration { core.configuration }

    /// Creates a client that sends requests over `URLSession` (a ``URLSessionTransport`` with an
    /// ephemeral session configuration).
    ///
    /// - Parameter configuration: The base URL, headers, timeout, plugins, authenticator and so on.
    public convenience init(configuration: Configuration) {
        self.init(configuration: configuration, transport: URLSessionTransport())
    }

    /// Creates a client that sends requests through `transport`: a stub, a recording test
    /// double, or another HTTP engine.
    ///
    /// - Parameters:
    ///   - configuration: The base URL, headers, timeout, plugins, authenticator and so on.
    ///   - transport: What sends each request.
    public init(configuration: Configuration, transport: any HTTPTransport) {
        core = ClientCore(configuration: configuration, transport: transport)
    }

    /// Creates a client for `baseURL` with the `URLSession` transport, and the default
    /// configuration as `configure` changes it (Get's `APIClient(baseURL:_:)`).
    ///
    /// ```swift
    /// let client = NetworkClient(baseURL: URL(string: "https://api.example.com/v1")!) {
    ///     $0.timeout = 20
    ///     $0.plugins = [LoggingPlugin()]
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - baseURL: The URL endpoint paths are appended to.
    ///   - configure: Changes the configuration before the client is made. Default: none.
    public convenience init(baseURL: URL, _ configure: (inout Configuration) -> Void = { _ in }) {
        var configuration = Configuration(baseURL: baseURL)
        configure(&configuration)
        self.init(configuration: configuration)
    }

    deinit {
        core.gate.close()
    }

    /// The request that would be sent for `endpoint`, minus credentials (the authenticator,
    /// plugins and ``Configuration/requestAdapters`` are applied later, when the request leaves
    /// the pause gate).
    ///
    /// - URL: the base URL's path and the endpoint's path joined with exactly one "/"
    ///   (an empty path keeps the base URL as it is); characters not allowed in a path, such as
    ///   spaces, "?" and "#", are percent-encoded (existing `%XX` escapes are kept, so put query
    ///   items in ``Endpoint/query``, not in the path); query items are appended
    ///   after any query of the base URL, percent-encoded, with "+" sent as `%2B`.
    /// - Headers: ``Configuration/defaultHeaders``, then the body's `Content-Type`, then the
    ///   endpoint's ``Endpoint/headers``; a later source wins over an earlier one for the same
    ///   name in any letter case.
    /// - Body: the encoded ``Endpoint/body``; a ``RequestBody/file(_:contentType:)`` body as a
    ///   stream over the file, and a multipart form with file parts read into memory whole (the
    ///   pipeline streams a large one from a temporary copy instead), so that tests see its bytes.
    /// - Timeout: ``Endpoint/timeout``, or else ``Configuration/timeout``.
    /// - Cache policy: ``Endpoint/cachePolicy``, or else ``Configuration/cachePolicy``.
    /// - Then the endpoint's ``Endpoint/requestModifier``, if any (a multipart form with file
    ///   parts is read into the body after it).
    ///
    /// ```swift
    /// let request = try client.makeURLRequest(for: GetUser(id: 42))
    /// print(request.url!)   // https://api.example.com/v1/users/42
    /// ```
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when the base URL has no scheme or host,
    ///   the path is a whole URL or has a ".." segment, the timeout is not positive, the body
    ///   cannot be encoded, a header field or the method cannot be sent, or the request modifier
    ///   changed the URL.
    public func makeURLRequest<E: Endpoint>(for endpoint: E) throws -> URLRequest {
        try core.builder.makeURLRequest(for: endpoint)
    }

    // MARK: Traffic control

    /// Holds every request that has not left the client's queue yet (new ones included) until
    /// ``resume()``. Pauses are counted: two pauses need two resumes.
    ///
    /// Endpoints with ``Endpoint/requiresAuthentication`` set to `false` are never held (that is
    /// the lane a credential refresh uses). A held request's timeout keeps running, and a held
    /// request can be cancelled: it then fails with ``NetworkError/cancelled`` at once and is
    /// never sent.
    public func pause() {
        core.gate.pause()
    }

    /// Balances one ``pause()``. When the last pause is balanced, held requests leave in the
    /// order they were issued (those that will carry the credential wait for a credential
    /// refresh that is running, which pauses apart). A resume without a matching pause does
    /// nothing, and never releases requests a refresh holds.
    public func resume() {
        core.gate.resume()
    }

    /// `true` while at least one ``pause()`` has not been balanced by a ``resume()``, or while a
    /// credential refresh holds traffic.
    public var isPaused: Bool {
        core.gate.isPaused
    }

    /// Cancels every request of this client that has not settled (or those `shouldCancel`
    /// picks), wherever each one is: held by a pause, being sent, waiting to retry, waiting for
    /// a credential refresh. Each settles with ``NetworkError/cancelled`` at once, in every call
    /// style. A streamed body still being read (after ``stream(_:)`` returned) ends with it too,
    /// and so does an event source, connected or waiting to reconnect; each counts as one.
    ///
    /// A credential refresh already running is not stopped: its requests are cancelled, and it
    /// finishes on its own (a ``TokenAuthenticator`` then drops its token if you called
    /// ``TokenAuthenticator/setToken(_:)`` meanwhile).
    ///
    /// Requests made afterwards run as usual: this is a clean-up (on logout, when a screen goes
    /// away), not a switch. Alamofire's `Session.cancelAllRequests()`.
    ///
    /// ```swift
    /// func logOut() {
    ///     client.cancelAll()                                       // nothing in flight survives
    ///     client.cancelAll { $0.path.hasPrefix("search") }         // or only some of them
    /// }
    /// ```
    ///
    /// - Parameter shouldCancel: Picks the requests to cancel by the endpoint the caller passed
    ///   (for a ``Request`` made from another endpoint, the `Request`: the original is in its
    ///   ``Request/base``); default: all of them. Called outside every lock of the client.
    /// - Returns: How many requests this call cancelled.
    @discardableResult
    public func cancelAll(where shouldCancel: (any Endpoint) -> Bool = { _ in true }) -> Int {
        var cancelled = 0
        for request in core.liveRequests.snapshot() where shouldCancel(request.endpoint) {
            if request.cancelIfPending() { cancelled += 1 }
        }
        return cancelled
    }
}
