import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkError {
    /// `true` when the failure says the credential is no good any more and the user has to sign
    /// in again; `false` when trying again later may still succeed with the credential you have.
    ///
    /// ``authenticationFailed(underlying:)`` covers both a refresh the server refused and one
    /// that never finished: a refresh waits at most the client's
    /// ``NetworkClient/Configuration/timeout``, so on a slow or lost connection the requests that
    /// waited for it fail with `.authenticationFailed(underlying: PromiseError.timedOut)`. Signing
    /// the user out then would be wrong; this property tells the two apart.
    ///
    /// It is `true` for an ``authenticationFailed(underlying:)`` whose underlying error is:
    /// - the server's refusal of the refresh: a ``clientError(statusCode:metadata:response:)``
    ///   with `400` (OAuth's `invalid_grant` and `invalid_client`), `401` or `403`;
    /// - an ``AuthenticationError``: the refresh loop guard stopped refreshing, or the refresh
    ///   gave a token that cannot be sent;
    /// - a refused authentication challenge: `URLError(.userCancelledAuthentication)` or
    ///   `URLError(.userAuthenticationRequired)`.
    ///
    /// It is `false` for every other case, and for an authentication failure whose refresh timed
    /// out (`PromiseError.timedOut`, ``timedOut``), could not reach the server (``transport(underlying:)``,
    /// a `URLError`), met a server error (`5xx`, `408`, `429`), was cancelled, or whose answer did
    /// not decode, and for any other `4xx` (a `404` or `405` from a refresh endpoint that moved
    /// or is being deployed says nothing about the user's credential). An error your own refresh
    /// closure throws (say, no refresh token is stored) is
    /// none of these and gives `false`: look for it in ``underlyingError``. A request replayed
    /// with a new credential and rejected again ends with the server's `401` as a
    /// ``clientError(statusCode:metadata:response:)``, not here.
    ///
    /// ```swift
    /// } catch let error as NetworkError where error.isCredentialRejected {
    ///     session.signOut()
    /// } catch NetworkError.authenticationFailed {
    ///     banner.show("Could not renew your session. Try again.")
    /// }
    /// ```
    public var isCredentialRejected: Bool {
        guard case .authenticationFailed(let underlying) = self else { return false }
        return Self.rejectsCredential(underlying)
    }

    /// Whether `error`, the cause of an authentication failure, is a refusal of the credential.
    private static func rejectsCredential(_ error: any Error) -> Bool {
        if let network = error as? NetworkError {
            switch network {
            case .clientError(let statusCode, _, _):
                return statusCode == 400 || statusCode == 401 || statusCode == 403
            case .authenticationFailed:
                // A refresh made through a client with an authenticator of its own.
                return network.isCredentialRejected
            case .serverError, .unexpectedStatus, .decodingFailed, .transport, .timedOut, .cancelled, .invalidRequest:
                return false
            }
        }
        if error is AuthenticationError { return true }
        guard let code = RetryPolicy.urlErrorCode(of: error) else { return false }
        return code == .userCancelledAuthentication || code == .userAuthenticationRequired
    }
}
