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

extension RequestBody {
    /// A dictionary built at run time, sent as a URL-encoded form: Moya's
    /// `.requestParameters(parameters:encoding: URLEncoding.httpBody)` (and `URLEncoding.default`
    /// for a `POST`), Alamofire's `parameters:` with `URLEncoding`.
    /// `Content-Type: application/x-www-form-urlencoded`.
    ///
    /// ```swift
    /// var body: RequestBody {
    ///     .urlEncodedObject(["q": query, "page": 2, "tags": ["swift", "ios"], "exact": true])
    /// }
    /// // exact=1&page=2&q=…&tags[]=swift&tags[]=ios
    /// ```
    ///
    /// Values are what ``jsonObject(_:)`` takes (nested dictionaries and arrays, `Encodable`
    /// values, `NSNumber`, `NSNull`), written as `encoder` writes an `Encodable` value's fields:
    /// by default arrays as `key[]=`, nested values as `key[sub]=`, Booleans as `1`/`0`, `nil`
    /// and `NSNull` left out. Unlike ``jsonObject(_:)``, the encoder's ``URLFormEncoder/keys``
    /// style applies to the dictionary's own keys too. A value of another type fails the request
    /// with ``NetworkError/invalidRequest(reason:)``. For the query string of a `GET`, use
    /// ``URLFormEncoder/encode(object:)``.
    ///
    /// - Parameters:
    ///   - object: The fields to send.
    ///   - encoder: How arrays, nesting, Booleans and dates are written. Default: `URLFormEncoder()`.
    /// - Returns: A ``urlEncoded(_:encoder:)`` body that encodes `object`.
    public static func urlEncodedObject(
        _ object: [String: any Sendable], encoder: URLFormEncoder = URLFormEncoder()
    ) -> RequestBody {
        .urlEncoded(JSONObjectBody(value: object), encoder: encoder)
    }
}

extension URLFormEncoder {
    /// Encodes a dictionary built at run time as query items: Moya's `.requestParameters` with
    /// `URLEncoding.queryString` (or `.default` for a `GET`), for an endpoint's ``Endpoint/query``.
    ///
    /// ```swift
    /// struct Search: Endpoint {
    ///     let items: [URLQueryItem]
    ///     var path: String { "search" }
    ///     var query: [URLQueryItem] { items }
    /// }
    /// let search = Search(items: try URLFormEncoder().encode(object: ["q": "swift", "page": 2]))
    /// ```
    ///
    /// Values are what ``RequestBody/jsonObject(_:)`` takes; see
    /// ``RequestBody/urlEncodedObject(_:encoder:)`` for how they are written.
    ///
    /// - Parameter object: The fields to encode.
    /// - Returns: One item per field, array element and nested field, in order.
    /// - Throws: `EncodingError.invalidValue` naming the key path and type of a value that is
    ///   neither a dictionary, an array, `Encodable`, an `NSNumber` nor null.
    public func encode(object: [String: any Sendable]) throws -> [URLQueryItem] {
        try encode(JSONObjectBody(value: object))
    }
}
