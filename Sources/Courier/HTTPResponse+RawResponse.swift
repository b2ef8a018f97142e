import Foundation

/// Lets an endpoint ask for the raw response: `typealias Response = HTTPResponse`.
///
/// ``NetworkClient`` never decodes an `HTTPResponse` from a body; it delivers the response
/// itself (status classified, body untouched):
///
/// ```swift
/// struct Download: Endpoint {
///     typealias Response = HTTPResponse
///     var path: String { "files/report.pdf" }
/// }
/// let response = try await client.send(Download())
/// ```
extension HTTPResponse: Decodable {
    /// Always throws: an `HTTPResponse` is the response itself and is never decoded from a body.
    ///
    /// - Parameter decoder: Unused.
    /// - Throws: `DecodingError.typeMismatch`.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.notDecodedFromBody(HTTPResponse.self, decoder, "is delivered as received")
    }
}

extension DecodingError {
    /// The error of a `Response` type that ``NetworkClient`` builds from the whole response and
    /// that a body therefore cannot decode (``HTTPResponse``, ``DecodedResponse``).
    static func notDecodedFromBody(_ type: Any.Type, _ decoder: any Decoder, _ why: String) -> DecodingError {
        .typeMismatch(type, Context(
            codingPath: decoder.codingPath,
            debugDescription: "\(type) \(why) and cannot be decoded from a body"))
    }
}
