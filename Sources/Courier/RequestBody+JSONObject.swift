import Foundation

extension RequestBody {
    /// A dictionary built at run time, sent as a JSON object: Moya's
    /// `.requestParameters(parameters:encoding: JSONEncoding.default)`, Alamofire's
    /// `parameters:` with `JSONEncoding`. `Content-Type: application/json`.
    ///
    /// ```swift
    /// var body: RequestBody {
    ///     .jsonObject(["name": name, "age": age, "tags": ["swift", "ios"], "address": ["city": city] as [String: any Sendable]])
    /// }
    /// ```
    ///
    /// Values may be nested `[String: any Sendable]` dictionaries and `[any Sendable]` arrays, and
    /// any `Encodable` value (a `String`, a number, a `Bool`, a ``JSON``, a `Date`, your own
    /// types), encoded as ``json(_:)`` would encode it, with the same `JSONEncoder` (its date
    /// strategy applies, and its key strategy to your types' properties). An `NSNumber` (what
    /// Objective-C code hands over) is sent as the Boolean or number it holds. `NSNull` and a `nil`
    /// optional become `null`. The dictionaries' own keys are sent as written, never converted by
    /// a key strategy, in the order the encoder's `outputFormatting` gives (`.sortedKeys` for a
    /// stable one).
    ///
    /// A value of any other type (a `URL` is fine, it is `Encodable`; a class of yours that is not)
    /// fails the request with ``NetworkError/invalidRequest(reason:)`` naming its key path and
    /// type, never its content. For a body whose shape is known, prefer an `Encodable` type with
    /// ``json(_:)``: the compiler then checks it. Swift 6 needs the dictionary's values to be
    /// `Sendable`: declare Moya-style parameters `[String: any Sendable]` rather than
    /// `[String: Any]`.
    ///
    /// - Parameter object: The dictionary to send.
    /// - Returns: A ``json(_:)`` body that encodes `object`.
    public static func jsonObject(_ object: [String: any Sendable]) -> RequestBody {
        .json(JSONObjectBody(value: object))
    }
}

/// The dictionary of a ``RequestBody/jsonObject(_:)`` body.
struct JSONObjectBody: Encodable, Sendable {
    let value: [String: any Sendable]

    func encode(to encoder: any Encoder) throws {
        try JSONObjectValue(value).encode(to: encoder)
    }
}

/// One value inside a ``RequestBody/jsonObject(_:)`` body, encoded by what it is: a dictionary,
/// an array, an `Encodable` value, an `NSNumber` (from `JSONSerialization` or Objective-C), or a
/// null. Made and used only while the body is encoded, on one thread.
private struct JSONObjectValue: Encodable {
    let value: Any

    init(_ value: Any) {
        self.value = value
    }

    /// The class of `NSNumber(value: true)`: Foundation's Booleans are `NSNumber`s of their own
    /// class on Apple platforms and on Linux alike.
    private static let booleanClass = type(of: NSNumber(value: true))

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        // Encoded as a `Dictionary`, whose keys `JSONEncoder` writes as they are (a keyed
        // container would apply the encoder's key strategy to them: the caller wrote wire names).
        case let object as [String: Any]:
            try container.encode(object.mapValues(JSONObjectValue.init))
        case let array as [Any]:
            try container.encode(array.map(JSONObjectValue.init))
        case let encodable as any Encodable:
            try container.encode(encodable)
        case let number as NSNumber:
            try Self.encode(number, into: &container)
        case is NSNull:
            try container.encodeNil()
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                // An optional of a type that is not `Encodable` (or one inside another): its
                // content, or `null`.
                guard let wrapped = mirror.children.first?.value else { return try container.encodeNil() }
                return try JSONObjectValue(wrapped).encode(to: encoder)
            }
            // The type, never the value: it may be a secret.
            throw EncodingError.invalidValue(
                "\(type(of: value))",
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "a \(type(of: value)) is not a JSON value and is not Encodable"))
        }
    }

    /// A Boolean as `true`/`false`, a floating-point number as a `Double`, any other number as
    /// the integer it holds.
    private static func encode(_ number: NSNumber, into container: inout any SingleValueEncodingContainer) throws {
        if type(of: number) == booleanClass { return try container.encode(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f", "d": try container.encode(number.doubleValue)
        case "Q": try container.encode(number.uint64Value)
        default: try container.encode(number.int64Value)
        }
    }
}
