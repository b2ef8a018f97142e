import Foundation

/// One value being encoded by ``URLFormEncoder``: empty until a container or a single value is
/// written into it. A class, so that nested containers can fill their part after the parent
/// container was handed out. Used on one thread, inside one `encode` call.
final class FormNode {
    enum Content {
        case nothing
        case text(String)
        case fields([(name: String, node: FormNode)])
        case elements([FormNode])
    }

    var content = Content.nothing

    /// Adds a field (turning an empty node into keyed fields) and returns the field's node.
    func addField(_ name: String) -> FormNode {
        let node = FormNode()
        if case .fields(var fields) = content {
            content = .nothing   // keeps `fields` uniquely referenced while it grows
            fields.append((name, node))
            content = .fields(fields)
        } else {
            content = .fields([(name, node)])
        }
        return node
    }

    /// Adds an array element (turning an empty node into elements) and returns its node.
    func addElement() -> FormNode {
        let node = FormNode()
        if case .elements(var elements) = content {
            content = .nothing
            elements.append(node)
            content = .elements(elements)
        } else {
            content = .elements([node])
        }
        return node
    }

    /// Makes an empty node keyed fields, so that a value with no fields still counts as keyed.
    func becomeFields() {
        if case .nothing = content { content = .fields([]) }
    }

    /// Makes an empty node an array.
    func becomeElements() {
        if case .nothing = content { content = .elements([]) }
    }

    var elementCount: Int {
        if case .elements(let elements) = content { return elements.count }
        return 0
    }
}

/// The `Encoder` that ``URLFormEncoder`` hands to `encode(to:)`.
struct FormFieldEncoder: Encoder {
    let node: FormNode
    let options: URLFormEncoder
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeFields()
        return KeyedEncodingContainer(FormKeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeElements()
        return FormUnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(encoder: self)
    }

    /// An encoder for a child node one step further down `codingPath`.
    func child(_ node: FormNode, key: any CodingKey) -> FormFieldEncoder {
        FormFieldEncoder(node: node, options: options, codingPath: codingPath + [key])
    }

    /// Writes `value` into ``node``: the types that have a text form directly, anything else
    /// through its own `encode(to:)`.
    func encodeValue(_ value: some Encodable) throws {
        if let text = try text(of: value) {
            node.content = .text(text)
        } else {
            try value.encode(to: self)
        }
    }

    /// The text of a value written as one field, or `nil` for a value that encodes itself.
    private func text(of value: Any) throws -> String? {
        switch value {
        case let date as Date:
            switch options.dates {
            case .iso8601: return ISO8601DateFormatter.string(
                from: date, timeZone: TimeZone(secondsFromGMT: 0) ?? .current, formatOptions: .withInternetDateTime)
            case .secondsSince1970: return try number(date.timeIntervalSince1970)
            case .millisecondsSince1970: return try number((date.timeIntervalSince1970 * 1000).rounded())
            case .custom(let format): return format(date)
            }
        case let data as Data: return data.base64EncodedString()
        case let url as URL: return url.absoluteString
        case let uuid as UUID: return uuid.uuidString
        case let decimal as Decimal: return decimal.description
        default: return nil
        }
    }

    /// A number's text: a whole number that fits 64 bits without a fraction (`2`, not `2.0`), any
    /// other in the shortest form that reads back as the same value of its own type (`Float(0.1)`
    /// is `0.1`, not the `Double` it widens to).
    func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath, debugDescription: "\(value) has no form or query text"))
        }
        if let whole = Int64(exactly: value) { return String(whole) }
        return value.description
    }

    func text(of bool: Bool) -> String {
        switch options.bools {
        case .numeric: return bool ? "1" : "0"
        case .literal: return bool ? "true" : "false"
        }
    }
}

/// A `CodingKey` for array positions and `superEncoder`.
struct FormIndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ index: Int) {
        stringValue = "\(index)"
        intValue = index
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init?(intValue: Int) {
        self.init(intValue)
    }

    static let superKey = FormIndexKey(stringValue: "super") ?? FormIndexKey(0)
}

/// Writes a struct's or dictionary's fields.
struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FormFieldEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func field(_ key: Key) -> FormFieldEncoder {
        encoder.child(encoder.node.addField(key.stringValue), key: key)
    }

    mutating func encodeNil(forKey key: Key) throws {}   // a `nil` field is left out

    /// Every value, primitives included: a primitive reaches ``FormSingleValueContainer`` through
    /// its own `encode(to:)`.
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try field(key).encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        field(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        field(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.child(encoder.node.addField(FormIndexKey.superKey.stringValue), key: FormIndexKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        field(key)
    }

    // The standard library's defaults for 128-bit integers throw, and they win over the generic
    // method above: these overloads are what makes them text.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128, forKey key: Key) throws { field(key).node.content = .text(String(value)) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128, forKey key: Key) throws { field(key).node.content = .text(String(value)) }
}

/// Writes an array's elements.
struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: FormFieldEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.node.elementCount }

    private func element() -> FormFieldEncoder {
        let index = encoder.node.elementCount
        return encoder.child(encoder.node.addElement(), key: FormIndexKey(index))
    }

    mutating func encodeNil() throws {
        _ = element()   // keeps the positions of the elements after it; writes nothing
    }

    /// Every value, primitives included, as for ``FormKeyedContainer``.
    mutating func encode<T: Encodable>(_ value: T) throws {
        try element().encodeValue(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        element().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        element().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        element()
    }

    // As in ``FormKeyedContainer``: the standard library's 128-bit defaults throw.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws { element().node.content = .text(String(value)) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws { element().node.content = .text(String(value)) }
}

/// Writes one value: a field's, an element's, or (rejected later) the whole value's.
struct FormSingleValueContainer: SingleValueEncodingContainer {
    let encoder: FormFieldEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {
        encoder.node.content = .nothing
    }

    mutating func encode(_ value: Bool) throws {
        encoder.node.content = .text(encoder.text(of: value))
    }

    mutating func encode(_ value: String) throws {
        encoder.node.content = .text(value)
    }

    mutating func encode(_ value: Double) throws {
        encoder.node.content = .text(try encoder.number(value))
    }

    mutating func encode(_ value: Float) throws {
        encoder.node.content = .text(try encoder.number(value))
    }

    mutating func encode(_ value: Int) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: Int8) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: Int16) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: Int32) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: Int64) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: UInt) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: UInt8) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: UInt16) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: UInt32) throws { encoder.node.content = .text(String(value)) }
    mutating func encode(_ value: UInt64) throws { encoder.node.content = .text(String(value)) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: Int128) throws { encoder.node.content = .text(String(value)) }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    mutating func encode(_ value: UInt128) throws { encoder.node.content = .text(String(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.encodeValue(value)
    }
}
