import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// Adds credentials to requests and renews them when the server rejects them.
///
/// The client calls ``apply(to:)`` as each request leaves the pause gate (so requests held
/// during a refresh go out with the new credential), only for endpoints whose
/// ``Endpoint/requiresAuthentication`` is `true`. When a response is an authentication
/// failure (``isAuthenticationFailure(_:)``) the client asks for a ``refresh(failedCredential:)``.
///
/// ```swift
/// struct APIKeyAuthenticator: Authenticator {
///     let key: String
///     func apply(to request: URLRequest) -> URLRequest {
///         var request = request
///         request.setValue(key, forHTTPHeaderField: "X-Api-Key")
///         return request
///     }
///     func refresh(failedCredential: String?) -> Promise<Void> {
///         Promise(error: NetworkError.invalidRequest(reason: "API keys cannot be refreshed"))
///     }
/// }
/// ```
public protocol Authenticator: Sendable {
    /// Returns `request` with the current credential added.
    func apply(to request: URLRequest) -> URLRequest

    /// Whether `response` means the credential was rejected. Default: status 401.
    ///
    /// Keep it fast and non-blocking: for a ``NetworkClient/stream(_:)`` request it is asked
    /// about the response head on the transport's own queue (with an empty body), before the
    /// body streams.
    func isAuthenticationFailure(_ response: HTTPResponse) -> Bool

    /// Which credential `request` carried (for example the token), so that a refresh is skipped
    /// when a newer credential already replaced the one that failed. Default: `nil`.
    func credentialIdentifier(of request: URLRequest) -> String?

    /// Obtains a new credential.
    ///
    /// - Parameter failedCredential: The ``credentialIdentifier(of:)`` of the request that failed.
    /// - Returns: A promise that fulfils once the new credential is in place, or rejects when
    ///   no credential can be obtained.
    func refresh(failedCredential: String?) -> Promise<Void>

    /// Whether the credential should be renewed before the next request is sent (it is about to
    /// expire). Default: `false`, credentials are renewed only after an authentication failure.
    ///
    /// The client asks as each request leaves the gate. When `true`, the request does not go
    /// out: it waits for ``refresh(failedCredential:)`` exactly as a request rejected with 401
    /// would (one refresh for all, traffic held), then leaves with the new credential; when the
    /// refresh fails, it leaves with the current credential and the server decides. A request
    /// waits for at most one such refresh. Return `false` after a refresh failed (until a new
    /// credential is in place), or every request would start one; keep this property quick (it
    /// runs for every request).
    var requiresRefresh: Bool { get }
}

extension Authenticator {
    /// Default: `true` for status 401 Unauthorized.
    public func isAuthenticationFailure(_ response: HTTPResponse) -> Bool {
        response.statusCode == 401
    }

    /// Default: `nil` (the credential is not identified).
    public func credentialIdentifier(of request: URLRequest) -> String? {
        nil
    }

    /// Default: `false`.
    public var requiresRefresh: Bool { false }
}
