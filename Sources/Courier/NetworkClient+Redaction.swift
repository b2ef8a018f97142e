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
    /// - Parameter value: The secret. Values shorter than 8 characters are ignored: they would
    ///   match ordinary words. The 64 most recently declared values are kept.
    public static func markSensitiveValue(_ value: String) {
        Redaction.register(secretValue: value, pinned: true)
    }
}
