import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// Changes each outgoing request *asynchronously*, or stops it, just before it is sent:
/// Alamofire's `RequestAdapter`, Get's `willSendRequest`.
///
/// Use an adapter when the change needs work that does not return at once: a token from a
/// keychain item behind Face ID, a Firebase ID token, a signature made by a key in the Secure
/// Enclave, an App Attest assertion. For a quick change (a header, a query item) a
/// ``RequestPlugin``'s `prepare` is simpler; for a bearer token that expires and is refreshed,
/// ``TokenAuthenticator`` also holds traffic and replays rejected requests.
///
/// ```swift
/// struct SigningAdapter: RequestAdapter {
///     let signer: RequestSigner
///     func adapt(_ request: URLRequest, for endpoint: any Endpoint) -> Promise<URLRequest> {
///         signer.signature(for: request).map { signature in
///             var signed = request
///             signed.setValue(signature, forHTTPHeaderField: "X-Signature")
///             return signed
///         }
///     }
/// }
///
/// var configuration = NetworkClient.Configuration(baseURL: api)
/// configuration.requestAdapters = [SigningAdapter(signer: signer)]
/// ```
///
/// In async code, ``AsyncRequestAdapter`` wraps a closure:
///
/// ```swift
/// configuration.requestAdapters = [AsyncRequestAdapter { request, _ in
///     var request = request
///     request.setValue(try await appCheck.token(), forHTTPHeaderField: "X-App-Check-Token")
///     return request
/// }]
/// ```
///
/// **When it runs.** Once per attempt (retries and replays after a credential refresh run it
/// again, so a signature always covers what is sent), after the request left the pause gate, the
/// authenticator applied its credential and every plugin's `prepare` ran, so it sees the request
/// exactly as it would go. The endpoint's own ``Endpoint/requestAdapters`` run first, then those
/// of ``NetworkClient/Configuration/requestAdapters``, in order, each given what the previous one
/// returned; then the headers are checked again, plugins hear `willSend`, and the transport gets
/// the result.
///
/// **Threads.** The first adapter's `adapt` is called on the thread the request leaves the pause
/// gate on: inside `request(_:)` on the caller's thread (possibly the main thread) when nothing is
/// held, otherwise on the client's gate queue; the next ones on `DispatchQueue.promises`.
/// So `adapt` must return at once: do the slow part inside the promise. A request the adapter
/// itself makes through the same client is adapted too; skip it by its endpoint (for example
/// `endpoint.requiresAuthentication == false`), or it waits for itself.
///
/// **A promise of its own for each call.** Cancelling a request cancels its adapter's promise,
/// and a cancellation travels upstream through the chain it was made from. An adapter that
/// returns `shared.map { … }` over one promise that several requests share (a token fetch in
/// progress) would cancel that fetch for all of them; hand each call a new promise instead:
///
/// ```swift
/// let (promise, resolver) = Promise<URLRequest>.pending()
/// tokenFetch.done { token in resolver.fulfill(request.signed(with: token)) }
///           .catch { resolver.reject($0) }
/// return promise   // cancelling it leaves `tokenFetch` alone
/// ```
///
/// Or keep the fetch as a `SharedPromise` (`Promise.shared()`) and return
/// `tokenFetch.makePromise().map { request.signed(with: $0) }`: each request then cancels only its
/// own consumer, and the fetch stops once every request waiting on it has given up (start a new
/// one on the next call when it was cancelled).
///
/// **Deadline and cancellation.** The request's timeout covers the adaptation: when it passes, or
/// the caller cancels, the adapter's promise is cancelled (its `onCancel` hook runs, and an
/// ``AsyncRequestAdapter``'s task is cancelled) and the request ends with
/// ``NetworkError/timedOut`` (or is retried by its policy) or ``NetworkError/cancelled`` at once,
/// without waiting for the adapter.
///
/// **Failure.** A rejected promise stops the request before anything is sent; it is not
/// retried, and plugins hear no `willSend` or `didReceive` for the attempt (their `didFinish`
/// reports the error). A ``NetworkError`` is used as it is (reject with
/// `.invalidRequest(reason:)` or `.cancelled` to say why); a cancellation error becomes
/// ``NetworkError/cancelled``; `URLError.timedOut` and `PromiseError.timedOut` become
/// ``NetworkError/timedOut`` (not retried either); any other error becomes
/// ``NetworkError/authenticationFailed(underlying:)``, since adapters almost always obtain a
/// credential of some kind.
///
/// **Bodies and secrets.** Do not read the request's `httpBodyStream`: it is the stream the
/// transport sends. A header the adapter adds is redacted in logs and descriptions, and removed
/// on a redirect to another host, when its name looks like a credential (it contains `token`,
/// `signature`, `session`, `authorization`, …); mark any other with
/// ``NetworkClient/markSensitiveHeader(_:)``.
///
/// **Other servers.** A request to an origin other than the client's base URL (an endpoint with
/// its own ``Endpoint/baseURL``, a `Request(url:)` to another host) is not adapted, just as it
/// gets no credential from the authenticator, unless the adapter sets
/// ``appliesToOtherOrigins`` to `true`. An endpoint's own ``Endpoint/requestAdapters`` run
/// wherever it goes: it chose them for its own URL.
///
/// ``NetworkClient/makeURLRequest(for:)`` does not run adapters (they are asynchronous, and
/// usually add credentials).
public protocol RequestAdapter: Sendable {
    /// Returns a promise of the request to send in place of `request`.
    ///
    /// - Parameters:
    ///   - request: the request as it would be sent: credential applied, plugins' `prepare` run,
    ///     and the previous adapters' changes made.
    ///   - endpoint: the endpoint it was built from.
    /// - Returns: The request to send, or a rejection that stops it (see the type's
    ///   documentation for how the error is reported).
    func adapt(_ request: URLRequest, for endpoint: any Endpoint) -> Promise<URLRequest>

    /// Whether requests to an origin other than the client's base URL are adapted too, when the
    /// adapter is one of the client's ``NetworkClient/Configuration/requestAdapters`` (an
    /// endpoint's own ``Endpoint/requestAdapters`` are not asked). Default: `false`, so an adapter
    /// that adds a credential never sends it to another server.
    var appliesToOtherOrigins: Bool { get }
}

extension RequestAdapter {
    /// `false`: only requests to the client's own origin are adapted.
    public var appliesToOtherOrigins: Bool { false }
}

/// A ``RequestAdapter`` made from an `async` closure, run in a new `Task` for each attempt.
///
/// ```swift
/// configuration.requestAdapters = [AsyncRequestAdapter { request, endpoint in
///     guard endpoint.requiresAuthentication else { return request }
///     var request = request
///     let token = try await Auth.auth().currentUser?.getIDToken() ?? ""
///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
///     return request
/// }]
/// ```
///
/// The task is cancelled when the request's deadline passes or the caller cancels, and the
/// request does not wait for it to finish.
public struct AsyncRequestAdapter: RequestAdapter {
    private let body: @Sendable (URLRequest, any Endpoint) async throws -> URLRequest

    /// Whether requests to other origins are adapted too (see
    /// ``RequestAdapter/appliesToOtherOrigins``).
    public let appliesToOtherOrigins: Bool

    /// Creates an adapter that runs `adapt` for each attempt.
    ///
    /// - Parameters:
    ///   - appliesToOtherOrigins: Whether requests to another origin than the client's are
    ///     adapted too. Default: `false`.
    ///   - adapt: Returns the request to send, given the request as it would go and its
    ///     endpoint; throwing stops the request (see ``RequestAdapter``).
    public init(
        appliesToOtherOrigins: Bool = false,
        _ adapt: @escaping @Sendable (_ request: URLRequest, _ endpoint: any Endpoint) async throws -> URLRequest
    ) {
        self.appliesToOtherOrigins = appliesToOtherOrigins
        body = adapt
    }

    /// Runs the closure in a new `Task`; cancelling the promise cancels the task.
    public func adapt(_ request: URLRequest, for endpoint: any Endpoint) -> Promise<URLRequest> {
        let body = body
        return Promise { try await body(request, endpoint) }
    }
}
