import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// Decides *asynchronously* whether a failed request is sent again: Alamofire's
/// `RequestRetrier`, Get's `shouldClientRetry`.
///
/// A ``RetryPolicy`` covers the usual cases (which statuses, how many times, how long to wait)
/// and decides at once. A retrier is for decisions that need work or knowledge the policy does
/// not have: wait until the device is back online, retry a `POST` the server reports as never
/// applied, ask the user.
///
/// ```swift
/// struct OnlineAgain: RequestRetrier {
///     let reachability: Reachability   // nextConnection() makes a new promise on each call
///     func retry(_ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError,
///                context: RetryContext) -> Promise<RetryDecision> {
///         guard case .transport = error, context.retrierRetryCount < 5 else { return .value(.doNotRetry) }
///         return reachability.nextConnection().map { _ in .retry }
///     }
/// }
///
/// var configuration = NetworkClient.Configuration(baseURL: api)
/// configuration.requestRetriers = [OnlineAgain(reachability: reachability)]
/// ```
///
/// In async code, ``AsyncRequestRetrier`` wraps a closure:
///
/// ```swift
/// configuration.requestRetriers = [AsyncRequestRetrier { _, endpoint, error, context in
///     // A POST that never reached the server is safe to send again.
///     guard endpoint.method == .post, !context.wasSent, context.retrierRetryCount == 0 else { return .doNotRetry }
///     return .retryAfter(1)
/// }]
/// ```
///
/// **When it is asked.** After an attempt failed (a transport error, a timeout, a status the
/// endpoint does not accept, a response the ``NetworkClient/Configuration/responseValidator``
/// rejects, whatever the error it throws) and the request's ``RetryPolicy`` does not retry it:
/// the policy has no rule for the error or method, has used its retries, or there is none. So a
/// policy's retries come first and retriers add to them; to decide every retry yourself, give the
/// client no policy. Never asked about a cancellation, a successful response that fails to
/// decode, a credential the authenticator could not fix, or a request refused before it was sent
/// (an invalid header, a failed ``RequestAdapter``). Retriers see every request of their client,
/// those to other origins included (they add no credential).
///
/// **Several retriers** are asked in order, the endpoint's own ``Endpoint/requestRetriers`` first
/// and then those of ``NetworkClient/Configuration/requestRetriers``, until one answers
/// something other than ``RetryDecision/doNotRetry``; that answer is the
/// decision. A rejected promise is a ``RetryDecision/doNotRetry`` that ends the asking: the
/// request fails with its own error (a retrier's own failure, say a lookup that failed, does not
/// replace it; return ``RetryDecision/fail(_:)`` for that).
///
/// **Counting.** ``RetryContext`` tells how many retries the request has had, by its policy and
/// by retriers; Courier sets no limit on retriers' retries: stop once
/// ``RetryContext/retrierRetryCount`` is as high as you allow. A retrier's retries do not use up
/// the policy's ``RetryPolicy/maximumRetryCount``.
///
/// **Threads.** The first retrier is called on the thread that saw the failure: a transport's
/// queue, a timer's, a gate's, or the caller's own (possibly the main thread) inside
/// `request(_:)` when a transport of your own answers inside `send` (a stub never does); later retriers on
/// `DispatchQueue.promises`. So `retry` must return at once: do the slow
/// part inside the promise.
///
/// **Time limit and cancellation.** The decision must arrive within the request's timeout
/// (``Endpoint/timeout``, else the client's); when it has not, its promise is cancelled and the
/// request fails with the error it failed with. To wait longer (for the network to come back,
/// say), give the endpoint a longer timeout. Cancelling the request, or
/// ``NetworkClient/cancelAll(where:)``, cancels the decision's promise too (an
/// ``AsyncRequestRetrier``'s task is cancelled), and the request ends with
/// ``NetworkError/cancelled`` at once. Hand each call a promise of its own, for the reason
/// ``RequestAdapter`` gives: cancelling a promise made with `shared.map { … }` cancels `shared`.
///
/// **A retry** goes back through the pause gate, the authenticator, the plugins and the adapters
/// like any attempt, with a fresh deadline; a download resumes from what it saved.
public protocol RequestRetrier: Sendable {
    /// Returns a promise of whether, and when, to send the failed request again.
    ///
    /// - Parameters:
    ///   - request: the request as the failed attempt sent it (credentials included), or as it
    ///     was built when that attempt never reached the transport (``RetryContext/wasSent``).
    ///   - endpoint: the endpoint it was built from.
    ///   - error: what the attempt failed with.
    ///   - context: how many retries the request has had, and whether the attempt was sent.
    /// - Returns: The decision; see ``RetryDecision``.
    func retry(
        _ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError, context: RetryContext
    ) -> Promise<RetryDecision>
}

/// A ``RequestRetrier`` made from an `async` closure, run in a new `Task` for each decision.
///
/// ```swift
/// configuration.requestRetriers = [AsyncRequestRetrier { _, _, error, context in
///     guard case .transport = error, context.retrierRetryCount < 3 else { return .doNotRetry }
///     await connectivity.waitUntilOnline()
///     return .retry
/// }]
/// ```
///
/// The task is cancelled when the request is cancelled or the decision's time is up, and the
/// request does not wait for it to finish. Throwing counts as ``RetryDecision/doNotRetry``, and
/// no later retrier is asked: the request fails with its own error.
public struct AsyncRequestRetrier: RequestRetrier {
    private let body: @Sendable (URLRequest, any Endpoint, NetworkError, RetryContext) async throws -> RetryDecision

    /// Creates a retrier that runs `decide` for each failed attempt its client asks it about.
    ///
    /// - Parameter decide: Returns the decision, given the request as the failed attempt sent
    ///   it, its endpoint, the error and the ``RetryContext``.
    public init(
        _ decide: @escaping @Sendable (
            _ request: URLRequest, _ endpoint: any Endpoint, _ error: NetworkError, _ context: RetryContext
        ) async throws -> RetryDecision
    ) {
        body = decide
    }

    /// Runs the closure in a new `Task`; cancelling the promise cancels the task.
    public func retry(
        _ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError, context: RetryContext
    ) -> Promise<RetryDecision> {
        let body = body
        return Promise { try await body(request, endpoint, error, context) }
    }
}
