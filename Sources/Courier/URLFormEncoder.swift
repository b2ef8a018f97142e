import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns an `Encodable` value into query items or form fields, the way Alamofire's
/// `URLEncodedFormEncoder` and Moya's `URLEncoding` spell them: nested values as `user[name]`,
/// arrays as `tags[]`, booleans as `1`/`0`, `nil` left out, fields sorted by name.
///
/// ```swift
/// struct Search: Encodable, Sendable {
///     var text: String
///     var tags: [String]
///     var page: Int?
/// }
///
/// let items = try URLFormEncoder().encode(Search(text: "swift", tags: ["http", "ios"], page: nil))
/// // tags[]=http, tags[]=ios, text=swift
/// let search = Request<[Article]>.get("search", query: items)   // …?tags%5B%5D=http&tags%5B%5D=ios&text=swift
///
/// var body: RequestBody { .urlEncoded(login) }   // a form body, encoded when the request is built
/// ```
///
/// The value must encode as keyed fields (a struct or class with synthesized or keyed
/// `Encodable`, or a dictionary keyed by `String` or `Int`); a bare number, string or array has
/// no field names and throws. Fields are sorted by name at each level (``sortsKeys``), array
/// elements keep their order. Names and values are returned as they are; percent-encoding is
/// done when the URL or the form body is built.
///
/// Give enums a `String` or `Int` raw value: an enum case without one encodes as an empty nested
/// value, which writes nothing. A `nil` array element writes nothing either (with
/// ``ArrayStyle/indexed`` its index is skipped). `Date`, `Data`, `URL`, `UUID` and `Decimal` get
/// their text form when they are encoded as values (fields, elements); a type that calls their
/// `encode(to:)` itself (a property wrapper) gets their `Encodable` form instead, as with
/// `JSONEncoder`.
public struct URLFormEncoder: Sendable {
    /// How an array's elements are named.
    public enum ArrayStyle: Sendable {
        /// `tags[]=a&tags[]=b` (the default; Alamofire's, Rails' and PHP's convention).
        case brackets
        /// `tags=a&tags=b`: the name repeated as it is.
        case repeatedName
        /// `tags[0]=a&tags[1]=b`.
        case indexed
    }

    /// How a nested value's name is formed from its parent's.
    public enum NestingStyle: Sendable {
        /// `user[name]` (the default).
        case brackets
        /// `user.name`.
        case dots
    }

    /// How `Bool` values are written.
    public enum BoolStyle: Sendable {
        /// `1` and `0` (the default; Alamofire's and Moya's).
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// How `Date` values are written.
    public enum DateStyle: Sendable {
        /// ISO 8601 in UTC, to the second, e.g. `2026-11-23T21:05:00Z` (the default).
        case iso8601
        /// Seconds since 1 January 1970, e.g. `1795467900` (fractions kept when there are any).
        case secondsSince1970
        /// Milliseconds since 1 January 1970, e.g. `1795467900000`.
        case millisecondsSince1970
        /// Your own text for each date.
        case custom(@Sendable (Date) -> String)
    }

    /// How field names are written.
    public enum KeyStyle: Sendable {
        /// As `encode(to:)` (or the `CodingKeys`) names them (the default).
        case asDeclared
        /// `camelCase` names as `snake_case`: `pageSize` → `page_size`, `userID` → `user_id`,
        /// `urlString` → `url_string`.
        case snakeCase
    }

    /// How array elements are named. Default: ``ArrayStyle/brackets``.
    public var arrays: ArrayStyle
    /// How nested names are formed. Default: ``NestingStyle/brackets``.
    public var nesting: NestingStyle
    /// How booleans are written. Default: ``BoolStyle/numeric``.
    public var bools: BoolStyle
    /// How dates are written. Default: ``DateStyle/iso8601``.
    public var dates: DateStyle
    /// How field names are written. Default: ``KeyStyle/asDeclared``.
    public var keys: KeyStyle
    /// Whether each level's fields are sorted by name (as text, after ``keys`` is applied), as
    /// Alamofire and Moya sort them, or kept in the order `encode(to:)` writes them (a struct's
    /// declaration order; a dictionary's is not fixed). Array elements always keep their order.
    /// Default: `true`.
    public var sortsKeys: Bool

    /// Creates an encoder.
    ///
    /// - Parameters:
    ///   - arrays: How array elements are named; default ``ArrayStyle/brackets``.
    ///   - nesting: How nested names are formed; default ``NestingStyle/brackets``.
    ///   - bools: How booleans are written; default ``BoolStyle/numeric``.
    ///   - dates: How dates are written; default ``DateStyle/iso8601``.
    ///   - keys: How field names are written; default ``KeyStyle/asDeclared``.
    ///   - sortsKeys: Whether fields are sorted by name at each level; default `true`.
    public init(
        arrays: ArrayStyle = .brackets, nesting: NestingStyle = .brackets, bools: BoolStyle = .numeric,
        dates: DateStyle = .iso8601, keys: KeyStyle = .asDeclared, sortsKeys: Bool = true
    ) {
        self.arrays = arrays
        self.nesting = nesting
        self.bools = bools
        self.dates = dates
        self.keys = keys
        self.sortsKeys = sortsKeys
    }

    /// Encodes `value` as named fields.
    ///
    /// Strings, numbers, `Decimal`, `URL` (its absolute string), `UUID`, `Date` (see ``dates``)
    /// and `Data` (Base64) are written as text; `nil` optionals are left out; an empty array or
    /// nested value writes nothing.
    ///
    /// - Parameter value: A struct, class or string-keyed dictionary.
    /// - Returns: One item per field, array element and nested field, in order.
    /// - Throws: `EncodingError.invalidValue` when `value` is not keyed fields, when a number is
    ///   not finite, or whatever the value's own `encode(to:)` throws. The error names the
    ///   value's type and the field's path, never the value itself.
    public func encode(_ value: some Encodable) throws -> [URLQueryItem] {
        let root = FormNode()
        try FormFieldEncoder(node: root, options: self, codingPath: []).encodeValue(value)
        guard case .fields = root.content else {
            // The type, not the value: the error's text may be logged, and the value may hold secrets.
            throw EncodingError.invalidValue("\(type(of: value))", EncodingError.Context(
                codingPath: [], debugDescription: "\(type(of: value)) does not encode as named fields (a struct, a class or a string-keyed dictionary)"))
        }
        var items: [URLQueryItem] = []
        flatten(root, name: nil, into: &items)
        return items
    }

    private func flatten(_ node: FormNode, name: String?, into items: inout [URLQueryItem]) {
        switch node.content {
        case .nothing:
            break
        case .text(let text):
            items.append(URLQueryItem(name: name ?? "", value: text))
        case .fields(let fields):
            let named = fields.map { (key: keys == .snakeCase ? Self.snakeCased($0.name) : $0.name, node: $0.node) }
            for (key, node) in sortsKeys ? named.sorted(by: { $0.key < $1.key }) : named {
                let nested: String
                switch (name, nesting) {
                case (nil, _): nested = key
                case (let parent?, .brackets): nested = "\(parent)[\(key)]"
                case (let parent?, .dots): nested = "\(parent).\(key)"
                }
                flatten(node, name: nested, into: &items)
            }
        case .elements(let elements):
            let parent = name ?? ""
            for (index, element) in elements.enumerated() {
                switch arrays {
                case .brackets: flatten(element, name: parent + "[]", into: &items)
                case .repeatedName: flatten(element, name: parent, into: &items)
                case .indexed: flatten(element, name: "\(parent)[\(index)]", into: &items)
                }
            }
        }
    }

    /// `pageSize` → `page_size`, `userID` → `user_id`, `urlString` → `url_string`, `HTTPCode` →
    /// `http_code`: an underscore before each capital that starts a new word, everything lowercased.
    static func snakeCased(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                let startsWord = previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && next?.isLowercase == true)
                if startsWord && previous != "_" { result.append("_") }
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }
}
