import Foundation

extension JSON {
    /// The member named `key` of an object, or ``JSON/null`` when this is not an object
    /// or has no such member. Chainable: `json["user"]["address"]["city"]`.
    ///
    /// - Parameter key: the member name.
    public subscript(key: String) -> JSON {
        guard case .object(let members) = self else { return .null }
        return members[key] ?? .null
    }

    /// The element at `index` of an array, or ``JSON/null`` when this is not an array or
    /// `index` is out of range (negative indices included). Chainable: `json["items"][0]["id"]`.
    ///
    /// - Parameter index: the zero-based position.
    public subscript(index: Int) -> JSON {
        guard case .array(let items) = self, items.indices.contains(index) else { return .null }
        return items[index]
    }

    /// The text of a ``JSON/string(_:)``; `nil` for every other kind (numbers are not converted).
    public var string: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The value of a ``JSON/number(_:)`` that is integral and below 2⁵³ in magnitude, e.g. `42` for
    /// `42` or `42.0`; `nil` for `42.5`, for every other kind, and for integers of 2⁵³
    /// (9 007 199 254 740 992) or more in magnitude.
    ///
    /// Numbers are held as `Double`, which keeps every integer below 2⁵³ exactly but rounds larger
    /// ones (`1234567890123456789` is read as `…768`). Such a number gives `nil` rather than a
    /// different integer; read large identifiers exactly with
    /// ``HTTPResponse/decoded(_:atKeyPath:using:)`` (for example `Int64.self` at `"user.id"`), an
    /// endpoint's `responseKeyPath`, or a `Decodable` type of your own.
    public var int: Int? {
        guard case .number(let number) = self, number.magnitude < JSON.largestExactInteger else { return nil }
        return Int(exactly: number)
    }

    /// The value of a ``JSON/number(_:)``; `nil` for every other kind.
    public var double: Double? {
        guard case .number(let number) = self else { return nil }
        return number
    }

    /// The value of a ``JSON/bool(_:)``; `nil` for every other kind (`0`/`1` are not converted).
    public var bool: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The elements of an ``JSON/array(_:)``; `nil` for every other kind.
    public var array: [JSON]? {
        guard case .array(let items) = self else { return nil }
        return items
    }

    /// The members of an ``JSON/object(_:)``; `nil` for every other kind.
    public var object: [String: JSON]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// `true` for ``JSON/null``, which is also what a missing key or index reads as.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Decodes this value into a `Decodable` type by re-encoding it.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder to use; default a plain `JSONDecoder()`.
    /// - Throws: the encoder's or decoder's error when the value does not fit `type`.
    ///
    /// ```swift
    /// let user = try json["data"]["user"].decoded(as: User.self)
    /// ```
    public func decoded<T: Decodable>(as type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> T {
        let data = try JSONEncoder().encode(self)
        return try decoder.decode(type, from: data)
    }
}
