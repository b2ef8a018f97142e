import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// What `print`, string interpolation, `dump()` and the debugger's `po` show of a request written
// in place and of its body: their shape, with credentials redacted as in every other description.
// Without these, reflection would print an `Authorization` header, a `token` query item, a
// password form field or the user and password of a base URL as they are.

extension Request: CustomStringConvertible, CustomReflectable {
    /// The method and path, then the base URL, query, headers and body when set, with
    /// credential headers, query items and form fields redacted, e.g.
    /// `Request<JSON>(GET me, query: [token=<redacted>&page=2], headers: [Authorization: <redacted>])`.
    public var description: String {
        var parts = ["\(method.rawValue) \(Redaction.redact(text: path))"]
        if let baseURL { parts.append("baseURL: " + Redaction.redact(baseURL)) }
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = query
            let encoded = components.percentEncodedQuery ?? ""
            parts.append("query: [" + String(Redaction.redactQueries(in: "?" + encoded).dropFirst()) + "]")
        }
        if !headers.isEmpty { parts.append("headers: [" + Redaction.describe(headers: headers) + "]") }
        if case .none = body {} else { parts.append("body: \(body)") }
        return Redaction.scrub("Request<\(Response.self)>(" + parts.joined(separator: ", ") + ")")
    }

    /// The same as ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}

extension RequestBody: CustomStringConvertible, CustomReflectable {
    /// What kind of body it is and how large, never an encoded value's contents: `none`,
    /// `json(NewUser)`, `data(42 bytes, text/plain)`, `form([name: Ada, password: <redacted>])`,
    /// `multipart(3 parts)`, `file(/tmp/a.bin, image/png)`, `urlEncoded(Filter)`.
    public var description: String {
        let text: String
        switch self {
        case .none:
            text = "none"
        case .json(let value):
            text = "json(\(type(of: value)))"
        case .data(let data, let contentType):
            text = "data(\(data.count) bytes, \(contentType))"
        case .form(let fields):
            let shown = fields.keys.sorted().map { name in
                let secret = Redaction.isSensitive(fieldName: name)
                return "\(name): " + (secret ? Redaction.placeholder : Redaction.redact(text: fields[name] ?? ""))
            }
            text = "form([" + shown.joined(separator: ", ") + "])"
        case .multipart(let form):
            text = "multipart(\(form.parts.count) part\(form.parts.count == 1 ? "" : "s"))"
        case .file(let url, let contentType):
            text = "file(\(url.path), \(contentType))"
        case .urlEncoded(let value, _):
            text = "urlEncoded(\(type(of: value)))"
        }
        return Redaction.scrub(text)
    }

    /// The same as ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .enum)
    }
}
