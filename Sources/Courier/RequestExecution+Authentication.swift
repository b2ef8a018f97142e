import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Authentication failures and credential refreshes

    /// The seam for the credential refresh: called when the authenticator recognises `response`
    /// as an authentication failure on an endpoint that requires authentication.
    ///
    /// Hands the request to the client's single-flight refresh (traffic paused), which then calls
    /// ``replayAfterAuthentication()`` once, or ``fail(_:)``; a replay rejected again fails with
    /// `error`. The execution stays in the evaluating phase meanwhile, so a cancellation still
    /// settles it at once.
    ///
    /// - Parameters:
    ///   - error: The classified error of the response (usually a 401 ``NetworkError/clientError``).
    ///   - response: The response that was recognised as an authentication failure.
    ///   - request: The request as sent, credentials included (see ``Authenticator/credentialIdentifier(of:)``).
    ///   - authenticator: The client's authenticator.
    func handleAuthenticationFailure(
        _ error: NetworkError, response: HTTPResponse, request: URLRequest, authenticator: any Authenticator
    ) {
        // A replay that is rejected again is not refreshed again: the server's answer stands.
        guard authenticationReplayCount == 0 else { return fail(error) }
        let generation = state.withLock { $0.authenticationGeneration }
        core.authenticationRefresh.handleFailure(
            of: self, request: request, sentInGeneration: generation, authenticator: authenticator, core: core)
    }

    /// How many times the request was replayed after an authentication failure.
    var authenticationReplayCount: Int {
        state.withLock { $0.authenticationReplays }
    }

    /// Runs the request again from the gate (fresh credential, fresh deadline) without using a
    /// retry. Returns `false` when it had settled (for example it was cancelled meanwhile).
    @discardableResult
    func replayAfterAuthentication() -> Bool {
        let replay = state.withLock { state -> (allowed: Bool, waitDeadline: ScheduledWork?) in
            guard case .evaluating = state.phase else { return (false, nil) }
            if !state.replayingAfterRefreshBeforeSending { state.authenticationReplays += 1 }
            return (true, state.endWaitBeforeSending())
        }
        replay.waitDeadline?.cancel()
        if replay.allowed { beginAttempt() }
        return replay.allowed
    }

    /// Holds the attempt that just left the gate for a credential refresh, because the
    /// authenticator says its credential is about to expire (``Authenticator/requiresRefresh``):
    /// the attempt waits exactly as one rejected with 401 does, and is replayed (not counted as a
    /// replay) once the refresh succeeds. Nothing was sent, so no plugin hears of it.
    ///
    /// Returns `false`, and the attempt goes on, when the request already waited for such a
    /// refresh, or was cancelled or timed out since it left the gate.
    func waitForRefreshBeforeSending(attempt: Int, partial: PartialDownload?, authenticator: any Authenticator) -> Bool {
        // The attempt's deadline keeps running: a request whose timeout passes while it waits
        // ends with `.timedOut` (see `deadlineFired`), and a replay starts a fresh one.
        let now = clock?.now
        let waits = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .preparing = state.phase, !state.deadlinePassedWhilePreparing,
                  !state.refreshedBeforeSending else { return false }
            state.phase = .evaluating
            if let now { state.timeline?.endExchange(at: now) }
            state.refreshedBeforeSending = true
            state.replayingAfterRefreshBeforeSending = true
            state.partialDownload = partial   // for the replay, as a retry would
            return true
        }
        guard waits else { return false }
        // Off this thread: it may be the caller's (inside `request`), or a gate's queue releasing
        // held requests, and the refresh starts user code.
        let credentialed = authenticator.apply(to: request)
        DispatchQueue.global().async { [self] in
            core.authenticationRefresh.handleFailure(
                of: self, request: credentialed, sentInGeneration: core.authenticationRefresh.generation,
                authenticator: authenticator, core: core)
        }
        return true
    }

    /// The refresh this request waited for failed. A request that waited before it was ever
    /// sent goes out with the credential it has (the server decides, and a 401 then refreshes as
    /// usual); one that was rejected fails with `error`.
    func refreshFailed(_ error: NetworkError) {
        let outcome = state.withLock { state -> (sendAnyway: Bool, waitDeadline: ScheduledWork?) in
            guard case .evaluating = state.phase, state.replayingAfterRefreshBeforeSending else { return (false, nil) }
            return (true, state.endWaitBeforeSending())
        }
        outcome.waitDeadline?.cancel()
        if outcome.sendAnyway { beginAttempt() } else { fail(error) }
    }
}
