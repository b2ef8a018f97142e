import Foundation

/// Why a credential could not be refreshed; it reaches callers inside
/// ``NetworkError/authenticationFailed(underlying:)``.
public enum AuthenticationError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// More refreshes were requested within the window than the ``TokenAuthenticator/RefreshLimit`` allows.
    case refreshLimitExceeded(Int, window: TimeInterval)
    /// The refresh produced a token that cannot be sent in a header (it contains CR, LF or NUL).
    case unusableToken

    /// A one-line explanation of why the refresh was given up; it holds no credential.
    public var description: String {
        switch self {
        case .refreshLimitExceeded(let count, let window):
            // `Int64(_:)` traps on infinity, NaN and huge values; a window like that means "ever".
            // (Not `Int`: 32 bits on watchOS devices.)
            window.isFinite && abs(window) < 1e15
                ? "Gave up refreshing the credential: \(count) refreshes within \(Int64(window)) s"
                : "Gave up refreshing the credential: \(count) refreshes, the most allowed"
        case .unusableToken:
            "The refreshed credential contains a line break or NUL and cannot be sent in a header"
        }
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
