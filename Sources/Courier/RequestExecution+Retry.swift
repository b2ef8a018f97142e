import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Retry policy

    /// Retries when the policy allows it, otherwise asks the request retriers (see
    /// ``RequestRetrier``), otherwise fails with `error`. Never retries a cancellation. `sent` is
    /// the failed attempt's request as sent, `nil` when it never reached the transport.
    func retryOrFail(_ error: NetworkError, sent: URLRequest?) {
        guard !error.isCancelled else { return fail(error) }
        if let policy = retryPolicy, policy.shouldRetry(error, method: method) {
            switch claimRetry(limit: policy.maximumRetryCount) {
            case .claimed(let retry, let attempt):
                let delay = policy.delay(beforeRetry: retry, after: error)
                return scheduleRetry(attempt: attempt, after: delay, error)
            case .stopped:
                return fail(error)
            case .limitReached:
                break
            }
        }
        // The endpoint's own retriers are asked first, then the client's (as Alamofire asks a
        // request's interceptor before the session's).
        let own = endpoint.requestRetriers
        let shared = core.configuration.requestRetriers
        let retriers = own.isEmpty ? shared : shared.isEmpty ? own : own + shared
        guard !retriers.isEmpty else { return fail(error) }
        askRetriers(retriers, about: error, sent: sent)
    }

    /// Counts a retry and waits for it, when the request is evaluating a failure and (`limit`)
    /// the policy has made fewer than `limit` retries. A retrier's retry (`limit` `nil`) is
    /// counted apart, so that it uses up none of the policy's.
    func claimRetry(limit: Int?) -> RequestRetryClaim {
        let now = clock?.now
        return state.withLock { state -> RequestRetryClaim in
            guard case .evaluating = state.phase else { return .stopped }
            let retry: Int
            if let limit {
                guard state.retriesUsed < limit else { return .limitReached }
                state.retriesUsed += 1
                retry = state.retriesUsed
            } else {
                state.retrierRetries += 1
                retry = state.retrierRetries
            }
            state.phase = .waitingToRetry(nil)
            if let now { state.timeline?.endExchange(at: now) }
            return .claimed(retry: retry, attempt: state.attempt)
        }
    }

    /// Starts the attempt after `attempt`, whose retry was claimed, in `delay` seconds; or fails
    /// with `error` when no scheduler would ever end that wait.
    func scheduleRetry(attempt: Int, after delay: TimeInterval, _ error: NetworkError) {
        // A wait no scheduler ends (infinite, or beyond ~30 years: `maximumDelay` set that high)
        // would leave the request pending for ever: it fails now instead.
        guard delay <= DispatchScheduler.longestDelay else {
            fail(error)
            return
        }
        let work = core.configuration.scheduler.schedule(after: delay) { [self] in
            retryDelayElapsed(attempt: attempt)
        }
        let stale = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .waitingToRetry(nil) = state.phase else { return true }
            state.phase = .waitingToRetry(work)
            return false
        }
        if stale { work.cancel() }
    }

    private func retryDelayElapsed(attempt: Int) {
        let due = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .waitingToRetry = state.phase else { return false }
            state.phase = .evaluating
            return true
        }
        if due { beginAttempt() }
    }

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
