import Foundation

/// Untyped JSON: any value a JSON document can hold.
///
/// Use it when a response has no fixed shape, or as an endpoint's default `Response`.
/// Reading never crashes: a missing key, an index out of range or a value of the wrong
/// type gives ``JSON/null``, and the typed accessors (``string``, ``int``, …) give `nil`.
///
/// ```swift
/// let json = try JSON(data: body)
/// let name = json["data"]["products"][0]["name"].string   // String?
/// ```
///
/// Numbers are held as `Double`, so integers beyond ±2⁵³ lose precision: ``int`` gives `nil` for
/// them instead of a rounded value. Decode such values into your own `Decodable` type, or with
/// ``HTTPResponse/decoded(_:atKeyPath:using:)``, when exactness matters.
public enum JSON: Sendable, Hashable {
    /// `null` — also the result of reading anything that is not there.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number. JSON does not distinguish integers from decimals; see ``int`` and ``double``.
    case number(Double)
    /// A string.
    case string(String)
    /// An array of values.
    case array([JSON])
    /// An object: keys to values. Key order is not kept.
    case object([String: JSON])

    /// Parses a JSON document (any top-level value, including a bare string or number).
    ///
    /// - Parameter data: UTF-8 JSON text.
    /// - Throws: the decoder's `DecodingError` when `data` is not valid JSON, or when arrays and
    ///   objects are nested more than 100 levels deep.
    ///
    /// ```swift
    /// let json = try JSON(data: Data(#"{"id": 7}"#.utf8))
    /// json["id"].int   // 7
    /// ```
    public init(data: Data) throws {
        self = try JSONDecoder().decode(JSON.self, from: data)
    }

    /// The deepest nesting of arrays and objects that decoding accepts: 100 levels, counted from the
    /// top of the document (levels of an enclosing `Decodable` type count too). Decoding recurses
    /// once per level, and Dispatch worker threads on Apple platforms have 512 KiB stacks: a few
    /// hundred levels (which Foundation's parser accepts) would overflow them, so a hostile body
    /// could crash the app.
    static let maximumDepth = 100

    /// 2⁵³: from here on, a `Double` cannot hold every integer, so a number read from a document may
    /// be a rounded neighbour of the one written there.
    static let largestExactInteger: Double = 9_007_199_254_740_992
}

extension JSON: Codable {
    /// Decodes any JSON value.
    ///
    /// - Parameter decoder: the decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` when the value is none of the JSON kinds, or when it is
    ///   an array or object inside 100 others (see ``init(data:)``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if decoder.codingPath.count >= JSON.maximumDepth {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "The JSON nests arrays and objects more than \(JSON.maximumDepth) levels deep."
            ))
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSON].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "The value is not null, a boolean, a number, a string, an array or an object."
            ))
        }
    }

    /// Encodes the value as the matching JSON kind.
    ///
    /// - Parameter encoder: the encoder to write to.
    /// - Throws: the encoder's error, e.g. for a non-finite ``number(_:)`` with a default `JSONEncoder`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSON: CustomStringConvertible {
    /// Compact JSON text with keys sorted, e.g. `{"a":[1,2.5,null],"b":"x"}`.
    ///
    /// Integral numbers print without a fraction; non-finite numbers print as `null`.
    public var description: String {
        var output = ""
        JSON.write(self, into: &output)
        return output
    }

    private static func write(_ value: JSON, into output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += format(number)
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            output += "["
            for (offset, item) in items.enumerated() {
                if offset > 0 { output += "," }
                write(item, into: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (offset, key) in members.keys.sorted().enumerated() {
                if offset > 0 { output += "," }
                writeString(key, into: &output)
                output += ":"
                write(members[key] ?? .null, into: &output)
            }
            output += "}"
        }
    }

    private static func format(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number.rounded() == number, abs(number) < 1e15, let integer = Int(exactly: number) {
            return String(integer)
        }
        return String(number)
    }

    private static func writeString(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
