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
/// from the body with `JSONDecoder` (``DecodedResponse``).
protocol ResponseEnvelope {
    /// Whether building one decodes the body (`false` when the wrapped value is the response
    /// itself or ``EmptyResponse``): a decode may then run wherever the response arrives.
    static var decodesBody: Bool { get }

    /// Builds the envelope from a response, decoding its body with the decoder where the
    /// wrapped type needs it. (A closure rather than a method: the pipeline keeps it, and a
    /// metatype is not `Sendable`.)
    static var make: @Sendable (HTTPResponse, JSONDecoder) -> Result<any Sendable, NetworkError> { get }
}

extension DecodedResponse: ResponseEnvelope {
    static var decodesBody: Bool { ResponseBody.needsDecoding(Value.self) }

    static var make: @Sendable (HTTPResponse, JSONDecoder) -> Result<any Sendable, NetworkError> {
        { response, decoder in
            ResponseBody.decode(Value.self, from: response, decoder: decoder).map {
                DecodedResponse(value: $0, response: response)
            }
        }
    }
}

/// How the client turns a response body into an endpoint's `Response`, type by type (see
/// ``NetworkClient/request(_:)``).
enum ResponseBody {
    /// Whether `type` is decoded from the body at all.
    static func needsDecoding<Value>(_ type: Value.Type) -> Bool {
        if Value.self == HTTPResponse.self || Value.self == EmptyResponse.self { return false }
        if let envelope = Value.self as? any ResponseEnvelope.Type { return envelope.decodesBody }
        return true
    }

    /// `response` as a `Value`: the response itself, `EmptyResponse()`, parsed ``JSON``, an
    /// envelope, or `decoder`'s decoding of the body.
    static func decode<Value: Decodable & Sendable>(
        _ type: Value.Type, from response: HTTPResponse, decoder: JSONDecoder
    ) -> Result<Value, NetworkError> {
        if Value.self == HTTPResponse.self { return cast(response, response) }
        if Value.self == EmptyResponse.self { return cast(EmptyResponse(), response) }
        if Value.self == JSON.self { return json(response).flatMap { cast($0, response) } }
        if let envelope = Value.self as? any ResponseEnvelope.Type {
            return envelope.make(response, decoder).flatMap { cast($0, response) }
        }
        return typed(Value.self, response, decoder)
    }

    /// The body parsed as ``JSON`` (an empty body is ``JSON/null``).
    static func json(_ response: HTTPResponse) -> Result<JSON, NetworkError> {
        do {
            return .success(response.body.isEmpty ? JSON.null : try JSON(data: response.body))
        } catch {
            return .failure(.decodingFailed(underlying: error, response: response))
        }
    }

    /// The body decoded by `decoder`.
    static func typed<Value: Decodable>(
        _ type: Value.Type, _ response: HTTPResponse, _ decoder: JSONDecoder
    ) -> Result<Value, NetworkError> {
        do {
            return .success(try decoder.decode(Value.self, from: response.body))
        } catch {
            return .failure(.decodingFailed(underlying: error, response: response))
        }
    }

    /// `value` as a `Value` (its dynamic type was checked by the caller; a mismatch is reported,
    /// never trapped on).
    static func cast<Source, Value>(_ value: Source, _ response: HTTPResponse) -> Result<Value, NetworkError> {
        guard let typed = value as? Value else {
            return .failure(.decodingFailed(underlying: ResponseTypeMismatch(), response: response))
        }
        return .success(typed)
    }
}
