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
/// applied, ask the user, refresh a resource a `409` says is stale.
///
/// ```swift
/// struct OnlineAgain: RequestRetrier {
///     let reachability: Reachability
///     func retry(_ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError,
///                retryCount: Int) -> Promise<RetryDecision> {
///         guard case .transport = error, retryCount < 5 else { return .value(.doNotRetry) }
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
/// configuration.requestRetriers = [AsyncRequestRetrier { _, endpoint, error, retryCount in
///     guard endpoint.method == .post, error.statusCode == 503, retryCount < 2 else { return .doNotRetry }
///     return try await outbox.isUnapplied(endpoint) ? .retryAfter(1) : .doNotRetry
/// }]
/// ```
///
/// **When it is asked.** After an attempt failed (a transport error, a timeout, a status the
/// endpoint does not accept, a response the ``NetworkClient/Configuration/responseValidator``
/// rejects) and the request's ``RetryPolicy`` does not retry it: the policy has no rule for the
/// error or method, has used its retries, or there is none. So a policy's retries come first and
/// retriers add to them; to decide every retry yourself, give the client no policy. Never asked
/// for a cancellation, a failure to decode a response, a rejected credential (the authenticator
/// handles that) or a request that was refused before it was sent.
///
/// **Several retriers** are asked in the order of ``NetworkClient/Configuration/requestRetriers``
/// until one answers something other than ``RetryDecision/doNotRetry``; that answer is the
/// decision.
///
/// **Counting.** `retryCount` is how many times the request has been retried so far, by its
/// policy and by retriers together (replays after a credential refresh do not count). Courier sets
/// no limit of its own on a retrier's retries: return ``RetryDecision/doNotRetry`` once
/// `retryCount` is as high as you allow.
///
/// **Threads and time.** `retry` is called on the thread that saw the failure (a transport's
/// queue, a timer's), so it must return at once: do the slow part inside the promise. The
/// decision must arrive within the request's timeout (``Endpoint/timeout``, else the client's):
/// when it has not, its promise is cancelled and the request fails with the error it failed with.
/// Cancelling the request, or ``NetworkClient/cancelAll(where:)``, cancels the decision's promise too
/// (an ``AsyncRequestRetrier``'s task is cancelled), and the request ends with
/// ``NetworkError/cancelled`` at once. Hand each call a promise of its own, for the reason
/// ``RequestAdapter`` gives.
///
/// **A retry** goes back through the pause gate, the authenticator, the plugins and the adapters
/// like any attempt, with a fresh deadline; a download resumes from what it saved. A rejected
/// decision promise counts as ``RetryDecision/doNotRetry``, except that a ``NetworkError`` it
/// rejects with is what the request fails with.
public protocol RequestRetrier: Sendable {
    /// Returns a promise of whether, and when, to send the failed request again.
    ///
    /// - Parameters:
    ///   - request: the request as the failed attempt sent it (credentials included), or as it
    ///     was built when that attempt never reached the transport (it timed out while held).
    ///   - endpoint: the endpoint it was built from.
    ///   - error: what the attempt failed with.
    ///   - retryCount: how many retries the request has had so far (`0` after the first attempt).
    /// - Returns: The decision; see ``RetryDecision``.
    func retry(
        _ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError, retryCount: Int
    ) -> Promise<RetryDecision>
}

/// What a ``RequestRetrier`` decided about a failed request.
public enum RetryDecision: Sendable {
    /// Send the request again now.
    case retry
    /// Send the request again after this many seconds (`0` or less, or `NaN`: now). A wait too
    /// long for any timer (beyond about 30 years, or infinite) is the same as ``doNotRetry``.
    case retryAfter(TimeInterval)
    /// Do not retry; the next retrier, if any, is asked. When none retries, the request fails
    /// with the error it failed with.
    case doNotRetry
    /// Do not retry, and fail the request with this error instead (Alamofire's
    /// `doNotRetryWithError`). No further retrier is asked.
    case fail(NetworkError)
}

/// A ``RequestRetrier`` made from an `async` closure, run in a new `Task` for each decision.
///
/// ```swift
/// configuration.requestRetriers = [AsyncRequestRetrier { _, _, error, retryCount in
///     guard case .transport = error, retryCount < 3 else { return .doNotRetry }
///     await connectivity.waitUntilOnline()
///     return .retry
/// }]
/// ```
///
/// The task is cancelled when the request is cancelled or the decision's time is up, and the
/// request does not wait for it to finish. Throwing counts as ``RetryDecision/doNotRetry``,
/// except that a thrown ``NetworkError`` is what the request fails with.
public struct AsyncRequestRetrier: RequestRetrier {
    private let body: @Sendable (URLRequest, any Endpoint, NetworkError, Int) async throws -> RetryDecision

    /// Creates a retrier that runs `decide` for each failed attempt its client asks it about.
    ///
    /// - Parameter decide: Returns the decision, given the request as the failed attempt sent
    ///   it, its endpoint, the error and how many retries the request has had so far.
    public init(
        _ decide: @escaping @Sendable (
            _ request: URLRequest, _ endpoint: any Endpoint, _ error: NetworkError, _ retryCount: Int
        ) async throws -> RetryDecision
    ) {
        body = decide
    }

    /// Runs the closure in a new `Task`; cancelling the promise cancels the task.
    public func retry(
        _ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError, retryCount: Int
    ) -> Promise<RetryDecision> {
        let body = body
        return Promise { try await body(request, endpoint, error, retryCount) }
    }
}
