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
    /// strategy applies, and its key strategy to your types' properties). `NSNull` and a `nil`
    /// optional become `null`. The dictionaries' own keys are sent as written, never converted by
    /// a key strategy, in the order the encoder's `outputFormatting` gives (`.sortedKeys` for a
    /// stable one).
    ///
    /// A value of any other type (a `URL` is fine, it is `Encodable`; a class of yours that is not)
    /// fails the request with ``NetworkError/invalidRequest(reason:)`` naming its key path and
    /// type, never its content. For a body whose shape is known, prefer an `Encodable` type with
    /// ``json(_:)``: the compiler then checks it.
    ///
    /// - Parameter object: The dictionary to send.
    /// - Returns: A ``json(_:)`` body that encodes `object`.
    public static func jsonObject(_ object: [String: any Sendable]) -> RequestBody {
        .json(JSONObjectBody(value: object))
    }
}

/// A value of a ``RequestBody/jsonObject(_:)`` body: a dictionary, an array, an `Encodable`
/// value or a null, encoded by whichever it is.
struct JSONObjectBody: Encodable, Sendable {
    let value: any Sendable

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch value {
        // Encoded as a `Dictionary`, whose keys `JSONEncoder` writes as they are (a keyed
        // container would apply the encoder's key strategy to them: the caller wrote wire names).
        case let object as [String: any Sendable]:
            try container.encode(object.mapValues { JSONObjectBody(value: $0) })
        case let array as [any Sendable]:
            try container.encode(array.map { JSONObjectBody(value: $0) })
        case let encodable as any Encodable:
            try container.encode(encodable)
        case is NSNull:
            try container.encodeNil()
        default:
            if Self.isNilOptional(value) { return try container.encodeNil() }
            // The type, never the value: it may be a secret.
            throw EncodingError.invalidValue(
                "\(type(of: value))",
                EncodingError.Context(
                    codingPath: encoder.codingPath,
                    debugDescription: "a \(type(of: value)) is not a JSON value and is not Encodable"))
        }
    }

    /// Whether `value` is an optional holding nothing (of a type that is not `Encodable`).
    private static func isNilOptional(_ value: any Sendable) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }
}
