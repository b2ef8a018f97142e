import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A complete HTTP response: status, headers, body and the URL it came from.
///
/// ```swift
/// client.response(for: UserEndpoint(id: 7)).done { response in
///     print(response.statusCode, response.header("content-type") ?? "-")
/// }
/// ```
public struct HTTPResponse: Sendable, Equatable {
    /// The HTTP status code, e.g. `200`.
    public var statusCode: Int
    /// The response headers as received. Use ``header(_:)`` to look one up regardless of case.
    public var headers: [String: String]
    /// The response body; empty when there was none.
    public var body: Data
    /// The URL of the response (after redirects), when known.
    public var url: URL?
    /// Where the body is when it was written to a file rather than kept in memory (a
    /// ``NetworkClient/download(_:to:progress:)-(_,URL,_)``); ``body`` is empty then. `nil` for a body in memory.
    public var bodyFileURL: URL?
    /// The reader of a body that streams on after this head (``NetworkClient/stream(_:)``); it
    /// does not take part in equality.
    var streamedBody: StreamedBodyHandle?
    /// A download's saved start that this error answer to a resuming request left unused, for
    /// the client to offer to the retry or replay; it does not take part in equality.
    var unresumedPart: UnresumedPart?

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - statusCode: the HTTP status code.
    ///   - headers: the header fields; default none.
    ///   - body: the body; default empty.
    ///   - url: the URL the response came from; default `nil`.
    ///   - bodyFileURL: the file holding the body, when a transport wrote it to disk (see
    ///     ``TransportContext/writesBodyToFile``); default `nil`, the body is `body`.
    public init(
        statusCode: Int, headers: [String: String] = [:], body: Data = Data(), url: URL? = nil, bodyFileURL: URL? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
        self.bodyFileURL = bodyFileURL
    }

    /// The value of the header field `name`, compared case-insensitively
    /// (`header("content-type")` finds `Content-Type`); `nil` when absent.
    ///
    /// - Parameter name: the header field name.
    public func header(_ name: String) -> String? {
        headers.headerValue(name)
    }

    /// `true` for a 2xx status (whatever an endpoint's ``Endpoint/acceptedStatusCodes`` says).
    public var isSuccess: Bool { (200...299).contains(statusCode) }
}

extension HTTPResponse: CustomStringConvertible {
    /// A one-line summary with secrets redacted, e.g.
    /// `HTTP 404 Not Found https://api.example.com/users/9 (27 bytes)`.
    ///
    /// Sensitive headers such as `Set-Cookie` and sensitive query items such as `token`
    /// never appear; the body is not printed.
    public var description: String {
        Redaction.scrub(unscrubbedDescription)
    }

    private var unscrubbedDescription: String {
        var text = "HTTP \(statusCode)"
        if let reason = HTTPResponse.reasonPhrase(for: statusCode) {
            text += " " + reason
        }
        if let url {
            text += " " + Redaction.redact(url)
        }
        text += bodyFileURL == nil ? " (\(body.count) bytes)" : " (body in a file)"
        let shown = Redaction.redact(headers)
        if !shown.isEmpty {
            let fields = shown.keys.sorted().map { "\($0): \(shown[$0] ?? "")" }
            text += " [" + fields.joined(separator: ", ") + "]"
        }
        return text
    }
}

extension HTTPResponse {
    /// The standard reason phrase for common status codes (`404` → `Not Found`); `nil` for others.
    static func reasonPhrase(for statusCode: Int) -> String? {
        reasonPhrases[statusCode]
    }

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Content",
        423: "Locked", 424: "Failed Dependency", 425: "Too Early", 426: "Upgrade Required",
        428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 507: "Insufficient Storage",
        508: "Loop Detected", 511: "Network Authentication Required",
    ]
}

extension HTTPResponse: CustomReflectable {
    /// What `dump()` and the debugger's `po` show: credential headers (`Set-Cookie`, …) are redacted.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "statusCode": statusCode, "headers": Redaction.redact(headers).mapValues(Redaction.scrub),
            "body": "\(body.count) bytes",
            "url": url.map(Redaction.redact) as Any,
            "bodyFileURL": bodyFileURL as Any,
        ], displayStyle: .struct)
    }
}

extension [String: String] {
    /// The value of the header field `name` in a header dictionary, compared case-insensitively
    /// (an exact match first); `nil` when absent.
    func headerValue(_ name: String) -> String? {
        if let exact = self[name] { return exact }
        let wanted = name.lowercased()
        return first { $0.key.lowercased() == wanted }?.value
    }
}
