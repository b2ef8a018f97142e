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
}
