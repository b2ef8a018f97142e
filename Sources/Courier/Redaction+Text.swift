import Foundation

/// Secrets inside free text: a server's error message, a body that is not JSON, a JSON string
/// member (a next-page link, JSON or a form kept in a string), another library's error text.
extension Redaction {
    /// `text` with the user and password of URLs, the sensitive parameters of URL queries and
    /// fragments, the sensitive fields of `name=value&…` runs (`password=…` in a sentence, a form
    /// echoed back), the values of sensitive `"name": "value"` pairs (JSON cut short, or inside
    /// other text) and registered secret values, all replaced by ``placeholder``. Callers cut the
    /// result, never the input, so a shortened text cannot keep part of a secret.
    ///
    /// `Found. Redirecting to https://u:p@app.example/cb?code=XYZ&state=1`
    /// → `Found. Redirecting to https://app.example/cb?code=<redacted>&state=1`
    static func redact(text: String) -> String {
        let parameters = redactFormRuns(in: removingURLCredentials(in: redactQueries(in: text)))
        // Registered values last: their placeholder holds `<` and `>`, which end a query run,
        // and would hide what follows it from the rules above.
        return scrub(redactQuotedPairs(in: parameters))
    }

    /// A JSON string member: when it holds a JSON object or array itself, that JSON redacted as
    /// a body is (and written back as compact text); otherwise ``redact(text:)``.
    ///
    /// - Parameters:
    ///   - depth: How many JSON documents kept in strings enclose this one.
    ///   - level: How deeply the string is nested in the text being redacted; JSON inside it is
    ///     read only below ``maximumEmbeddingLevel``.
    static func redact(stringValue text: String, depth: Int, level: Int = 0) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if depth < maximumEmbeddedDepth, level < maximumEmbeddingLevel, trimmed.first == "{" || trimmed.first == "[",
           let embedded = try? JSON(data: Data(trimmed.utf8)) {
            return redactMembers(embedded, scrubbingStrings: true, depth: depth + 1, level: level).description
        }
        return redact(text: text)
    }

    /// How many levels of JSON kept inside JSON strings are read (each level is escaped once
    /// more, so real documents rarely nest more than one).
    static let maximumEmbeddedDepth = 3

    /// JSON kept in a string is read only when the string is nested less deeply than this: the
    /// document inside may nest up to ``JSON``'s own limit again, so the redaction walk recurses
    /// at most this much more than one document allows (a hostile body cannot stack three).
    static let maximumEmbeddingLevel = 16

    /// Each white-space-separated word of `text` that is a `name=value&…` run (a plausible field
    /// name before its first `=`) with its sensitive fields redacted; the rest as it is. Only
    /// values of sensitive names are hidden, so a word that merely looks like a form loses nothing.
    private static func redactFormRuns(in text: String) -> String {
        guard text.contains("=") else { return text }
        var result = ""
        var word = ""
        func flush() {
            if let equals = word.firstIndex(of: "="), equals > word.startIndex,
               word[..<equals].allSatisfy({ $0.isLetter || $0.isNumber || "_-.[]%+".contains($0) }) {
                result += redact(parameters: Substring(word))
            } else {
                result += word
            }
            word = ""
        }
        for character in text {
            if character.isWhitespace {
                flush()
                result.append(character)
            } else {
                word.append(character)
            }
        }
        flush()
        return result
    }

    /// `"password": "…"` pairs outside a parsed document (a body cut short, JSON inside a log
    /// line) with the value of every sensitive name replaced; also their escaped form,
    /// `\"password\":\"…\"`, as JSON kept in a string, or a Swift error's description, prints it.
    ///
    /// One pass, linear in the text: the value of a pair with an ordinary name is read on as text
    /// (pairs inside it are found too), and only a sensitive name's value is skipped to its end.
    private static func redactQuotedPairs(in text: String) -> String {
        guard text.contains("\":") || text.contains("\" :") else { return text }
        let scalars = Array(text.unicodeScalars)
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            let escaped = scalars[index] == "\\" && index + 1 < scalars.count && scalars[index + 1] == "\""
            guard scalars[index] == "\"" || escaped, let pair = quotedPair(in: scalars, at: index, escaped: escaped),
                  isSensitive(fieldName: String(String.UnicodeScalarView(scalars[pair.name])))
            else {
                result.append(scalars[index])
                index += 1
                continue
            }
            result.append(contentsOf: scalars[index..<pair.valueStart])
            result.append(contentsOf: placeholder.unicodeScalars)
            index = valueEnd(in: scalars, from: pair.valueStart, escaped: escaped)
        }
        return String(String.UnicodeScalarView(result))
    }

    /// The `"name" : "` starting at the quote at `start` (with `escaped`, the `\"name\" : \"`
    /// starting at the backslash there): the name's scalars, and where the value's text starts;
    /// `nil` when none starts there. Names of more than 100 scalars or with escapes are not read.
    private static func quotedPair(
        in scalars: [Unicode.Scalar], at start: Int, escaped: Bool
    ) -> (name: Range<Int>, valueStart: Int)? {
        let width = escaped ? 2 : 1   // the scalars of one quote: `"` or `\"`
        let nameStart = start + width
        var index = nameStart
        // A name holds no quote and no backslash, so it ends where either kind of quote starts.
        while index < scalars.count, scalars[index] != "\"", scalars[index] != "\\", index - start <= 100 { index += 1 }
        guard isQuote(in: scalars, at: index, escaped: escaped), index > nameStart else { return nil }
        let name = nameStart..<index
        index += width
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        guard index < scalars.count, scalars[index] == ":" else { return nil }
        index += 1
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        guard isQuote(in: scalars, at: index, escaped: escaped) else { return nil }
        return (name, index + width)
    }

    /// Whether a quote starts at `index`: `"`, or with `escaped` `\"`.
    private static func isQuote(in scalars: [Unicode.Scalar], at index: Int, escaped: Bool) -> Bool {
        guard index + (escaped ? 2 : 1) <= scalars.count else { return false }
        return escaped ? scalars[index] == "\\" && scalars[index + 1] == "\"" : scalars[index] == "\""
    }

    /// Where a quoted value that starts at `start` ends: at its closing quote (which is not part
    /// of it), or at the end of the text when it is never closed (a body cut short).
    private static func valueEnd(in scalars: [Unicode.Scalar], from start: Int, escaped: Bool) -> Int {
        var index = start
        if escaped {
            // Undo the outer escaping pair by pair (`\"` is `"`, `\\` is `\`), and read the JSON
            // string that gives: its own backslash escapes the next character, and an unescaped
            // quote (written `\"`) ends it.
            var escapesNext = false
            while index < scalars.count {
                let isPair = scalars[index] == "\\" && index + 1 < scalars.count
                let decoded = isPair ? scalars[index + 1] : scalars[index]
                if escapesNext {
                    escapesNext = false
                } else if isPair, decoded == "\"" {
                    break
                } else if isPair, decoded == "\\" {
                    escapesNext = true
                }
                index += isPair ? 2 : 1
            }
        } else {
            while index < scalars.count, scalars[index] != "\"" {
                index += scalars[index] == "\\" ? 2 : 1
            }
        }
        return min(index, scalars.count)
    }

    /// `text` with the `user:password@` (or `user@`) of every `scheme://` URL in it removed, as
    /// ``redact(_:)-(URL)`` removes them from a `URL`.
    static func removingURLCredentials(in text: String) -> String {
        guard text.contains("@"), text.contains("://") else { return text }
        let endsAuthority: (Unicode.Scalar) -> Bool = {
            $0 == "/" || $0 == "?" || $0 == "#" || $0.properties.isWhitespace || $0 == "\"" || $0 == "<" || $0 == ">"
                || $0 == "`"
        }
        var result = ""
        var index = text.startIndex
        while let separator = text.range(of: "://", range: index..<text.endIndex) {
            let start = separator.upperBound
            let end = text.unicodeScalars[start...].firstIndex(where: endsAuthority) ?? text.endIndex
            result += Substring(text.unicodeScalars[index..<start])
            let authority = text.unicodeScalars[start..<end]
            if let at = authority.lastIndex(of: "@") {
                result += Substring(text.unicodeScalars[text.unicodeScalars.index(after: at)..<end])
            } else {
                result += Substring(authority)
            }
            index = end
        }
        result += Substring(text.unicodeScalars[index...])
        return result
    }
}
