import Foundation

/// What a server said about a failed request: its own status code and message, and the whole body.
///
/// ``NetworkClient`` fills it for `4xx`/`5xx` responses with its configured `errorMetadataParser`,
/// which defaults to ``parse(_:)``.
///
/// ```swift
/// if case .clientError(_, let metadata?, _) = error {
///     print(metadata.status ?? "-", metadata.message ?? "-")
/// }
/// ```
public struct ServerMetadata: Sendable, Equatable {
    /// The server's own status or error code, as text (`404` and `"USR404"` both become strings).
    public var status: String?
    /// The server's human-readable message.
    public var message: String?
    /// The whole error body, when it is JSON.
    public var body: JSON?

    /// Creates metadata.
    ///
    /// - Parameters:
    ///   - status: the server's status or error code.
    ///   - message: the server's message.
    ///   - body: the whole error body as JSON.
    public init(status: String?, message: String?, body: JSON?) {
        self.status = status
        self.message = message
        self.body = body
    }

    /// The default error-metadata parser.
    ///
    /// Recognised bodies, first match wins for each field:
    ///
    /// | Body | `status` | `message` |
    /// |------|----------|-----------|
    /// | `{"metadata": {"status": …, "desc": …}}` (or `"message"`) | `metadata.status` | `metadata.desc` |
    /// | `{"error": {"code": …, "message": …}}` (or `"status"`)    | `error.code`      | `error.message` |
    /// | `{"error": "text"}`                                        | top-level `status`/`code` | `"text"` |
    /// | `{"message": …}` / `{"detail": …}`, with `status`/`code`   | `status`/`code`   | `message`/`detail` |
    ///
    /// A status may be a number or a string; numbers become their integer text (`404` → `"404"`).
    ///
    /// - Returns: `nil` when the body is empty or not JSON (for example an HTML error page).
    ///   When the body is JSON of another shape, metadata whose `status` and `message` are `nil`
    ///   and whose ``body`` holds the parsed JSON, so callers can still read it.
    public static func parse(_ response: HTTPResponse) -> ServerMetadata? {
        guard !response.body.isEmpty, let json = try? JSON(data: response.body) else { return nil }
        let metadata = json["metadata"]
        let error = json["error"]
        let status = text(of: metadata["status"]) ?? text(of: metadata["code"])
            ?? text(of: error["code"]) ?? text(of: error["status"])
            ?? text(of: json["status"]) ?? text(of: json["code"])
        let message = metadata["desc"].string ?? metadata["message"].string
            ?? error["message"].string ?? error["desc"].string ?? error.string
            ?? json["message"].string ?? json["detail"].string ?? json["error_description"].string
        return ServerMetadata(status: status, message: message, body: json)
    }

    /// A scalar as text: strings as they are, integral numbers without a fraction, booleans as `true`/`false`.
    private static func text(of value: JSON) -> String? {
        switch value {
        case .string(let text): return text
        case .number, .bool: return value.description
        case .null, .array, .object: return nil
        }
    }
}

extension ServerMetadata: CustomStringConvertible, CustomDebugStringConvertible {
    /// `ServerMetadata(status: "401", message: "token expired", body: {...})`, with the values of
    /// credential-named body members (`access_token`, `Authorization`, …) redacted and the body
    /// shortened, so printing an error's metadata never leaks a secret the server echoed.
    public var description: String {
        var parts: [String] = []
        if let status { parts.append("status: \"\(NetworkError.redactedSnippet(status))\"") }
        if let message { parts.append("message: \"\(NetworkError.redactedSnippet(message))\"") }
        if let body {
            parts.append("body: " + (Self.isLarge(body) ? Self.largeBody
                : NetworkError.shorten(Redaction.redactMembers(body, scrubbingStrings: true).description)))
        }
        return Redaction.scrub("ServerMetadata(" + parts.joined(separator: ", ") + ")")
    }

    /// What stands for a body of more than 64 KiB of text in descriptions and dumps.
    private static let largeBody = "<large body not shown>"

    /// Whether `json` holds more than 64 KiB of text (names, strings and a few bytes per other
    /// value), found without reading further than that.
    private static func isLarge(_ json: JSON) -> Bool {
        var budget = NetworkError.snippetSourceLimit
        var pending = [json]
        while let next = pending.popLast() {
            switch next {
            case .string(let text): budget -= text.utf8.count + 2
            case .array(let items):
                budget -= items.count + 2
                pending.append(contentsOf: items)
            case .object(let members):
                for (key, value) in members {
                    budget -= key.utf8.count + 4
                    pending.append(value)
                }
            case .number, .bool, .null: budget -= 8
            }
            if budget < 0 { return true }
        }
        return false
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}

extension ServerMetadata: CustomReflectable {
    /// What `dump()` and the debugger's `po` show: the same redactions as ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "status": status.map(NetworkError.redactedSnippet) as Any,
            "message": message.map(NetworkError.redactedSnippet) as Any,
            "body": body.map { Self.isLarge($0) ? JSON.string(Self.largeBody) : Redaction.redactMembers($0, scrubbingStrings: true) }
                as Any,
        ], displayStyle: .struct)
    }
}
