import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkError: CustomStringConvertible, LocalizedError {
    /// A short, readable, secret-free description, e.g.
    /// `HTTP 404 Not Found — "User not found" (status "USR404") https://api.example.com/users/9`.
    ///
    /// URLs have credential-like query items redacted; a body is shown only when the server's
    /// metadata has no message, and then cut to about 200 characters with credential-like JSON
    /// members redacted.
    public var description: String {
        Redaction.scrub(unscrubbedDescription)
    }

    private var unscrubbedDescription: String {
        switch self {
        case .clientError(let status, let metadata, let response), .serverError(let status, let metadata, let response):
            return Self.describeStatus(status, response, metadata: metadata)
        case .unexpectedStatus(let status, let response):
            return Self.describeStatus(status, response, metadata: nil) + " (unexpected status)"
        case .decodingFailed(let underlying, let response):
            return "Could not decode the response to " + Self.headline(of: response) + ": "
                + Self.describeDecoding(underlying)
        case .transport(let underlying):
            return "The request failed before a response arrived: " + Self.describeTransport(underlying)
        case .timedOut:
            return "The request timed out."
        case .cancelled:
            return "The request was cancelled."
        case .authenticationFailed(let underlying):
            return "Authentication failed; the credential could not be refreshed: " + Self.describeOther(underlying)
        case .invalidRequest(let reason):
            return "Invalid request: " + reason
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }

    // MARK: - Pieces

    private static let bodyLimit = 200
    /// The largest body a snippet is taken from (64 KiB).
    static let snippetSourceLimit = 65_536

    /// `HTTP 404 Not Found`, or `HTTP 799` for a status without a reason phrase.
    private static func statusLine(_ status: Int) -> String {
        guard let reason = HTTPResponse.reasonPhrase(for: status) else { return "HTTP \(status)" }
        return "HTTP \(status) " + reason
    }

    /// `HTTP 404 Not Found https://host/path` (URL redacted; omitted when unknown).
    private static func headline(of response: HTTPResponse) -> String {
        var text = statusLine(response.statusCode)
        if let url = response.url { text += " " + Redaction.redact(url) }
        return text
    }

    /// `HTTP 404 Not Found — "message" (status "CODE") https://host/path`. When the error's
    /// `status` is not the response's (a validator or a plugin made the error), the response's
    /// follows: `HTTP 422 Unprocessable Content (answered 200) …`.
    private static func describeStatus(_ status: Int, _ response: HTTPResponse, metadata: ServerMetadata?) -> String {
        var text = statusLine(status)
        if status != response.statusCode { text += " (answered \(response.statusCode))" }
        if let message = metadata?.message {
            text += " — \"" + redactedSnippet(message) + "\""
        } else if let snippet = bodySnippet(response.body, json: metadata?.body) {
            text += " — body: " + snippet
        }
        if let status = metadata?.status {
            text += " (status \"" + redactedSnippet(status) + "\")"
        }
        if let url = response.url { text += " " + Redaction.redact(url) }
        return text
    }

    /// The body as one line of at most ``bodyLimit`` characters, redacted before it is cut: JSON
    /// members with credential-like names, and in any text URL credentials and sensitive query
    /// or form parameters (see ``Redaction/redact(text:)``). `nil` for an empty body; a body over
    /// 64 KiB is shown as its size.
    private static func bodySnippet(_ body: Data, json: JSON?) -> String? {
        guard !body.isEmpty else { return nil }
        // Redacting reads the whole body; a few hundred characters of a huge one are not worth it.
        guard body.count <= snippetSourceLimit else { return "<\(body.count) bytes not shown>" }
        if let json = json ?? (try? JSON(data: body)) {
            return shorten(Redaction.redactMembers(json, scrubbingStrings: true).description)
        }
        guard let text = String(data: body, encoding: .utf8) else { return "<\(body.count) bytes>" }
        let oneLine = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return oneLine.isEmpty ? nil : shorten(Redaction.redact(text: oneLine))
    }

    /// A server's message or status for a description: redacted as free text, then cut to
    /// ``bodyLimit`` characters; one over 64 KiB is shown by its size (redacting reads it whole,
    /// and a few hundred characters of it are not worth that).
    static func redactedSnippet(_ text: String) -> String {
        let size = text.utf8.count
        return size > snippetSourceLimit ? "<\(size) bytes not shown>" : shorten(Redaction.redact(text: text))
    }

    /// Cuts `text` to ``bodyLimit`` characters, marking the cut with `…`.
    static func shorten(_ text: String) -> String {
        text.count <= bodyLimit ? text : String(text.prefix(bodyLimit)) + "…"
    }

    /// An error from elsewhere (a refresh closure, another engine, a decoder): a URL error as
    /// its code and redacted URL, anything else as its description redacted as free text
    /// (Foundation's error texts quote the failing URL, query and user included).
    static func describeOther(_ error: any Error) -> String {
        if let error = error as? NetworkError { return error.description }
        if error is URLError { return describeTransport(error) }
        return redactedSnippet(String(describing: error))
    }

    private static func describeDecoding(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return describeOther(error) }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key \"\(key.stringValue)\" at \(path(context))"
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context):
            return "expected \(type) but found null at \(path(context))"
        case .dataCorrupted(let context):
            return redactedSnippet(context.debugDescription) + " at \(path(context))"
        @unknown default:
            return describeOther(error)
        }
    }

    private static func describeTransport(_ error: any Error) -> String {
        guard let error = error as? URLError else { return describeOther(error) }
        var text = "URLError \(error.code.rawValue)"
        if let url = error.failingURL { text += " for " + Redaction.redact(url) }
        return text
    }
}

extension NetworkError: CustomReflectable {
    /// What `dump()` and the debugger's `po` show: the redacted ``description`` and the response (whose
    /// own mirror redacts credential headers), never the unredacted associated values.
    public var customMirror: Mirror {
        var children: [Mirror.Child] = [(label: "description", value: description)]
        if let response { children.append((label: "response", value: response)) }
        return Mirror(self, children: children, displayStyle: .enum)
    }
}
