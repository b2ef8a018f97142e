import Foundation

/// Non-optional readings with a default, as SwiftyJSON's `stringValue`, `intValue`, … give them,
/// so that code moving from SwiftyJSON reads the same. Unlike the optional accessors
/// (``JSON/string``, ``JSON/int``, …), these convert between kinds where SwiftyJSON does: a
/// number reads as text, numeric text as a number, `1`/`"yes"` as `true`.
///
/// ```swift
/// let user = json["data"]["user"]
/// label.text = user["name"].stringValue          // "" when missing
/// idLabel.text = user["id"].stringValue          // "42" for the number 42
/// let age = user["age"].intValue                 // 0 when missing, 30 for "30"
/// for tag in user["tags"].arrayValue { … }       // [] when missing
/// ```
extension JSON {
    /// The text of a string; a number as JSON writes it (`42`, `2.5`, every digit of a large
    /// integer such as `12345678901234567`, as held in a `Double`); `"true"` or `"false"`
    /// for a Boolean; `""` for anything else (null, a missing key, an array, an object).
    public var stringValue: String {
        switch self {
        case .string(let text): text
        case .number(let number) where number.rounded() == number && number.magnitude < 9.2e18:
            String(Int64(number))   // all the digits, never `1e+16`
        case .number, .bool: description
        case .null, .array, .object: ""
        }
    }

    /// A number rounded toward zero (`42.9` reads `42`); a string that holds a number, the same
    /// way; `1` or `0` for a Boolean; `0` for anything else, and for a number beyond `Int`'s range.
    public var intValue: Int {
        let number = doubleValue
        guard number.isFinite, number > -9.2e18, number < 9.2e18 else { return 0 }
        return Int(number.rounded(.towardZero))
    }

    /// A number; a string that holds a finite number (`"2.5"`, `" 3 "`; not `"nan"` or `"inf"`);
    /// `1` or `0` for a Boolean; `0` for anything else.
    public var doubleValue: Double {
        switch self {
        case .number(let number): number
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil } ?? 0
        case .bool(let flag): flag ? 1 : 0
        case .null, .array, .object: 0
        }
    }

    /// A Boolean; `true` for a number other than `0`; for a string, `true` when it reads
    /// `true`, `yes`, `y`, `t` or `1` (any case); `false` for anything else.
    public var boolValue: Bool {
        switch self {
        case .bool(let flag): flag
        case .number(let number): number != 0
        case .string(let text): ["true", "yes", "y", "t", "1"].contains(text.trimmingCharacters(in: .whitespaces).lowercased())
        case .null, .array, .object: false
        }
    }

    /// The elements of an array; `[]` for anything else.
    public var arrayValue: [JSON] { array ?? [] }

    /// The members of an object; `[:]` for anything else (SwiftyJSON's name; the optional
    /// reading is ``JSON/object``).
    public var dictionaryValue: [String: JSON] { object ?? [:] }
}
