import Foundation

/// What a ``RequestRetrier`` decided about a failed request: ``retry``, ``retryAfter(_:)``,
/// ``doNotRetry`` or ``fail(_:)``.
///
/// A struct with static members rather than an enum, so that later versions can add decisions
/// without breaking code that switches over them; you only ever make one:
///
/// ```swift
/// return retryCount < 2 ? .retryAfter(1) : .doNotRetry
/// ```
public struct RetryDecision: Sendable {
    enum Kind: Sendable {
        case retry(after: TimeInterval)
        case doNotRetry
        case fail(NetworkError)
    }

    let kind: Kind

    /// Send the request again now.
    public static let retry = RetryDecision(kind: .retry(after: 0))

    /// Do not retry; the next retrier, if any, is asked. When none retries, the request fails with
    /// the error it failed with.
    public static let doNotRetry = RetryDecision(kind: .doNotRetry)

    /// Send the request again after `seconds`, on the client's
    /// ``NetworkClient/Configuration/scheduler`` (so a ``VirtualClock`` runs it in tests).
    ///
    /// - Parameter seconds: The wait; `0` or less, or `NaN`, means now. A wait too long for any
    ///   timer (beyond about 30 years, or infinite) is not started: the request fails at once with
    ///   its error.
    public static func retryAfter(_ seconds: TimeInterval) -> RetryDecision {
        RetryDecision(kind: .retry(after: seconds > 0 ? seconds : 0))
    }

    /// Do not retry, and fail the request with `error` instead of the one it failed with
    /// (Alamofire's `doNotRetryWithError`). No further retrier is asked.
    ///
    /// - Parameter error: What the request fails with.
    public static func fail(_ error: NetworkError) -> RetryDecision {
        RetryDecision(kind: .fail(error))
    }
}

/// What a ``RequestRetrier`` knows about the request besides its error.
public struct RetryContext: Sendable {
    /// How many times the request has been retried so far, by its ``RetryPolicy`` and by retriers
    /// together: `0` after the first attempt. Replays after a credential refresh do not count.
    public let retryCount: Int

    /// How many of those retries a retrier decided (the policy counts its own retries separately,
    /// so a retrier's retries never use up the policy's ``RetryPolicy/maximumRetryCount``).
    /// Limit your retrier with this: Courier sets no limit of its own.
    public let retrierRetryCount: Int

    /// Whether the failed attempt reached the transport. `false` when it never left: it timed out
    /// while held by ``NetworkClient/pause()`` or while a ``RequestAdapter`` worked, so the server
    /// cannot have seen it, and even a `POST` is safe to send again.
    public let wasSent: Bool

    /// Creates a context, for testing a retrier.
    ///
    /// - Parameters:
    ///   - retryCount: retries so far, by the policy and by retriers.
    ///   - retrierRetryCount: how many of them retriers decided; default `0`.
    ///   - wasSent: whether the failed attempt reached the transport; default `true`.
    public init(retryCount: Int, retrierRetryCount: Int = 0, wasSent: Bool = true) {
        self.retryCount = retryCount
        self.retrierRetryCount = retrierRetryCount
        self.wasSent = wasSent
    }
}
