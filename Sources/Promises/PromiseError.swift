import Foundation

/// Errors produced by the Promises module itself.
///
/// ```swift
/// promise.catch { error in
///     if case PromiseError.timedOut = error { print("too slow") }
/// }
/// ```
public enum PromiseError: Error, Sendable, Equatable, Hashable {
    /// ``Promise/timeout(seconds:)`` fired before the promise settled.
    case timedOut
    /// The promise was cancelled with ``Promise/cancel()`` (or its awaiting `Task` was cancelled).
    case cancelled
    /// The ``Resolver`` of a pending promise was released without settling it,
    /// so the promise can never settle otherwise.
    case resolverReleased
    /// A `then` or `recover` handler returned the very promise that `then` or `recover`
    /// returned (the one it was to settle), which could never settle.
    case returnedSelf
    /// ``race(_:)`` was given no promises, so nothing could win.
    case emptyRace
    /// A ``Promise/compactMap(on:_:)-(DispatchQueue,_)`` transform returned `nil`.
    case compactMapReturnedNil
    /// ``Promise/firstValue`` or ``Promise/lastValue`` met an empty sequence, or
    /// ``Promise/firstValue(on:where:)-(DispatchQueue,_)`` found no element that matched.
    case emptySequence
}

extension PromiseError: LocalizedError, CustomStringConvertible {
    /// A one-sentence explanation of the failure, e.g. "The promise was cancelled."
    public var description: String {
        switch self {
        case .timedOut: "The promise timed out before it settled."
        case .cancelled: "The promise was cancelled."
        case .resolverReleased: "The promise's resolver was released without settling it."
        case .returnedSelf: "A handler returned the promise it was to settle; it could never settle."
        case .emptyRace: "race() was called with no promises."
        case .compactMapReturnedNil: "A compactMap transform returned nil."
        case .emptySequence: "The sequence had no element to take (it was empty, or none matched)."
        }
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// An error that can say whether it stands for a cancellation.
///
/// Cancellation errors are never retried by ``attempt(maximumRetryCount:delayBeforeRetry:shouldRetry:_:)``
/// and can be skipped by `catch(policy: .allErrorsExceptCancellation)`.
/// Conform your own error types when they have a cancellation case.
public protocol CancellableError: Error {
    /// `true` when this error means the work was cancelled rather than failed.
    var isCancelled: Bool { get }
}

extension PromiseError: CancellableError {
    /// `true` for ``PromiseError/cancelled``.
    public var isCancelled: Bool { self == .cancelled }
}

/// `true` when `error` means "cancelled": ``PromiseError/cancelled``, Swift's `CancellationError`,
/// `URLError.cancelled`, `CocoaError.userCancelled` or any ``CancellableError`` that says so.
public func isCancellation(_ error: any Error) -> Bool {
    switch error {
    case let error as any CancellableError: return error.isCancelled
    case is CancellationError: return true
    case let error as URLError: return error.code == .cancelled
    case let error as CocoaError: return error.code == .userCancelled
    default: return false
    }
}
