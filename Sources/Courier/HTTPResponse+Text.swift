import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPResponse {
    /// The body as text, decoded with the `charset` of its `Content-Type` (UTF-8 when none is
    /// given or the charset is not one listed below); `nil` when the bytes are not valid in that
    /// encoding.
    ///
    /// Understood charsets: `utf-8`, `us-ascii`, `iso-8859-1` (`latin1`), `windows-1252`,
    /// `utf-16`, `utf-16le`, `utf-16be`, compared without regard to case. An endpoint whose
    /// `Response` is `String` gets this text (and a `.decodingFailed` error where this is `nil`).
    ///
    /// ```swift
    /// let page = try await client.send(Request<HTTPResponse>("robots.txt"))
    /// print(page.text ?? "not text")
    /// ```
    public var text: String? {
        String(data: body, encoding: textEncoding)
    }

    /// The encoding ``text`` decodes with.
    var textEncoding: String.Encoding {
        guard let contentType = header("Content-Type") else { return .utf8 }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else {
                continue
            }
            let name = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"' \t")).lowercased()
            return Self.encodings[name] ?? .utf8
        }
        return .utf8
    }

    private static let encodings: [String: String.Encoding] = [
        "utf-8": .utf8, "utf8": .utf8,
        "us-ascii": .ascii, "ascii": .ascii,
        "iso-8859-1": .isoLatin1, "iso_8859-1": .isoLatin1, "latin1": .isoLatin1,
        "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252,
        "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "utf-16be": .utf16BigEndian,
    ]
}
