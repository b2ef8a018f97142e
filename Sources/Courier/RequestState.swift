import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestPhase {
    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}

/// Where one request is in its life; see ``RequestExecution``.
enum RequestPhase: Sendable {
    /// Waiting at the gate (held or on its queue).
    case queued(ticket: UInt64)
    /// Left the gate: credentials, plugins and request adapters are being applied, `send` is
    /// being called.
    case preparing
    /// The transport has the request.
    case sending(any TransportTask)
    /// The attempt ended; its outcome is being evaluated (retry, decode).
    case evaluating
    /// The retry policy did not retry the attempt's failure: the request retriers are deciding
    /// (their promise, and the decision's time limit: `nil` until the scheduler handed it back).
    case decidingRetry(Promise<RetryDecision>, ScheduledWork?)
    /// Waiting for the retry delay; `nil` until the scheduler handed back its handle.
    case waitingToRetry((ScheduledWork)?)
    /// Settled: every later event is ignored.
    case finished
}

/// Why a prepared attempt is not sent (see `RequestExecution.passGate`). Declared outside the
/// generic class, like `RequestDeadlineAction`, so that using it needs no run-time metadata.
enum RequestStopBeforeSending {
    /// Cancelled (or superseded) while it was prepared; already settled.
    case cancelled
    /// Its deadline passed while it was prepared; a download's saved part went back to the
    /// state, for the retry.
    case timedOut
    /// Its method or headers failed the check: why, and the deadline to cancel.
    case refused(NetworkError, ScheduledWork?)
}

/// What happens once the transport's `send` returned.
enum RequestAfterSend {
    /// In flight: the transport's task is recorded for cancellation.
    case sending
    /// The deadline passed while the attempt was prepared.
    case timedOut
    /// Cancelled while the attempt was prepared; the request went out anyway.
    case cancelledWhilePreparing
    /// Settled already (answered inside `send`), or cancelled before `send`.
    case settled
}

/// What a deadline does once it fired.
enum RequestDeadlineAction {
    case withdraw(UInt64)
    /// The attempt was with the transport: its task is cancelled, and so is its deadline's
    /// work (which, with an idle timeout, also stops the attempt's ``IdleWatch``).
    case cancel(any TransportTask, URLRequest?, ScheduledWork?)
    /// Nothing was sent yet (a staged form was being written): the request ends.
    case stop
    /// The request waited for a credential refresh before it was ever sent: it ends, and a
    /// download's saved part is deleted.
    case expire(PartialDownload?)
    /// The request adapters were still at work: their promise is cancelled and the attempt
    /// times out (a download's saved part stays in the state, for the retry).
    case stopAdapting(Promise<URLRequest>)
}

/// What `RequestExecution.claimRetry` found. Declared outside the generic class, like
/// `RequestDeadlineAction`, so that using it needs no run-time metadata.
enum RequestRetryClaim {
    /// A retry is claimed: its number (1-based) and the attempt it follows.
    case claimed(retry: Int, attempt: Int)
    /// No more retries are allowed.
    case limitReached
    /// The request settled meanwhile (cancelled), or is no longer evaluating this failure.
    case stopped
}

/// Everything mutable about one request; it lives inside the request's lock.
struct RequestState: Sendable {
    var phase: RequestPhase = .evaluating
    /// Counts attempts; events carry the attempt they belong to.
    var attempt = 0
    /// Retries the retry policy made (its back-off and limit count these only).
    var retriesUsed = 0
    /// Retries the request retriers decided.
    var retrierRetries = 0
    var authenticationReplays = 0
    /// The request waited for a credential refresh before it was first sent (the credential was
    /// about to expire); it does so at most once.
    var refreshedBeforeSending = false
    /// That refresh's replay is due: it does not count as a replay after a rejection.
    var replayingAfterRefreshBeforeSending = false
    /// The auth-refresh generation when the current attempt left with its credential.
    var authenticationGeneration: UInt64 = 0
    var deadline: ScheduledWork?
    /// The deadline fired while the attempt was being prepared; acted on once `send` returns.
    var deadlinePassedWhilePreparing = false
    /// The current attempt's request adapters at work (the attempt is `preparing`, and a
    /// download's saved part waits in ``partialDownload``): a cancellation or the deadline
    /// cancels it and ends the attempt at once.
    var adaptation: Promise<URLRequest>?
    /// The current attempt's request as sent (after credentials and plugins).
    var sentRequest: URLRequest?
    /// The attempt that was being prepared when the request was cancelled: if its `send` runs
    /// anyway (the cancellation came too late to stop it), the plugins hear of the cancellation
    /// after it. Numbered, so that an earlier attempt whose `send` is still returning (it was
    /// answered inside `send`, and the next attempt began meanwhile) does not take it as its own.
    var cancelledWhilePreparing: Int?
    /// A download's body saved so far, from an attempt a transport error cut short, for the next
    /// attempt to resume; deleted when the request ends without one.
    var partialDownload: PartialDownload?
    /// The request's timings for ``RequestMetrics``; `nil` when the client has no plugin to read them
    /// (a reference, so that requests without one carry 8 bytes for it).
    var timeline: RequestTimeline?

    /// Ends a wait for a credential refresh before the attempt was sent, if the attempt is in
    /// one: clears the flag and hands back that attempt's deadline to cancel (the next attempt
    /// starts a fresh one). `nil`, and nothing changes, otherwise.
    mutating func endWaitBeforeSending() -> ScheduledWork? {
        guard replayingAfterRefreshBeforeSending else { return nil }
        replayingAfterRefreshBeforeSending = false
        defer { deadline = nil }
        return deadline
    }
}
