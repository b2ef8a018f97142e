import Foundation

/// An HTTP request method such as `GET` or `POST`.
///
/// The common methods are available as static members; any other token can be written
/// as a string literal:
///
/// ```swift
/// let method: HTTPMethod = .post
/// let custom: HTTPMethod = "PROPFIND"
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The method token as sent on the wire, upper-cased (for example `"GET"`).
    public let rawValue: String

    /// Creates a method from its token. The token is upper-cased.
    ///
    /// - Parameter rawValue: the method token, e.g. `"get"` or `"PATCH"`.
    public init(rawValue: String) {
        self.rawValue = rawValue.uppercased()
    }

    /// Creates a method from a string literal, e.g. `let m: HTTPMethod = "PURGE"`.
    ///
    /// - Parameter value: the method token; it is upper-cased.
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    /// `GET`: read a resource.
    public static let get = HTTPMethod(rawValue: "GET")
    /// `POST`: submit data; not idempotent.
    public static let post = HTTPMethod(rawValue: "POST")
    /// `PUT`: replace a resource.
    public static let put = HTTPMethod(rawValue: "PUT")
    /// `PATCH`: partially modify a resource; not idempotent.
    public static let patch = HTTPMethod(rawValue: "PATCH")
    /// `DELETE`: remove a resource.
    public static let delete = HTTPMethod(rawValue: "DELETE")
    /// `HEAD`: like `GET` without a response body.
    public static let head = HTTPMethod(rawValue: "HEAD")
    /// `OPTIONS`: ask which methods a resource supports.
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    /// `TRACE`: a loop-back diagnostic request.
    public static let trace = HTTPMethod(rawValue: "TRACE")
    /// `CONNECT`: open a tunnel through a proxy; not idempotent.
    public static let connect = HTTPMethod(rawValue: "CONNECT")

    /// The methods RFC 9110 §9.2.2 calls idempotent: `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT` and `DELETE`.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .options, .trace, .put, .delete]

    /// `true` when sending the request twice has the same effect as sending it once
    /// (`GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE`). Only such requests are retried by default.
    public var isIdempotent: Bool {
        Self.idempotentMethods.contains(self)
    }
}

extension HTTPMethod: CustomStringConvertible {
    /// The method token, e.g. `GET`.
    public var description: String { rawValue }
}
