import Foundation

/// RFC 3986 percent-encoding for paths and query components.
enum PercentEncoding {
    /// Encodes everything a path segment may not hold; "/" stays a separator and an existing
    /// valid escape such as `%20` is kept (so pre-encoded paths are not encoded twice).
    /// "?" and "#" are encoded: query items belong in ``Endpoint/query``.
    static func encodePath<S: StringProtocol>(_ path: S) -> String {
        encode(path) { byte in
            isUnreserved(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
                || isSubDelimiter(byte)
        }
    }

    /// Encodes a query name or value: also "&", "=", "+" (as `%2B`, since many servers read
    /// "+" as a space) and "#", so that a value can never end its item early.
    static func encodeQueryComponent(_ text: String) -> String {
        // Query items are plain text (as `URLComponents.queryItems` treats them): a "%" is always
        // encoded, so "100%25" arrives as written instead of being decoded to "100%".
        encode(text, keepingEscapes: false) { byte in
            isUnreserved(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "$")
                || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")")
                || byte == UInt8(ascii: "*") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";")
        }
    }

    /// `true` when a "/"-separated segment of an encoded path decodes to "..".
    static func hasDotDotSegment(_ encodedPath: String) -> Bool {
        guard encodedPath.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "%") }) else {
            return false
        }
        return encodedPath.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            if segment == ".." { return true }
            guard segment.contains("%") else { return false }
            // A server that decodes %2F or %5C before routing would see more segments: check those too.
            let decoded = segment.removingPercentEncoding ?? String(segment)
            return decoded.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" })
                .contains { $0 == ".." }
        }
    }

    private static func encode<S: StringProtocol>(
        _ text: S, keepingEscapes: Bool = true, keeping allowed: (UInt8) -> Bool
    ) -> String {
        let utf8 = Array(text.utf8)
        var index = 0
        var needsWork = false
        while index < utf8.count {
            let byte = utf8[index]
            if !allowed(byte) && !(keepingEscapes && isEscape(utf8, at: index)) { needsWork = true; break }
            index += 1
        }
        guard needsWork else { return String(text) }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count + 16)
        for (position, byte) in utf8.enumerated() {
            if allowed(byte) || (keepingEscapes && isEscape(utf8, at: position)) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// `%` followed by two hex digits.
    private static func isEscape(_ bytes: [UInt8], at index: Int) -> Bool {
        bytes[index] == UInt8(ascii: "%") && index + 2 < bytes.count
            && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
