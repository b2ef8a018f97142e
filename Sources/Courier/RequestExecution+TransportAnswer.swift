import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestExecution {
    // MARK: The transport's answer

    /// The transport's answer for `attempt`.
    ///
    /// `sentOnCallersThread` tells where `send` was called: an answer that arrives inside `send`
    /// runs there too. `ending`: a download's attempt token, ended once the answer is taken (any
    /// part it left is kept by then), before the outcome is delivered.
    func transportCompleted(
        _ result: Result<HTTPResponse, any Error>, attempt: Int, request sent: URLRequest, generation: UInt64,
        sentOnCallersThread: Bool, ending token: TransportAttempt? = nil
    ) {
        if case .failure(let failure) = result, let interrupted = failure as? InterruptedDownload {
            return downloadInterrupted(interrupted, attempt: attempt, request: sent, generation: generation,
                                       sentOnCallersThread: sentOnCallersThread, ending: token)
        }
        if context.writesBodyToFile, case .success(let response) = result, let unresumed = response.unresumedPart {
            return errorAnswerToResume(response, unresumed: unresumed.part, attempt: attempt, request: sent,
                                       generation: generation, sentOnCallersThread: sentOnCallersThread, ending: token)
        }
        var finishedTask = Phase.evaluating  // the transport's task, released after the lock
        let now = clock?.now
        let accepted = state.withLock { state -> (deadline: ScheduledWork?, duringSend: Bool)? in
            guard state.attempt == attempt else { return nil }
            let duringSend: Bool
            switch state.phase {
            case .preparing: duringSend = true
            case .sending: duringSend = false
            default: return nil
            }
            if let now { state.timeline?.endExchange(at: now) }
            swap(&finishedTask, &state.phase)
            state.authenticationGeneration = generation
            defer { state.deadline = nil }
            return (state.deadline, duringSend)
        }
        withExtendedLifetime(finishedTask) {}
        guard let accepted else {
            // Late: the request timed out or was cancelled. A body the transport wrote to a
            // file is nobody's now (deleted before the attempt ends: a `pause()` finds it gone).
            DownloadStorage.discard(result)
            token?.end()
            return
        }
        token?.end()
        accepted.deadline?.cancel()
        evaluate(result, request: sent, decodeElsewhere: accepted.duringSend && !sentOnCallersThread)
    }

    /// An error answer (a 401, a 503) to an attempt that asked for the rest of a saved start: the
    /// start is kept for the next attempt (the replay after a credential refresh, or a retry),
    /// as when a transport error cuts a body short, and dropped when the request ends here. Then
    /// the answer is handled as any other.
    @inline(never)
    private func errorAnswerToResume(
        _ response: HTTPResponse, unresumed part: PartialDownload, attempt: Int, request sent: URLRequest,
        generation: UInt64, sentOnCallersThread: Bool, ending token: TransportAttempt?
    ) {
        var answer = response
        answer.unresumedPart = nil
        keepForNextAttempt(part, of: attempt, resumable: context.resumesDownloads)
        transportCompleted(
            .success(answer), attempt: attempt, request: sent, generation: generation,
            sentOnCallersThread: sentOnCallersThread, ending: token)
    }

    /// A download's attempt that a transport error cut short, with the body saved so far: kept
    /// for the next attempt when there may be one (the request is still on this attempt, and the
    /// endpoint accepts the `206` a resumed body ends with), deleted otherwise. Then the error
    /// is handled as any transport error (retried or not).
    ///
    /// The deadline's own cancellation of the attempt arrives here late, the request already
    /// waiting to retry: the saved body is kept then too, so a download that times out resumes.
    @inline(never)
    private func downloadInterrupted(
        _ interrupted: InterruptedDownload, attempt: Int, request sent: URLRequest, generation: UInt64,
        sentOnCallersThread: Bool, ending token: TransportAttempt?
    ) {
        keepForNextAttempt(interrupted.partial, of: attempt, resumable: acceptedStatusCodes.contains(206))
        transportCompleted(
            .failure(interrupted.underlying), attempt: attempt, request: sent, generation: generation,
            sentOnCallersThread: sentOnCallersThread, ending: token)
    }

    /// Keeps `part`, saved by `attempt`, for the next attempt when the request is still on that
    /// attempt and may make another (`resumable`, and not settled); drops it otherwise. The
    /// deadline may have moved the attempt on to evaluating or waiting to retry meanwhile: its
    /// retry still resumes.
    private func keepForNextAttempt(_ part: PartialDownload, of attempt: Int, resumable: Bool) {
        let kept = state.withLock { state -> Bool in
            guard resumable, state.attempt == attempt, state.partialDownload == nil else { return false }
            switch state.phase {
            case .preparing, .sending, .evaluating, .decidingRetry, .waitingToRetry: break
            default: return false
            }
            state.partialDownload = part
            return true
        }
        if !kept { drop(part) }
    }
}
