import Foundation
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``Authenticator`` for token credentials sent in one header: `Authorization: Bearer <token>`
/// by default, or a bare token in a header of your choice (`x-auth-token: <token>`).
///
/// When a request fails with 401, the client pauses its traffic and asks this authenticator to
/// refresh. However many requests failed at once, `refresh` runs once; requests that carried an
/// already-replaced token are simply replayed with the new one.
///
/// ```swift
/// let auth = TokenAuthenticator(token: keychain.accessToken) { expired in
///     client.request(Auth.refresh(refreshToken: keychain.refreshToken)).map { $0["token"].string ?? "" }
/// }
/// var configuration = NetworkClient.Configuration(baseURL: api)
/// configuration.authenticator = auth
/// ```
///
/// `@unchecked Sendable`: the token, the refresh in flight and the refresh history are only
/// touched under `lock`; everything else is immutable.
public final class TokenAuthenticator: Authenticator, @unchecked Sendable, CustomStringConvertible {
    /// How many refreshes may start within a time window before the authenticator gives up,
    /// so that a server that rejects every new token cannot cause a refresh loop.
    public struct RefreshLimit: Sendable, Equatable {
        /// The largest number of refreshes that may start within ``window``.
        public var maximumRefreshes: Int
        /// The window, in seconds.
        public var window: TimeInterval

        /// - Parameters:
        ///   - maximumRefreshes: Refreshes allowed within the window. Default: 3.
        ///   - window: The window in seconds. Default: 60. `.infinity` counts every refresh
        ///     ever started; a window of zero or less turns the guard off.
        public init(maximumRefreshes: Int = 3, window: TimeInterval = 60) {
            self.maximumRefreshes = maximumRefreshes
            self.window = window
        }

        /// Three refreshes per minute.
        public static let `default` = RefreshLimit()
    }

    /// The header that carries the token, e.g. `Authorization` or `x-auth-token`.
    public let headerField: String
    /// The scheme written before the token (`Bearer`), or `nil` for a bare token.
    public let scheme: String?
    /// The refresh loop guard.
    public let refreshLimit: RefreshLimit

    /// How long before its expiry a token is renewed ahead of the next request; see
    /// ``init(credential:headerField:scheme:refreshLimit:refreshMargin:now:refresh:)-(_,_,_,_,_,_,(String?)->Promise<TokenCredential>)``.
    public let refreshMargin: TimeInterval

    private let refreshToken: @Sendable (_ expiredToken: String?) -> Promise<TokenCredential>
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var currentToken: String?
    /// When ``currentToken`` expires, and when it was installed; `nil` when not known.
    private var currentExpiry: (expiresAt: Date, installedAt: Date)?
    /// The refresh in progress, shared by its callers; each caller holds a follower of it.
    private var inFlight: Promise<Void>?
    /// The promise the `refresh` closure returned for ``inFlight``: cancelled once every caller
    /// waiting for the refresh gave up, so that a refresh that never ends cannot block the next.
    private var inFlightWork: Promise<TokenCredential>?
    /// Callers of ``inFlight`` that have not given up.
    private var waitingCallers = 0
    /// Counts the refreshes started: one that every caller gave up on, and whose work finished
    /// after a newer one started, must not install its (older) token over the newer one's.
    private var refreshesStarted = 0
    private var refreshStarts: [Date] = []
    /// Bumped by each ``setToken(_:expiresAt:)``: a refresh that started before keeps its token.
    private var tokenChanges = 0
    /// A refresh of the current token failed: it is not renewed ahead of its expiry again (a
    /// 401 decides), so a refresh endpoint that is down cannot cost every request a refresh.
    private var renewalFailed = false

    /// For tests: called with a refresh's number when its work settled, before its token is
    /// installed (`true`) and after its callers were told (`false`), to hold a refresh at that
    /// point as a stalled thread would. `nil` (nothing called) unless a test sets it.
    let refreshFinishingHook = Protected<(@Sendable (_ refresh: Int, _ isBefore: Bool) -> Void)?>(nil)

    /// Creates a token authenticator.
    ///
    /// - Parameters:
    ///   - token: The current token, or `nil` when there is none yet (requests then go out without
    ///     the header and the first 401 triggers a refresh).
    ///   - headerField: The header that carries the token. Default: `Authorization`.
    ///   - scheme: Written before the token, separated by a space. Default: `Bearer`; `nil` sends
    ///     the bare token, as `x-auth-token` style APIs expect.
    ///   - refreshLimit: The refresh loop guard. Default: three refreshes per minute.
    ///   - refresh: Obtains a new token, given the one that was rejected. Requests it makes itself
    ///     must use endpoints with `requiresAuthentication == false`, which are never held.
    public convenience init(
        token: String?,
        headerField: String = "Authorization",
        scheme: String? = "Bearer",
        refreshLimit: RefreshLimit = .default,
        refresh: @escaping @Sendable (_ expiredToken: String?) -> Promise<String>
    ) {
        self.init(
            credential: token.map { TokenCredential(token: $0) }, headerField: headerField, scheme: scheme,
            refreshLimit: refreshLimit
        ) { expired in
            refresh(expired).map { TokenCredential(token: $0) }
        }
    }

    /// Creates a token authenticator that also knows when its tokens expire, and renews one
    /// *before* it expires (Alamofire's `AuthenticationCredential.requiresRefresh`): a request
    /// that leaves the client within `refreshMargin` of the expiry first waits for a refresh,
    /// single-flight and with traffic held exactly as after a 401, so no request goes out with a
    /// token about to lapse. A 401 still refreshes as usual (the server's clock decides).
    ///
    /// ```swift
    /// let auth = TokenAuthenticator(credential: TokenCredential(token: saved.token, expiresAt: saved.expiry)) { _ in
    ///     client.request(Auth.refresh(refreshToken: keychain.refreshToken)).map { json in
    ///         TokenCredential(token: json["access_token"].string ?? "",
    ///                         expiresAt: Date().addingTimeInterval(json["expires_in"].double ?? 0))
    ///     }
    /// }
    /// ```
    ///
    /// A token whose whole life is shorter than twice the margin is renewed halfway through its
    /// life instead (counted from when it was installed). Each request waits for at most one
    /// refresh ahead of sending; when it fails, the request goes out with the token it has and a
    /// 401 decides, and the token is not renewed ahead again until a new one is installed.
    ///
    /// - Parameters:
    ///   - credential: The current token and its expiry, or `nil` when there is none yet.
    ///   - headerField: The header that carries the token. Default: `Authorization`.
    ///   - scheme: Written before the token. Default: `Bearer`; `nil` sends the bare token.
    ///   - refreshLimit: The refresh loop guard. Default: three refreshes per minute.
    ///   - refreshMargin: How long before the expiry the token is renewed, in seconds. Default: 60.
    ///   - now: The clock expiries are compared with. Default: `Date()`; tests pass their own.
    ///   - refresh: Obtains a new token and its expiry, given the one being replaced.
    public init(
        credential: TokenCredential?,
        headerField: String = "Authorization",
        scheme: String? = "Bearer",
        refreshLimit: RefreshLimit = .default,
        refreshMargin: TimeInterval = 60,
        now: @escaping @Sendable () -> Date = { Date() },
        refresh: @escaping @Sendable (_ expiredToken: String?) -> Promise<TokenCredential>
    ) {
        self.headerField = headerField
        self.scheme = scheme
        self.refreshLimit = refreshLimit
        self.refreshMargin = refreshMargin.isNaN ? 0 : max(0, refreshMargin)
        self.refreshToken = refresh
        self.now = now
        self.currentToken = credential?.token
        self.currentExpiry = credential?.expiresAt.map { ($0, now()) }
        Redaction.register(headerName: headerField)
        if let token = credential?.token { Redaction.register(secretValue: token) }
    }

    /// The current token.
    public var token: String? {
        lock.lock()
        defer { lock.unlock() }
        return currentToken
    }

    /// Replaces the token, for apps that refresh by hand: `pause()`, obtain a token,
    /// `setToken(_:)`, `resume()` — held requests then leave with it.
    public func setToken(_ token: String?) {
        setToken(token, expiresAt: nil)
    }

    /// Replaces the token and records when it expires (`nil`: unknown, never renewed ahead).
    ///
    /// A token set here wins over a refresh that is still running: when that refresh finishes,
    /// its token is dropped, and the requests waiting for it go on with the token set here. At
    /// sign-out, call ``NetworkClient/cancelAll(where:)`` too: a request still running that is
    /// answered 401 would start a refresh.
    ///
    /// - Parameters:
    ///   - token: The new token, or `nil` for none.
    ///   - expiresAt: When it expires.
    public func setToken(_ token: String?, expiresAt: Date?) {
        if let token { Redaction.register(secretValue: token) }
        let installed = now()
        lock.lock()
        currentToken = token
        currentExpiry = expiresAt.map { ($0, installed) }
        tokenChanges += 1
        renewalFailed = false
        lock.unlock()
    }

    /// `true` when the token expires within ``refreshMargin`` (or within half its life, when
    /// that is shorter): the client then renews it before sending.
    ///
    /// `false` after a refresh of the current token failed (until a token is installed: requests
    /// go out with the current one and a 401 decides), and for a token from a refresh that was
    /// already expired when it arrived (a clock ahead of the server's).
    public var requiresRefresh: Bool {
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        guard currentToken != nil, !renewalFailed, let (expiresAt, installedAt) = currentExpiry else { return false }
        let margin = min(refreshMargin, max(0, expiresAt.timeIntervalSince(installedAt)) / 2)
        return time >= expiresAt.addingTimeInterval(-margin)
    }

    /// Adds the current token to `request`'s ``headerField``, unless there is no token.
    public func apply(to request: URLRequest) -> URLRequest {
        guard let token else { return request }
        var request = request
        let value = headerValue(for: token)
        if HeaderValidation.isValidValue(value) {
            request.setValue(value, forHTTPHeaderField: headerField)
        } else {
            // FoundationNetworking's `setValue` silently drops a value with a line break, and the
            // request would leave without its credential. Set it as it is instead: the pipeline
            // then refuses the request with `invalidRequest` before it is sent.
            var fields = request.allHTTPHeaderFields ?? [:]
            fields.setCaseInsensitive(headerField, to: value)
            request.allHTTPHeaderFields = fields
        }
        return request
    }

    /// `true` for HTTP 401.
    public func isAuthenticationFailure(_ response: HTTPResponse) -> Bool {
        response.statusCode == 401
    }

    /// The token `request` carried in ``headerField``, without its scheme.
    public func credentialIdentifier(of request: URLRequest) -> String? {
        guard let value = request.value(forHTTPHeaderField: headerField) else { return nil }
        guard let scheme, value.hasPrefix(scheme + " ") else { return value }
        return String(value.dropFirst(scheme.count + 1))
    }

    /// Obtains a new token, once: callers that arrive while a refresh runs share it, and a caller
    /// whose token was already replaced gets an immediately fulfilled promise.
    ///
    /// Each caller gets a promise of its own: cancelling it (or a client's refresh timeout
    /// firing on it) never cancels the refresh that other callers, or other clients sharing
    /// this authenticator, are waiting for. Once every caller gave up, the refresh itself is
    /// cancelled, and the next 401 may start a new one.
    ///
    /// A new token that cannot be sent in a header (it contains CR, LF or NUL) is not installed:
    /// the refresh fails with ``AuthenticationError/unusableToken`` and the old token stays.
    public func refresh(failedCredential: String?) -> Promise<Void> {
        lock.lock()
        if let inFlight {
            waitingCallers += 1
            lock.unlock()
            return follower(of: inFlight)
        }
        if let currentToken, failedCredential != currentToken {
            lock.unlock()
            return .value(())
        }
        let started = now()
        refreshStarts.removeAll { started.timeIntervalSince($0) > refreshLimit.window }
        guard refreshStarts.count < refreshLimit.maximumRefreshes else {
            lock.unlock()
            return Promise(error: AuthenticationError.refreshLimitExceeded(refreshLimit.maximumRefreshes, window: refreshLimit.window))
        }
        refreshStarts.append(started)
        let expired = currentToken
        let (promise, resolver) = Promise<Void>.pending()
        inFlight = promise
        waitingCallers = 1
        refreshesStarted += 1
        let number = refreshesStarted
        let changesAtStart = tokenChanges
        lock.unlock()

        let work = firstly { refreshToken(expired) }
        lock.lock()
        if inFlight === promise { inFlightWork = work }
        lock.unlock()
        work.tap { [self] result in
            let hook = refreshFinishingHook.withLock { $0 }
            hook?(number, true)
            defer { hook?(number, false) }
            var newToken: TokenCredential?
            var wasCancelled = false   // every caller gave up: not a failure of the refresh itself
            let outcome: Result<Void, any Error>
            switch result {
            case .success(let credential) where HeaderValidation.isValidValue(headerValue(for: credential.token)):
                Redaction.register(secretValue: credential.token)
                newToken = credential
                outcome = .success(())
            case .success:
                outcome = .failure(AuthenticationError.unusableToken)
            case .failure(let error):
                wasCancelled = (error as? PromiseError) == .cancelled
                outcome = .failure(error)
            }
            let installed = now()
            lock.lock()
            if refreshesStarted == number, tokenChanges == changesAtStart {
                if let newToken {
                    currentToken = newToken.token
                    // A token that is due the moment it arrives (the device's clock is ahead of the
                    // server's) is not renewed ahead: that would cost every request a refresh.
                    currentExpiry = newToken.expiresAt.flatMap { $0 > installed ? ($0, installed) : nil }
                    renewalFailed = false
                } else if !wasCancelled {
                    renewalFailed = true
                }
            }
            _ = endRefresh(promise)
            lock.unlock()
            resolver.resolve(outcome)
        }.catch { _ in }
        return follower(of: promise)
    }

    /// Forgets `shared` if it is still the refresh in progress, and hands back its work.
    /// Call with `lock` held.
    private func endRefresh(_ shared: Promise<Void>) -> Promise<TokenCredential>? {
        guard inFlight === shared else { return nil }
        defer {
            inFlight = nil
            inFlightWork = nil
            waitingCallers = 0
        }
        return inFlightWork
    }

    /// A promise that settles as `shared` does but has no upstream link to it, so cancelling it
    /// stays with this caller (and counts as this caller giving up).
    private func follower(of shared: Promise<Void>) -> Promise<Void> {
        let (promise, resolver) = Promise<Void>.pending()
        resolver.onCancel { [weak self] in self?.callerGaveUp(on: shared) }
        _ = shared.tap { resolver.resolve($0) }
        return promise
    }

    /// One caller of `shared` cancelled; the last one to do so cancels the refresh itself.
    private func callerGaveUp(on shared: Promise<Void>) {
        lock.lock()
        guard inFlight === shared else { return lock.unlock() }
        waitingCallers -= 1
        let work = waitingCallers <= 0 ? endRefresh(shared) : nil
        lock.unlock()
        work?.cancel()
    }

    /// A description that never shows the token.
    public var description: String {
        "TokenAuthenticator(\(headerField): \(scheme.map { $0 + " " } ?? "")<redacted>)"
    }

    private func headerValue(for token: String) -> String {
        guard let scheme else { return token }
        return scheme + " " + token
    }
}

extension TokenAuthenticator: CustomReflectable {
    /// What `dump()` and the debugger's `po` show: the header and scheme, never the token.
    public var customMirror: Mirror {
        Mirror(self, children: ["headerField": headerField, "scheme": scheme as Any, "token": Redaction.placeholder],
               displayStyle: .class)
    }
}
