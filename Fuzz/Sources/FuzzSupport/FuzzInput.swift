import Foundation

/// One fuzzer input read as an HTTP response.
///
/// Layout (every piece may be missing; what is missing is empty):
///
/// | Bytes          | Meaning                                                      |
/// |----------------|--------------------------------------------------------------|
/// | 0–1            | status code, `UInt16` big-endian (so 0…65535)                |
/// | 2              | `n`, the number of header lines that follow                  |
/// | next `n` lines | `Name: value`, each ended by `\n` (a line without `:` is a name with an empty value) |
/// | the rest       | the body, as is                                              |
///
/// Header bytes are decoded as UTF-8 with invalid sequences replaced, as a transport would hand them
/// over as `String`s; repeated names are joined with `", "` like HTTP folds them.
public struct FuzzInput: Sendable {
    /// The status code, 0…65535.
    public var statusCode: Int
    /// The header fields; repeated names joined with `", "`.
    public var headers: [String: String]
    /// The body bytes.
    public var body: Data

    /// Reads `bytes` with the layout above.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var cursor = bytes.startIndex
        let end = bytes.endIndex

        var status = 0
        for _ in 0..<2 where cursor < end {
            status = status << 8 | Int(bytes[cursor])
            cursor += 1
        }
        statusCode = status

        var lineCount = 0
        if cursor < end {
            lineCount = Int(bytes[cursor])
            cursor += 1
        }

        var headers: [String: String] = [:]
        for _ in 0..<lineCount where cursor < end {
            var lineEnd = cursor
            while lineEnd < end, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[cursor..<lineEnd]), as: UTF8.self)
            cursor = lineEnd < end ? lineEnd + 1 : end
            let (name, value) = FuzzInput.split(line)
            if let existing = headers[name] {
                headers[name] = existing + ", " + value
            } else {
                headers[name] = value
            }
        }
        self.headers = headers
        body = cursor < end ? Data(UnsafeBufferPointer(rebasing: bytes[cursor..<end])) : Data()
    }

    /// `"Name: value"` → `("Name", "value")`, surrounding spaces trimmed.
    private static func split(_ line: String) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else {
            return (line.trimmingCharacters(in: .whitespaces), "")
        }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return (name, value)
    }
}
