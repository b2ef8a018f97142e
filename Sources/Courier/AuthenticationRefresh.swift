import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// A request that failed authentication and waits for the refresh to finish.
protocol AuthenticationWaiter: AnyObject, Sendable {
    /// Sends the request again; it re-enters the gate, so it leaves with the new credential.
    func replayAfterAuthentication() -> Bool
    /// Ends the request with `error`.
    func fail(_ error: NetworkError)
    /// The refresh it waited for failed with `error`: ends the request with it, or, for a
    /// request that waited before it was ever sent, sends it with the current credential.
    func refreshFailed(_ error: NetworkError)
}

/// The client's single-flight credential refresh.
///
/// When a request fails authentication with the current credential, the gate holds the requests
/// that carry the credential (a refresh pause, apart from the user's), one refresh runs, and
/// every request that failed meanwhile waits for it.
/// Success replays the waiters, failure fails them with ``NetworkError/authenticationFailed(underlying:)``;
/// either way the pause is lifted. A request that carried an already-replaced credential is
/// replayed at once without a refresh.
final class AuthenticationRefresh: Sendable {
    private enum Step { case joined, replay, refresh, failed(any Error) }

    private struct State: Sendable {
        var isRefreshing = false
        var waiters: [any AuthenticationWaiter] = []
        /// Incremented whenever a refresh ends.
        var generation: UInt64 = 0
        /// The last refresh that failed: the credential it tried to replace, when it ended, why.
        var lastFailure: (credential: String?, generation: UInt64, error: any Error)?
    }

    private let state = Protected(State())

    /// The number of refreshes that have ended; a request notes it when it leaves with its credential.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Handles one authentication failure of `waiter`, which sent `request`.
    ///
    /// A request that left before a refresh of the same credential failed (it was in flight
    /// while that refresh ran) fails with that refresh's error instead of starting another one.
    func handleFailure(
        of waiter: any AuthenticationWaiter, request: URLRequest, sentInGeneration: UInt64,
        authenticator: any Authenticator, core: ClientCore
    ) {
        let failedCredential = authenticator.credentialIdentifier(of: request)
        let step = decide(
            for: waiter, failedCredential: failedCredential, sentInGeneration: sentInGeneration,
            authenticator: authenticator, baseURL: core.configuration.baseURL)
        switch step {
        case .joined:
            break
        case .replay:
            _ = waiter.replayAfterAuthentication()
        case .failed(let error):
            waiter.fail(.authenticationFailed(underlying: error))
        case .refresh:
            core.gate.pause(.refresh)
            authenticator.refresh(failedCredential: failedCredential)
                .timeout(seconds: core.configuration.timeout)
                .tap { [self] result in finish(result, replacing: failedCredential, gate: core.gate) }
                .catch { _ in }
        }
    }

    /// What to do with one authentication failure; registers `waiter` when it joins or starts a refresh.
    ///
    /// The current credential is read outside the lock (`apply` is user code). A refresh that ends
    /// meanwhile may have replaced it, so the decision is taken only if no refresh ended since the
    /// read; otherwise the credential is read again. (Without this check a stale read started a
    /// second refresh right after the first one ended.) Each repeat needs a refresh to have ended.
    private func decide(
        for waiter: any AuthenticationWaiter, failedCredential: String?, sentInGeneration: UInt64,
        authenticator: any Authenticator, baseURL: URL
    ) -> Step {
        while true {
            let observedGeneration = generation
            let current = authenticator.credentialIdentifier(of: authenticator.apply(to: URLRequest(url: baseURL)))
            let step = state.withLock { state -> Step? in
                guard state.generation == observedGeneration else { return nil }
                if state.isRefreshing {
                    state.waiters.append(waiter)
                    return .joined
                }
                if let failure = state.lastFailure, failure.credential == failedCredential,
                    sentInGeneration < failure.generation
                {
                    return .failed(failure.error)
                }
                // The credential changed since this request left (also: it left with none, and one
                // exists now): a replay carries the current one, no refresh needed.
                if let current, failedCredential != current { return .replay }
                state.isRefreshing = true
                state.waiters.append(waiter)
                return .refresh
            }
            if let step { return step }
        }
    }

    private func finish(_ result: Result<Void, any Error>, replacing credential: String?, gate: RequestGate) {
        let waiters = state.withLock { state -> [any AuthenticationWaiter] in
            state.isRefreshing = false
            state.generation += 1
            if case .failure(let error) = result {
                state.lastFailure = (credential, state.generation, error)
            } else {
                state.lastFailure = nil
            }
            defer { state.waiters = [] }
            return state.waiters
        }
        switch result {
        case .success:
            for waiter in waiters { _ = waiter.replayAfterAuthentication() }
            gate.resume(.refresh)
        case .failure(let error):
            // Traffic flows again before any caller hears of the failure, so that one who checks
            // `isPaused` on hearing it finds the client unpaused.
            gate.resume(.refresh)
            let failure = NetworkError.authenticationFailed(underlying: error)
            for waiter in waiters { waiter.refreshFailed(failure) }
        }
    }
}
