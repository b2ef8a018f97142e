import Foundation

/// A decoded value together with the response it came from: for the calls where you need the
/// model *and* a header (a pagination `Link`, an `ETag`, a rate limit) or the exact status.
/// (Get returns its `Response<T>` for every call; Alamofire's `DataResponse` carries both.)
///
/// Declare it as an endpoint's `Response`, or wrap any endpoint with
/// ``Endpoint/withHTTPResponse()``; every call style then delivers it:
///
/// ```swift
/// struct ListUsers: Endpoint {
///     typealias Response = DecodedResponse<[User]>
///     let page: Int
///     var path: String { "users" }
///     var query: [URLQueryItem] { [URLQueryItem(name: "page", value: "\(page)")] }
/// }
///
/// let page = try await client.send(ListUsers(page: 2))
/// print(page.value.count, page.header("Link") ?? "last page")
/// ```
///
/// `value` is decoded exactly as it would be as the endpoint's own `Response` (``JSON``,
/// ``EmptyResponse``, ``HTTPResponse`` or ``NetworkClient/Configuration/decoder``), and the
/// status is classified first, so a `404` still rejects with a ``NetworkError``. `response` is
/// the final response of the request (after retries and redirects), body included.
public struct DecodedResponse<Value: Decodable & Sendable>: Sendable {
    /// The decoded body.
    public let value: Value
    /// The response `value` was decoded from: status, headers, body and final URL.
    public let response: HTTPResponse

    /// Pairs a value with its response (for stubs of your own and for tests).
    ///
    /// - Parameters:
    ///   - value: The decoded body.
    ///   - response: The response it came from.
    public init(value: Value, response: HTTPResponse) {
        self.value = value
        self.response = response
    }

    /// The HTTP status code of ``response``, e.g. `200`.
    public var statusCode: Int { response.statusCode }

    /// The value of the response header `name`, compared case-insensitively; `nil` when absent.
    ///
    /// - Parameter name: The header field name, e.g. `"Link"`.
    public func header(_ name: String) -> String? {
        response.header(name)
    }

    /// The same response with its value transformed, e.g. a page of users to their names while
    /// the `Link` header stays at hand (Get's `Response.map`, except that the new value must be
    /// `Decodable` and `Sendable` too, as every ``DecodedResponse`` value is).
    ///
    /// ```swift
    /// let names = try await client.send(ListUsers(page: 2)).map { users in users.map(\.name) }
    /// print(names.value, names.header("Link") ?? "last page")
    /// ```
    ///
    /// - Parameter transform: Turns the value into another; what it throws is rethrown.
    /// - Returns: The new value, with this ``response``.
    public func map<NewValue: Decodable & Sendable>(
        _ transform: (Value) throws -> NewValue
    ) rethrows -> DecodedResponse<NewValue> {
        DecodedResponse<NewValue>(value: try transform(value), response: response)
    }
}

extension DecodedResponse: Equatable where Value: Equatable {}

extension DecodedResponse: Decodable {
    /// Always throws: ``NetworkClient`` builds a `DecodedResponse` from the response itself and
    /// never decodes one from a body (this conformance only lets it be an endpoint's `Response`).
    ///
    /// - Parameter decoder: Unused.
    /// - Throws: `DecodingError.typeMismatch`.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.notDecodedFromBody(DecodedResponse.self, decoder, "is built from the whole response")
    }
}

/// A `Response` type that the client builds from the whole response instead of decoding it
/// from the body with `JSONDecoder` (``DecodedResponse``, optionals).
protocol ResponseEnvelope {
    /// Whether building one decodes the body (`false` when the wrapped value is the response
    /// itself or ``EmptyResponse``): a decode may then run wherever the response arrives.
    static var decodesBody: Bool { get }

    /// Builds the envelope from a response, decoding its body with `decoder` where the wrapped
    /// type needs it. (A method, not a stored closure: an optional's wrapped type need not be
    /// `Sendable`, so a closure capturing it could not be kept by the pipeline.)
    static func make(from response: HTTPResponse, decoder: JSONDecoder) -> Result<Any, NetworkError>

    /// Builds the envelope from the value at `keyPath` of a non-empty body (an endpoint's
    /// ``Endpoint/responseKeyPath``); what it keeps of the response is the whole response.
    static func make(from response: HTTPResponse, atKeyPath keyPath: String, decoder: JSONDecoder) -> Result<Any, NetworkError>
}

extension DecodedResponse: ResponseEnvelope {
    static var decodesBody: Bool { ResponseBody.needsDecoding(Value.self) }

    static func make(from response: HTTPResponse, decoder: JSONDecoder) -> Result<Any, NetworkError> {
        ResponseBody.decode(Value.self, from: response, decoder: decoder).map {
            DecodedResponse(value: $0, response: response) as Any
        }
    }

    static func make(from response: HTTPResponse, atKeyPath keyPath: String, decoder: JSONDecoder) -> Result<Any, NetworkError> {
        ResponseBody.decode(Value.self, from: response, atKeyPath: keyPath, decoder: decoder).map {
            DecodedResponse(value: $0, response: response) as Any
        }
    }
}
