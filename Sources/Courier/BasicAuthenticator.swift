import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// Sends a user name and password with every request, as HTTP Basic authentication
/// (`Authorization: Basic …`), without waiting for the server to ask: Alamofire's
/// `.authenticate(username:password:)` with the header sent up front, Moya's `CredentialsPlugin`.
///
/// ```swift
/// var configuration = NetworkClient.Configuration(baseURL: URL(string: "https://ci.example.com/api")!)
/// configuration.authenticator = BasicAuthenticator(username: "builder", password: secret)
/// ```
///
/// As for any authenticator, the header is added only to endpoints that require authentication
/// and only on the client's own origin (never to an endpoint with a ``Endpoint/baseURL`` on
/// another server), after the pause gate and before plugins. A `401` is not treated as an
/// expired credential: there is nothing to refresh, so the request fails with
/// ``NetworkError/clientError(statusCode:metadata:response:)`` and its `401` at once. The
/// authenticator's description and `dump()` never show the password, and a password of 8
/// characters or more, or the encoded pair, quoted back by a server is removed from error
/// descriptions and log lines.
///
/// To answer a server's `WWW-Authenticate: Basic` challenge instead of sending the header first,
/// give ``URLSessionTransport`` a ``URLSessionTransport/ChallengeHandler``.
public struct BasicAuthenticator: Authenticator {
    private let headerValue: String

    /// The user name sent.
    public let username: String

    /// Creates an authenticator for one user.
    ///
    /// - Parameters:
    ///   - username: The user name; it must not contain `:` (RFC 7617), or the server reads a
    ///     different split.
    ///   - password: The password.
    public init(username: String, password: String) {
        self.username = username
        headerValue = Self.authorizationValue(username: username, password: password)
        // A server message that quotes the password or the encoded pair is scrubbed from
        // descriptions and logs, as a token authenticator's tokens are (values of 8 characters
        // and more: shorter ones would match ordinary words).
        Redaction.register(secretValue: password, pinned: true)
        Redaction.register(secretValue: String(headerValue.dropFirst("Basic ".count)), pinned: true)
    }

    /// The `Authorization` header value for `username` and `password`: `Basic` and the Base64 of
    /// their UTF-8 bytes joined by `:`. For a one-off header on an endpoint of your own.
    ///
    /// ```swift
    /// var headers: [String: String] {
    ///     ["Authorization": BasicAuthenticator.authorizationValue(username: "ada", password: pin)]
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    /// - Returns: `Basic <base64>`.
    public static func authorizationValue(username: String, password: String) -> String {
        "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
    }

    /// Returns `request` with `Authorization: Basic …`.
    public func apply(to request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(headerValue, forHTTPHeaderField: "Authorization")
        return request
    }

    /// Always `false`: a `401` to a user name and password is the server's answer, not an
    /// expired credential, so the request fails with it.
    public func isAuthenticationFailure(_ response: HTTPResponse) -> Bool {
        false
    }

    /// Never called (``isAuthenticationFailure(_:)`` is always `false`); rejects if it is.
    public func refresh(failedCredential: String?) -> Promise<Void> {
        Promise(error: NetworkError.invalidRequest(reason: "a user name and password cannot be refreshed"))
    }
}

extension BasicAuthenticator: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A description that shows the user name, never the password: `BasicAuthenticator(ada, <redacted>)`.
    public var description: String { "BasicAuthenticator(\(username), \(Redaction.placeholder))" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump()` and the debugger show: the user name, never the password.
    public var customMirror: Mirror {
        Mirror(self, children: ["username": username, "password": Redaction.placeholder], displayStyle: .struct)
    }
}
