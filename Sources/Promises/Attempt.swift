import Dispatch

/// Runs `body`, and runs it again after a delay while it rejects with a retryable error.
///
/// ```swift
/// attempt(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(500),
///         shouldRetry: { ($0 as? NetworkError)?.statusCode == 503 }) {
///     client.request(Feed.latest)
/// }
/// ```
///
/// - Parameters:
///   - maximumRetryCount: How many times to retry; `body` runs at most `1 + maximumRetryCount`
///     times. Default: 3. Negative counts as 0.
///   - delayBeforeRetry: The pause before each retry. Default: 2 seconds. `.never` means no
///     retry at all (a pause that never ends would leave the promise pending forever).
///   - shouldRetry: Decides whether an error is worth another try. Default: every error.
///     A cancellation is never retried. It runs on ``Dispatch/DispatchQueue/promises``, never
///     inside this call or inside the failing try's `reject`.
///   - body: Starts one try. The first try starts synchronously inside this call.
/// - Returns: A promise with the first success, or the last error once retrying stops.
///   Cancelling it cancels the running try (or the pending delay) and stops retrying.
public func attempt<T>(
    maximumRetryCount: Int = 3,
    delayBeforeRetry: DispatchTimeInterval = .seconds(2),
    shouldRetry: @escaping @Sendable (any Error) -> Bool = { _ in true },
    _ body: @escaping @Sendable () -> Promise<T>
) -> Promise<T> {
    let result = Promise<T>(upstream: nil)
    AttemptLoop(result: result, delay: delayBeforeRetry, shouldRetry: shouldRetry, body: body)
        .run(retriesLeft: max(0, maximumRetryCount))
    return result
}

/// One `attempt` in progress; each try and each delay becomes `result`'s upstream, so that
/// cancelling `result` cancels whichever is running.
private struct AttemptLoop<T: Sendable>: Sendable {
    let result: Promise<T>
    let delay: DispatchTimeInterval
    let shouldRetry: @Sendable (any Error) -> Bool
    let body: @Sendable () -> Promise<T>

    func run(retriesLeft: Int) {
        guard result.isPending else { return }  // cancelled just as the delay ended: no new try
        let current = body()
        guard result._setUpstream(current) else {
            current.cancel()  // the attempt was cancelled while this try was starting
            return
        }
        current._observe(.callback { outcome in
            guard case .failure(let error) = outcome, retriesLeft > 0, delay != .never,
                !isCancellation(error), result.isPending
            else {
                result._resolveNested(outcome)
                return
            }
            // `shouldRetry` is the caller's code: it runs on a queue, never inside the call
            // that attached it (a try that rejected at once) nor inside the producer's `reject`.
            DispatchQueue.promises.async { decide(after: error, retriesLeft: retriesLeft) }
        })
    }

    /// Retries after the delay when `shouldRetry` says so, else rejects with `error`.
    private func decide(after error: any Error, retriesLeft: Int) {
        guard result.isPending, shouldRetry(error) else {
            result._resolve(.failure(error))
            return
        }
        let pause = after(delay)
        guard result._setUpstream(pause) else { return pause.cancel() }
        pause._observe(.callback { waited in
            if case .failure(let cancelled) = waited {
                result._resolve(.failure(cancelled))
            } else {
                run(retriesLeft: retriesLeft - 1)
            }
        })
    }
}
