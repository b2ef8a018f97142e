import Foundation

extension HTTPResponse {
    /// A file name for this response's body, safe to use inside a folder of yours: the
    /// `Content-Disposition` header's `filename*` (RFC 8187, UTF-8 or ISO-8859-1) or `filename`,
    /// else the last path component of ``url``; `nil` when neither gives a usable name.
    ///
    /// The name is made safe first: it is normalised to NFC, `/` and `\` become `_`, control
    /// and format characters (text-direction overrides such as U+202E, which can make
    /// `invoice<U+202E>fdp.exe` display as `invoiceexe.pdf`, and zero-width characters) and line
    /// separators are removed, leading dots (with the spaces and combining marks around them)
    /// and trailing spaces are dropped (no hidden files, no `..`), and the result is cut to 255
    /// UTF-8 bytes, keeping a short extension. A name with nothing left gives `nil`.
    ///
    /// ```swift
    /// // Content-Disposition: attachment; filename="Q3 results.pdf"
    /// response.suggestedFilename   // "Q3 results.pdf"
    /// ```
    public var suggestedFilename: String? {
        if let disposition = header("Content-Disposition"), let name = SuggestedFilename.parse(disposition) {
            return name
        }
        guard let last = url?.lastPathComponent, last != "/" else { return nil }
        return SuggestedFilename.sanitize(last)
    }
}

/// Reads the file name of a `Content-Disposition` header and makes names safe to save under.
enum SuggestedFilename {
    /// The longest name, in UTF-8 bytes, most file systems accept.
    static let maximumLength = 255

    /// The safe file name `value` suggests: `filename*` first, then `filename`.
    static func parse(_ value: String) -> String? {
        let parameters = self.parameters(of: value)
        if let extended = parameters["filename*"], let decoded = decodeExtended(extended), let name = sanitize(decoded) {
            return name
        }
        return parameters["filename"].flatMap(sanitize)
    }

    /// `name` as a single safe path component, or `nil` when nothing usable is left. Works on
    /// Unicode scalars (a combining mark after a `.` must not hide it), after NFC normalisation.
    static func sanitize(_ name: String) -> String? {
        var scalars: [Unicode.Scalar] = []
        for scalar in name.precomposedStringWithCanonicalMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate:
                continue   // controls, direction marks and overrides, zero-width characters, line breaks
            default:
                scalars.append(scalar == "/" || scalar == "\\" ? "_" : scalar)
            }
        }
        // No hidden file, no "." or "..": leading dots go, with the spaces and marks around them.
        while let first = scalars.first, first == "." || first.properties.isWhitespace || isMark(first) {
            scalars.removeFirst()
        }
        trimTrailingWhitespace(&scalars)
        guard !scalars.isEmpty else { return nil }
        return truncated(scalars)
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    private static func trimTrailingWhitespace(_ scalars: inout [Unicode.Scalar]) {
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
    }

    /// `scalars` cut to ``maximumLength`` UTF-8 bytes, scalar by scalar, keeping an extension of
    /// at most 16 bytes when some of the name before it is left.
    private static func truncated(_ scalars: [Unicode.Scalar]) -> String? {
        func length(_ part: ArraySlice<Unicode.Scalar>) -> Int { part.reduce(0) { $0 + UTF8.width($1) } }
        var stem = scalars[...]
        var suffix: ArraySlice<Unicode.Scalar> = []
        guard length(stem) > maximumLength else { return String(String.UnicodeScalarView(stem)) }
        if let dot = scalars.lastIndex(of: "."), dot > 0, length(scalars[dot...]) <= 16 {
            stem = scalars[..<dot]
            suffix = scalars[dot...]
        }
        // The length is kept as scalars are removed, not measured again each time: a hostile
        // header may hold a name of many thousand scalars.
        var total = length(stem) + length(suffix)
        while let last = stem.last, total > maximumLength {
            total -= UTF8.width(last)
            stem.removeLast()
        }
        var result = Array(stem)
        trimTrailingWhitespace(&result)
        guard !result.isEmpty else { return nil }
        result += suffix
        return String(String.UnicodeScalarView(result))
    }

    /// RFC 8187 `charset'language'percent-encoded`: UTF-8 or ISO-8859-1, else `nil`.
    private static func decodeExtended(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var iterator = pieces[2].utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        switch pieces[0].lowercased() {
        case "utf-8": return String(bytes: bytes, encoding: .utf8)
        case "iso-8859-1": return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        default: return nil
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The `name=value` parameters after the disposition type, names lowercased; a value is a
    /// token or a quoted string (`\` escapes the next character). The first of a repeated name wins.
    ///
    /// The header is read by Unicode scalar, not by `Character`: a combining mark after a `"`
    /// or `;` must not hide the delimiter (a proxy reading bytes would see it, and then the two
    /// would disagree on the name).
    private static func parameters(of value: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(value).unicodeScalars
        // Skip the disposition type ("attachment", "inline").
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return result }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0.properties.isWhitespace }
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == ";" } ?? rest.endIndex
            let name = String(rest[..<nameEnd]).trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[nameEnd...]
            var parameterValue = String.UnicodeScalarView()
            if rest.first == "=" {
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    var escaped = false
                    while let scalar = rest.first {
                        rest = rest.dropFirst()
                        if escaped {
                            parameterValue.append(scalar)
                            escaped = false
                        } else if scalar == "\\" {
                            escaped = true
                        } else if scalar == "\"" {
                            break
                        } else {
                            parameterValue.append(scalar)
                        }
                    }
                    rest = rest.drop { $0 != ";" }
                } else {
                    let valueEnd = rest.firstIndex(of: ";") ?? rest.endIndex
                    parameterValue = String(rest[..<valueEnd]).trimmingCharacters(in: .whitespaces).unicodeScalars
                    rest = rest[valueEnd...]
                }
            }
            if rest.first == ";" { rest = rest.dropFirst() }
            if !name.isEmpty, result[name] == nil { result[name] = String(parameterValue) }
        }
        return result
    }
}
