import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Request retriers

    /// Asks `retriers`, in order, whether to retry after `error` (see ``RequestRetrier``); the
    /// request waits in `decidingRetry` meanwhile, with the decision's time limit as its deadline.
    /// `sent` is the failed attempt's request as sent (`nil`: it never reached the transport).
    func askRetriers(_ retriers: [any RequestRetrier], about error: NetworkError, sent: URLRequest?) {
        let asked = state.withLock { state -> (retryCount: Int, attempt: Int)? in
            guard case .evaluating = state.phase else { return nil }
            return (state.retriesUsed, state.attempt)
        }
        guard let asked else { return fail(error) }   // settled meanwhile: does nothing
        let endpoint = endpoint
        let request = sent ?? request
        let retryCount = asked.retryCount
        var decision = retriers[0].retry(request, for: endpoint, dueTo: error, retryCount: retryCount)
        for retrier in retriers.dropFirst() {
            decision = decision.then { decided -> Promise<RetryDecision> in
                guard case .doNotRetry = decided else { return .value(decided) }
                return retrier.retry(request, for: endpoint, dueTo: error, retryCount: retryCount)
            }
        }
        let attempt = asked.attempt
        let registered = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .evaluating = state.phase else { return false }
            state.phase = .decidingRetry(decision)
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
        // The time limit starts once the request is deciding, so that it cannot fire unheard.
        let limit = core.configuration.scheduler.schedule(after: timeout) { [self] in
            deadlineFired(attempt: attempt)
        }
        let kept = state.withLock { state -> Bool in
            guard case .decidingRetry(let current) = state.phase, current === decision else { return false }
            state.deadline = limit
            return true
        }
        if !kept { limit.cancel() }
    }

    /// The retriers asked by `askRetriers` answered `result` about `error`: retries, or fails.
    /// Does nothing when the request settled meanwhile (cancelled).
    private func decided(_ result: Result<RetryDecision, any Error>, after error: NetworkError, by decision: Promise<RetryDecision>) {
        let limit = state.withLock { state -> ScheduledWork?? in
            guard case .decidingRetry(let asked) = state.phase, asked === decision else { return nil }
            state.phase = .evaluating
            defer { state.deadline = nil }
            return .some(state.deadline)
        }
        guard let limit else { return }
        limit?.cancel()
        let delay: TimeInterval
        switch result {
        case .success(.retry):
            delay = 0
        case .success(.retryAfter(let seconds)):
            delay = seconds > 0 ? seconds : 0   // also `NaN`
        case .success(.doNotRetry):
            return fail(error)
        case .success(.fail(let replacement)):
            return fail(replacement)
        case .failure(let rejection):
            // A cancellation (the time limit, or the retrier's own) is a "no"; a NetworkError is
            // what the request fails with; anything else is a "no" too.
            return fail((rejection as? NetworkError) ?? error)
        }
        guard case .claimed(_, let attempt) = claimRetry() else { return fail(error) }
        scheduleRetry(attempt: attempt, after: delay, error)
    }
}
