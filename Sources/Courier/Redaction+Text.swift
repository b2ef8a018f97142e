import Foundation

/// Secrets inside free text: a server's error message, a body that is not JSON, a JSON string
/// member (a next-page link, JSON or a form kept in a string), another library's error text.
extension Redaction {
    /// `text` with registered secret values, the user and password of URLs, the sensitive
    /// parameters of URL queries and fragments, and, when the whole text is a form
    /// (`grant_type=password&password=…`), its sensitive fields, all replaced by ``placeholder``.
    /// Scrubbed before anything is cut, so that a shortened text cannot keep part of a secret.
    ///
    /// `Found. Redirecting to https://u:p@app.example/cb?code=XYZ&state=1`
    /// → `Found. Redirecting to https://app.example/cb?code=<redacted>&state=1`
    static func redact(text: String) -> String {
        var result = removingURLCredentials(in: redactQueries(in: scrub(text)))
        if looksLikeForm(result) { result = redact(parameters: Substring(result)) }
        return result
    }

    /// A JSON string member: when it holds a JSON object or array itself, that JSON redacted as
    /// a body is (and written back as compact text); otherwise ``redact(text:)``.
    static func redact(stringValue text: String, depth: Int) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if depth < maximumEmbeddedDepth, trimmed.first == "{" || trimmed.first == "[",
           let embedded = try? JSON(data: Data(trimmed.utf8)) {
            return redactMembers(embedded, scrubbingStrings: true, depth: depth + 1).description
        }
        return redact(text: text)
    }

    /// How many levels of JSON kept inside JSON strings are read (each level is escaped once
    /// more, so real documents rarely nest more than one).
    static let maximumEmbeddedDepth = 3

    /// Whether `text` is a single `name=value&…` run: no white space, and a plausible field name
    /// before its first `=`. (Redacting such a run only hides the values of sensitive names, so
    /// a text that merely looks like a form loses nothing else.)
    private static func looksLikeForm(_ text: String) -> Bool {
        guard let equals = text.firstIndex(of: "="), equals > text.startIndex,
              !text.contains(where: { $0.isWhitespace }) else { return false }
        return text[..<equals].allSatisfy { $0.isLetter || $0.isNumber || "_-.[]%+".contains($0) }
    }

    /// `text` with the `user:password@` (or `user@`) of every `scheme://` URL in it removed, as
    /// ``redact(_:)-(URL)`` removes them from a `URL`.
    static func removingURLCredentials(in text: String) -> String {
        guard text.contains("@"), text.contains("://") else { return text }
        let scalars = text.unicodeScalars
        let endsAuthority: (Unicode.Scalar) -> Bool = {
            $0 == "/" || $0 == "?" || $0 == "#" || $0.properties.isWhitespace || $0 == "\"" || $0 == "<" || $0 == ">"
                || $0 == "`" || $0 == "'"
        }
        var result = ""
        var index = scalars.startIndex
        while let separator = text.unicodeScalars[index...].firstRange(of: "://".unicodeScalars) {
            let start = separator.upperBound
            let end = scalars[start...].firstIndex(where: endsAuthority) ?? scalars.endIndex
            result.unicodeScalars.append(contentsOf: scalars[index..<start])
            let authority = scalars[start..<end]
            if let at = authority.lastIndex(of: "@") {
                result.unicodeScalars.append(contentsOf: scalars[scalars.index(after: at)..<end])
            } else {
                result.unicodeScalars.append(contentsOf: authority)
            }
            index = end
        }
        result.unicodeScalars.append(contentsOf: scalars[index...])
        return result
    }
}
