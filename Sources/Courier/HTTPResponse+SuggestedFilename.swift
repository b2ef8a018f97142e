import Foundation

extension HTTPResponse {
    /// A file name for this response's body, safe to use inside a folder of yours: the
    /// `Content-Disposition` header's `filename*` (RFC 8187, UTF-8 or ISO-8859-1) or `filename`,
    /// else the last path component of ``url``; `nil` when neither gives a usable name.
    ///
    /// The name is made safe first: `/` and `\` become `_`, control characters and
    /// text-direction overrides (which can disguise `invoice‮fdp.exe` as `invoiceexe.pdf`) are
    /// removed, leading dots and surrounding spaces are dropped (no hidden files, no `..`), and
    /// the result is cut to 255 UTF-8 bytes, keeping a short extension.
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

    /// `name` as a single safe path component, or `nil` when nothing usable is left.
    static func sanitize(_ name: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x2F, 0x5C: scalars.append("_")                             // / and \
            case 0x00...0x1F, 0x7F...0x9F: continue                           // control characters
            case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: continue  // direction marks and overrides
            default: scalars.append(scalar)
            }
        }
        var text = Substring(String(scalars))
        while let first = text.first, first == "." || first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        guard !text.isEmpty else { return nil }
        return truncated(String(text))
    }

    /// `name` cut to ``maximumLength`` UTF-8 bytes on a character boundary, its extension kept
    /// when it is short.
    private static func truncated(_ name: String) -> String {
        guard name.utf8.count > maximumLength else { return name }
        var stem = Substring(name)
        var suffix = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8.distance(from: dot, to: name.endIndex) <= 16 {
            stem = name[..<dot]
            suffix = String(name[dot...])
        }
        while stem.utf8.count + suffix.utf8.count > maximumLength { stem.removeLast() }
        return String(stem) + suffix
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
    private static func parameters(of value: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(value)
        // Skip the disposition type ("attachment", "inline").
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return result }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0.isWhitespace }
            let nameEnd = rest.firstIndex { $0 == "=" || $0 == ";" } ?? rest.endIndex
            let name = rest[..<nameEnd].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[nameEnd...]
            var parameterValue = ""
            if rest.first == "=" {
                rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
                if rest.first == "\"" {
                    rest = rest.dropFirst()
                    var escaped = false
                    while let character = rest.first {
                        rest = rest.dropFirst()
                        if escaped {
                            parameterValue.append(character)
                            escaped = false
                        } else if character == "\\" {
                            escaped = true
                        } else if character == "\"" {
                            break
                        } else {
                            parameterValue.append(character)
                        }
                    }
                    rest = rest.drop { $0 != ";" }
                } else {
                    let valueEnd = rest.firstIndex(of: ";") ?? rest.endIndex
                    parameterValue = rest[..<valueEnd].trimmingCharacters(in: .whitespaces)
                    rest = rest[valueEnd...]
                }
            }
            if rest.first == ";" { rest = rest.dropFirst() }
            if !name.isEmpty, result[name] == nil { result[name] = parameterValue }
        }
        return result
    }
}
