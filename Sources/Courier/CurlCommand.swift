import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `curl` command line that repeats a request, for debugging and bug reports, with every
/// secret redacted.
///
/// ```swift
/// print(CurlCommand.string(for: request))
/// // curl -X 'POST' 'https://api.example.com/v1/login?api_key=<redacted>' \
/// //   -H 'Authorization: <redacted>' \
/// //   -H 'Content-Type: application/json' \
/// //   --data-raw '{"password":"<redacted>","user":"ada"}'
/// ```
///
/// - The URL and headers are redacted like every other description (credential-named headers
///   and query items, user names and passwords in the URL); headers are sorted by name.
/// - A JSON body is printed with credential-named members redacted at any depth. It is
///   re-encoded from its parsed form: keys come out sorted, and numbers are JSON numbers of
///   this library (`Double`), so an integer beyond 2⁵³ or a `1.0` may print differently from
///   what was sent.
/// - A form body (`application/x-www-form-urlencoded`) is printed with credential-named fields
///   redacted, if it is made of `name=value` pairs only.
/// - A multipart form rendered by ``NetworkClient/curlCommand(for:)`` is printed as curl's own
///   options, one per part: `-F` for a file part (curl reads the same file), `--form-string`
///   for a text field (redacted when its name is a credential's) and a size placeholder for
///   other parts held in memory; curl then frames the form with a boundary of its own.
/// - Other bodies, and bodies over ``maximumPrintedBodySize`` bytes, are replaced by a
///   placeholder that gives their size and type: they may hold secrets in a format the
///   redaction cannot read.
/// - Registered credential values (a ``TokenAuthenticator``'s tokens) are redacted wherever
///   they appear, also inside JSON strings and percent-encoded fields.
/// - Values are single-quoted for POSIX shells; the body is passed with `--data-raw`, so a
///   body starting with `@` is never read as a file name.
///
/// `LoggingPlugin(format: .curl)` logs each outgoing request this way, and
/// ``NetworkClient/curlCommand(for:)`` renders an endpoint without sending it.
public enum CurlCommand {
    /// The largest body printed in full, in bytes (4 KiB).
    public static let maximumPrintedBodySize = 4_096

    /// The command for `request`; see ``CurlCommand`` for what is shown and what is redacted.
    ///
    /// - Parameter request: Any request; credentials in it are redacted, not removed.
    /// - Returns: A command of one line per option, joined with ` \` continuations.
    public static func string(for request: URLRequest) -> String {
        string(for: request, upload: nil)
    }

    /// The command for `request`, whose body streams from `upload` when it is set: curl reads
    /// the same file for a ``RequestBody/file(_:contentType:)`` body. With `form`, the body is
    /// printed as curl's own multipart options (see ``formOptions(_:)``) instead of the bytes.
    static func string(for request: URLRequest, upload: UploadSource?, form: MultipartFormData? = nil) -> String {
        let method = request.httpMethod ?? "GET"
        let body = request.httpBody.flatMap { $0.isEmpty ? nil : $0 }
        let url = Redaction.scrub(request.url.map(Redaction.redact) ?? "<no URL>")
        var first = "curl"
        switch method {
        case "GET" where body == nil && upload == nil: break  // with a body, curl would send a POST
        case "HEAD": first += " --head"
        default: first += " -X " + quote(method)
        }
        if url.contains(where: { "[]{}".contains($0) }) { first += " --globoff" }
        first += " " + quote(url)
        var lines = [first]
        var headers = Redaction.redact(request.allHTTPHeaderFields ?? [:])
        if form != nil {
            // curl frames the parts itself, with a boundary (and length) of its own.
            for name in headers.keys where ["content-type", "content-length"].contains(name.lowercased()) {
                headers[name] = nil
            }
        } else if request.httpBodyStream != nil {
            // curl sizes a file body itself; a stream it cannot see has no body in the command,
            // and a length without one would make curl wait for it.
            for name in headers.keys where name.lowercased() == "content-length" { headers[name] = nil }
        }
        for name in headers.keys.sorted() {
            lines.append("-H " + quote(Redaction.scrub("\(name): \(headers[name] ?? "")")))
        }
        if let form {
            lines += formOptions(form)
        } else if let body {
            let contentType = headers.headerValue("Content-Type")
            lines.append("--data-raw " + quote(printable(body, contentType: contentType)))
        } else if case .file(let file)? = upload {
            lines.append("--data-binary @" + quote(file.path))
        }
        return Redaction.scrub(lines.joined(separator: " \\\n  "))
    }

    /// One option per part of `form`, in order: `-F 'name=@"path";type=…;filename="…"'` for a
    /// file part (curl reads the same file), `--form-string 'name=value'` for a text field (the
    /// value redacted when the name is a credential's), and a `--form-string` placeholder giving
    /// the size for any other part held in memory. A part whose name holds `=` cannot be written
    /// for curl (it splits the option there) and is sent under a different name by the command.
    static func formOptions(_ form: MultipartFormData) -> [String] {
        form.parts.map { part in
            if let file = part.fileURL {
                // curl takes the type as it is, parameters and quotes included, but reads a ","
                // as a list of files and its own `filename=`/`headers=` inside it: such a type is
                // left out (curl then picks one).
                var option = "\(part.name)=@\(formQuoted(file.path))"
                if let type = part.contentType, isPlainType(type) { option += ";type=\(type)" }
                if let filename = part.filename { option += ";filename=\(formQuoted(filename))" }
                return "-F " + quote(option)
            }
            if part.filename == nil, part.contentType == nil, let text = String(data: part.data, encoding: .utf8),
               part.data.count <= maximumPrintedBodySize {
                let secret = Redaction.isSensitive(fieldName: part.name)
                // A text part may hold JSON or a form of its own: redacted as a body or free text.
                let value = secret ? "<redacted>" : Redaction.redact(stringValue: text, depth: 0)
                return "--form-string " + quote("\(part.name)=\(value)")
            }
            return "--form-string " + quote("\(part.name)=<\(part.data.count) bytes\(part.contentType.map { " of \($0)" } ?? "") not shown>")
        }
    }

    /// Whether curl's `-F` passes `type` on as it is.
    private static func isPlainType(_ type: String) -> Bool {
        let lowered = type.lowercased()
        return !type.isEmpty && !type.contains(",") && !type.contains(where: \.isNewline)
            && !lowered.contains("filename=") && !lowered.contains("headers=") && !lowered.contains("type=")
    }

    /// `text` in double quotes for a curl `-F` value, `"` and `\` escaped with `\`.
    private static func formQuoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The body as it can be shown: redacted JSON or form fields, or a placeholder. Also what
    /// ``LoggingPlugin`` prints for bodies.
    static func printable(_ body: Data, contentType: String?) -> String {
        let type = contentType?.lowercased() ?? ""
        let placeholder = "<\(body.count) bytes\(contentType.map { " of \($0)" } ?? "") not shown>"
        guard body.count <= maximumPrintedBodySize else { return placeholder }
        if type.contains("json"), let json = try? JSON(data: body) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let redacted = Redaction.redactMembers(json, scrubbingStrings: true)
            if let data = try? encoder.encode(redacted), let text = String(data: data, encoding: .utf8) {
                return text
            }
            return placeholder
        }
        if type.hasPrefix("application/x-www-form-urlencoded"), let text = String(data: body, encoding: .utf8),
           isFormEncoded(text) {
            return Redaction.redact(parameters: Substring(text))
        }
        return placeholder
    }

    /// Whether `text` is made of `name=value` pairs joined by `&`, in form-encoding characters
    /// only; anything else (JSON sent as a form, `;` separators) could hide a field from the
    /// redaction.
    private static func isFormEncoded(_ text: String) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%+=&*")
        guard text.allSatisfy(allowed.contains) else { return false }
        return text.split(separator: "&").allSatisfy { $0.contains("=") }
    }

    /// `text` in single quotes, each `'` inside written as `'\''`.
    private static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

extension NetworkClient {
    /// The `curl` command for `endpoint` as ``makeURLRequest(for:)`` builds it (so without the
    /// credentials the authenticator adds when it is sent), secrets redacted; see ``CurlCommand``.
    ///
    /// ```swift
    /// print(try client.curlCommand(for: CreatePost(title: "Hello")))
    /// ```
    ///
    /// - Throws: What ``makeURLRequest(for:)`` throws.
    public func curlCommand<E: Endpoint>(for endpoint: E) throws -> String {
        let built = try core.builder.makeRequest(for: endpoint)
        var form: MultipartFormData?
        if case .multipart(let multipart) = endpoint.body { form = multipart }
        return CurlCommand.string(for: built.request, upload: built.upload, form: form)
    }
}
