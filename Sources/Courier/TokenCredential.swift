import Foundation

/// A token and, when known, the moment it expires; see
/// ``TokenAuthenticator/init(credential:headerField:scheme:refreshLimit:refreshMargin:now:refresh:)-(_,_,_,_,_,_,(String?)->Promise<TokenCredential>)``.
public struct TokenCredential: Sendable, Equatable {
    /// The token sent in the authenticator's header.
    public var token: String
    /// When the token expires; `nil` when not known (it is then renewed only after a 401).
    public var expiresAt: Date?

    /// - Parameters:
    ///   - token: The token.
    ///   - expiresAt: When it expires; default `nil`, not known.
    public init(token: String, expiresAt: Date? = nil) {
        self.token = token
        self.expiresAt = expiresAt
    }
}

extension TokenCredential: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A description that never shows the token: `TokenCredential(<redacted>, expiresAt: …)`.
    public var description: String {
        "TokenCredential(\(Redaction.placeholder), expiresAt: \(expiresAt.map { "\($0)" } ?? "unknown"))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump()` and the debugger show: the expiry, never the token.
    public var customMirror: Mirror {
        Mirror(self, children: ["token": Redaction.placeholder, "expiresAt": expiresAt as Any], displayStyle: .struct)
    }
}
