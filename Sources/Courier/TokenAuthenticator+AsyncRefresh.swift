import Foundation
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The initialisers whose refresh is `async` code instead of a promise; each runs the closure in a
/// `Task` and hands the designated initialiser the promise of its outcome.
extension TokenAuthenticator {
    /// Creates a token authenticator whose refresh is `async` code (Get's style), for example a
    /// call through the same client:
    ///
    /// ```swift
    /// let auth = TokenAuthenticator(token: keychain.accessToken) { _ in
    ///     try await client.send(Auth.refresh(refreshToken: keychain.refreshToken)).accessToken
    /// }
    /// ```
    ///
    /// The closure runs in a new `Task`. The authenticator shares it among the clients that
    /// wait for it, and cancels it once every one of them has given up: each waits at most its
    /// ``NetworkClient/Configuration/timeout``, after which its waiting requests fail with
    /// ``NetworkError/authenticationFailed(underlying:)`` (`PromiseError.timedOut`). Cancelling
    /// requests does not stop it. What it throws fails the requests that were rejected with `401`
    /// with ``NetworkError/authenticationFailed(underlying:)``, as a rejected refresh promise
    /// does. Everything else is as with the promise-returning form.
    ///
    /// - Parameters:
    ///   - token: The current token, or `nil` when there is none yet.
    ///   - headerField: The header that carries the token. Default: `Authorization`.
    ///   - scheme: Written before the token. Default: `Bearer`; `nil` sends the bare token.
    ///   - refreshLimit: The refresh loop guard. Default: three refreshes per minute.
    ///   - refresh: Obtains a new token, given the one that was rejected. Requests it makes itself
    ///     must use endpoints with `requiresAuthentication == false`, which are never held.
    public convenience init(
        token: String?,
        headerField: String = "Authorization",
        scheme: String? = "Bearer",
        refreshLimit: RefreshLimit = .default,
        refresh: @escaping @Sendable (_ expiredToken: String?) async throws -> String
    ) {
        self.init(token: token, headerField: headerField, scheme: scheme, refreshLimit: refreshLimit) { expired in
            Promise { try await refresh(expired) }
        }
    }

    /// Creates a token authenticator that knows when its tokens expire and renews one ahead
    /// (see ``init(credential:headerField:scheme:refreshLimit:refreshMargin:now:refresh:)-(_,_,_,_,_,_,(String?)->Promise<TokenCredential>)``),
    /// with an `async` refresh run in a `Task` as
    /// ``init(token:headerField:scheme:refreshLimit:refresh:)-(_,_,_,_,(String?)->String)`` describes.
    ///
    /// ```swift
    /// let auth = TokenAuthenticator(credential: saved) { _ in
    ///     let renewed = try await client.send(Auth.refresh(refreshToken: keychain.refreshToken))
    ///     return TokenCredential(token: renewed.accessToken, expiresAt: Date().addingTimeInterval(renewed.expiresIn))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - credential: The current token and its expiry, or `nil` when there is none yet.
    ///   - headerField: The header that carries the token. Default: `Authorization`.
    ///   - scheme: Written before the token. Default: `Bearer`; `nil` sends the bare token.
    ///   - refreshLimit: The refresh loop guard. Default: three refreshes per minute.
    ///   - refreshMargin: How long before the expiry the token is renewed, in seconds. Default: 60.
    ///   - now: The clock expiries are compared with. Default: `Date()`; tests pass their own.
    ///   - refresh: Obtains a new token and its expiry, given the one being replaced.
    public convenience init(
        credential: TokenCredential?,
        headerField: String = "Authorization",
        scheme: String? = "Bearer",
        refreshLimit: RefreshLimit = .default,
        refreshMargin: TimeInterval = 60,
        now: @escaping @Sendable () -> Date = { Date() },
        refresh: @escaping @Sendable (_ expiredToken: String?) async throws -> TokenCredential
    ) {
        self.init(
            credential: credential, headerField: headerField, scheme: scheme, refreshLimit: refreshLimit,
            refreshMargin: refreshMargin, now: now
        ) { expired in
            Promise { try await refresh(expired) }
        }
    }
}
