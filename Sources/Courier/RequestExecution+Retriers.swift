import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Request retriers

    /// Asks `retriers`, in order, whether to retry after `error` (see ``RequestRetrier``); the
    /// request waits in `decidingRetry` meanwhile, under a time limit of its own.
    /// `sent` is the failed attempt's request as sent (`nil`: it never reached the transport).
    func askRetriers(_ retriers: [any RequestRetrier], about error: NetworkError, sent: URLRequest?) {
        let asked = state.withLock { state -> (context: RetryContext, attempt: Int)? in
            guard case .evaluating = state.phase else { return nil }
            let context = RetryContext(
                retryCount: state.retriesUsed + state.retrierRetries, retrierRetryCount: state.retrierRetries,
                wasSent: sent != nil)
            return (context, state.attempt)
        }
        guard let (context, attempt) = asked else { return fail(error) }   // settled meanwhile: does nothing
        let endpoint = endpoint
        let request = sent ?? request
        var decision = retriers[0].retry(request, for: endpoint, dueTo: error, context: context)
        for retrier in retriers.dropFirst() {
            decision = decision.then { decided -> Promise<RetryDecision> in
                guard case .doNotRetry = decided.kind else { return .value(decided) }
                return retrier.retry(request, for: endpoint, dueTo: error, context: context)
            }
        }
        let registered = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .evaluating = state.phase else { return false }
            state.phase = .decidingRetry(decision, nil)
            return true
        }
        guard registered else {
            decision.cancel()
            return fail(error)   // settled meanwhile: does nothing
        }
        let asking = decision
        _ = decision.tap(on: .global()) { [self] result in
            decided(result, after: error, by: asking)
        }
        // Scheduled once the request is deciding, so that it cannot fire unheard; keyed by the
        // decision, so that neither the attempt's late deadline nor a later decision is confused
        // with it.
        let limit = core.configuration.scheduler.schedule(after: timeout) { [self] in
            decisionTimedOut(asking)
        }
        let kept = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .decidingRetry(let current, nil) = state.phase, current === decision else {
                return false
            }
            state.phase = .decidingRetry(current, limit)
            return true
        }
        if !kept { limit.cancel() }
    }

    /// The time limit of `decision` passed: the decision is cancelled, which `decided` hears as
    /// "do not retry". Does nothing when the request has moved on.
    private func decisionTimedOut(_ decision: Promise<RetryDecision>) {
        let current = state.withLock { state -> Bool in
            guard case .decidingRetry(let asked, _) = state.phase else { return false }
            return asked === decision
        }
        if current { decision.cancel() }
    }

    /// The retriers asked by `askRetriers` answered `result` about `error`: retries, or fails.
    /// Does nothing when the request settled meanwhile (cancelled).
    private func decided(_ result: Result<RetryDecision, any Error>, after error: NetworkError, by decision: Promise<RetryDecision>) {
        let limit = state.withLock { state -> ScheduledWork?? in
            guard case .decidingRetry(let asked, let limit) = state.phase, asked === decision else { return nil }
            state.phase = .evaluating
            return .some(limit)
        }
        guard let limit else { return }
        limit?.cancel()
        let delay: TimeInterval
        switch result {
        case .success(let decided):
            switch decided.kind {
            case .retry(let after): delay = after
            case .doNotRetry: return fail(error)
            case .fail(let replacement): return fail(replacement)
            }
        case .failure:
            // The time limit's cancellation, or the retrier's own failure: a "no".
            return fail(error)
        }
        guard case .claimed(_, let attempt) = claimRetry(limit: nil) else { return fail(error) }
        scheduleRetry(attempt: attempt, after: delay, error)
    }
}
