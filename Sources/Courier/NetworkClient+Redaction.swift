import Foundation

extension NetworkClient {
    /// Declares a header that carries a credential, for the whole process: its value is redacted
    /// in every description and log line, and it is removed when a redirect leads to another host.
    ///
    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and any name containing
    /// `token`, `secret`, `api-key` or `password` are covered already, and a ``TokenAuthenticator``
    /// declares its own `headerField`. Call this for a custom ``Authenticator`` whose header has
    /// another name.
    ///
    /// ```swift
    /// NetworkClient.markSensitiveHeader("X-Session")
    /// ```
    /// - Parameter name: The header name, matched without regard to case.
    public static func markSensitiveHeader(_ name: String) {
        Redaction.register(headerName: name)
    }

    /// Declares a secret value for the whole process: wherever it appears in a description, an
    /// error message or a log line of Courier's, it is replaced by `<redacted>`, whatever the
    /// header, query item or body member it came in. For an API key sent in a query or a body,
    /// or a password a server may quote back.
    ///
    /// The values of credential headers in ``Configuration/defaultHeaders`` (`Authorization`,
    /// `X-Api-Key`, …), a ``BasicAuthenticator``'s password and a ``TokenAuthenticator``'s
    /// tokens are declared already.
    ///
    /// ```swift
    /// NetworkClient.markSensitiveValue(ProcessInfo.processInfo.environment["MAPS_KEY"] ?? "")
    /// ```
    ///
    /// Matching is exact and case-sensitive: a percent-encoded or Base64 form of the value is
    /// another value (declare it too if a server may quote it so). A declaration cannot be taken
    /// back, and each declared value is looked for in every text, so declare secrets, not data.
    ///
    /// - Parameter value: The secret. Values shorter than 8 characters are ignored: they would
    ///   match ordinary words. The 64 most recently declared long-lived values are kept, shared
    ///   with the credential default headers of every client (two values each) and
    ///   ``BasicAuthenticator`` passwords.
    public static func markSensitiveValue(_ value: String) {
        Redaction.register(secretValue: value, pinned: true)
    }
}
