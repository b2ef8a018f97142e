import Foundation

extension JSON: ExpressibleByNilLiteral {
    /// `nil` written where a `JSON` is expected is ``JSON/null``.
    ///
    /// - Parameter nilLiteral: the literal.
    public init(nilLiteral: ()) { self = .null }
}

extension JSON: ExpressibleByBooleanLiteral {
    /// `true`/`false` written where a `JSON` is expected.
    ///
    /// - Parameter value: the literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSON: ExpressibleByIntegerLiteral {
    /// An integer literal becomes a ``JSON/number(_:)``.
    ///
    /// - Parameter value: the literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSON: ExpressibleByFloatLiteral {
    /// A decimal literal becomes a ``JSON/number(_:)``.
    ///
    /// - Parameter value: the literal.
    public init(floatLiteral value: Double) { self = .number(value) }
}

extension JSON: ExpressibleByStringLiteral {
    /// A string literal becomes a ``JSON/string(_:)``.
    ///
    /// - Parameter value: the literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSON: ExpressibleByArrayLiteral {
    /// An array literal becomes a ``JSON/array(_:)``: `let list: JSON = [1, "two", nil]`.
    ///
    /// - Parameter elements: the elements.
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// A dictionary literal becomes a ``JSON/object(_:)``: `let user: JSON = ["id": 7, "name": "Ada"]`.
    /// When a key repeats, the last value wins.
    ///
    /// - Parameter elements: the key–value pairs.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
