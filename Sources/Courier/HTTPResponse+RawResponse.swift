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
        throw DecodingError.typeMismatch(
            HTTPResponse.self,
            DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "HTTPResponse is delivered as received and cannot be decoded from a body"))
    }
}
