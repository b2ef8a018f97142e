import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the client turns a response body into an endpoint's `Response`, type by type (see
/// ``NetworkClient/request(_:)``).
enum ResponseBody {
    /// Whether `type` is decoded from the body at all.
    static func needsDecoding<Value>(_ type: Value.Type) -> Bool {
        if Value.self == HTTPResponse.self || Value.self == EmptyResponse.self || Value.self == Data.self { return false }
        if let envelope = Value.self as? any ResponseEnvelope.Type { return envelope.decodesBody }
        return true
    }

    /// Whether `type` has a rule of its own here rather than being decoded by `JSONDecoder`.
    static func hasOwnRule<Value>(_ type: Value.Type) -> Bool {
        Value.self == HTTPResponse.self || Value.self == EmptyResponse.self || Value.self == JSON.self
            || Value.self == Data.self || Value.self == String.self || Value.self is any ResponseEnvelope.Type
    }

    /// `response` as a `Value`: the response itself, `EmptyResponse()`, parsed ``JSON``, the raw
    /// body, its text, an envelope, or `decoder`'s decoding of the body.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from response: HTTPResponse, decoder: JSONDecoder
    ) -> Result<Value, NetworkError> {
        if Value.self == HTTPResponse.self { return cast(response, response) }
        if Value.self == EmptyResponse.self { return cast(EmptyResponse(), response) }
        if Value.self == JSON.self { return json(response).flatMap { cast($0, response) } }
        if Value.self == Data.self { return cast(response.body, response) }
        if Value.self == String.self { return text(response).flatMap { cast($0, response) } }
        if let envelope = Value.self as? any ResponseEnvelope.Type {
            return envelope.make(from: response, decoder: decoder).flatMap { cast($0, response) }
        }
        return typed(Value.self, response, decoder)
    }

    /// `response` as a `Value` decoded from the JSON value at `keyPath` (an endpoint's
    /// ``Endpoint/responseKeyPath``): a `String` (or `String?`) is the JSON string found there,
    /// a ``DecodedResponse`` holds the value found and the whole response, and every other type
    /// follows ``decode(_:from:decoder:)`` on that value. An empty body is decoded as it is (an
    /// optional is `nil`). A failure carries the whole response.
    static func decode<Value: Decodable>(
        _ type: Value.Type, from response: HTTPResponse, atKeyPath keyPath: String, decoder: JSONDecoder
    ) -> Result<Value, NetworkError> {
        if response.body.isEmpty && response.bodyFileURL == nil { return decode(Value.self, from: response, decoder: decoder) }
        if let envelope = Value.self as? any ResponseEnvelope.Type {
            return envelope.make(from: response, atKeyPath: keyPath, decoder: decoder).flatMap { cast($0, response) }
        }
        return narrowedDecode(Value.self, from: response, atKeyPath: keyPath, decoder: decoder)
    }

    /// `Value` decoded from the value at `keyPath` alone (a `String` or `String?` as a JSON
    /// string); a failure carries the whole response.
    static func narrowedDecode<Value: Decodable>(
        _ type: Value.Type, from response: HTTPResponse, atKeyPath keyPath: String, decoder: JSONDecoder
    ) -> Result<Value, NetworkError> {
        let narrowed: HTTPResponse
        do {
            narrowed = try response.narrowed(toKeyPath: keyPath)
        } catch {
            return .failure(.decodingFailed(underlying: error, response: response))
        }
        let result = Value.self == String.self || Value.self == String?.self
            ? typed(Value.self, narrowed, decoder)
            : decode(Value.self, from: narrowed, decoder: decoder)
        return result.mapError { error in
            guard case .decodingFailed(let underlying, _) = error else { return error }
            return .decodingFailed(underlying: underlying, response: response)
        }
    }

    /// The body parsed as ``JSON`` (an empty body is ``JSON/null``).
    static func json(_ response: HTTPResponse) -> Result<JSON, NetworkError> {
        do {
            return .success(response.body.isEmpty ? JSON.null : try JSON(data: response.body))
        } catch {
            return .failure(.decodingFailed(underlying: error, response: response))
        }
    }

    /// The body as text (``HTTPResponse/text``).
    static func text(_ response: HTTPResponse) -> Result<String, NetworkError> {
        guard let text = response.text else {
            return .failure(.decodingFailed(underlying: UndecodableText(encoding: response.textEncoding), response: response))
        }
        return .success(text)
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

/// An optional `Response` (`User?`, `String?`): `nil` for an empty body (a `204`), otherwise the
/// wrapped type's own rule; a JSON `null` is `nil` too when the wrapped type is decoded by
/// `JSONDecoder`.
extension Optional: ResponseEnvelope where Wrapped: Decodable {
    static var decodesBody: Bool { ResponseBody.needsDecoding(Wrapped.self) }

    static func make(from response: HTTPResponse, decoder: JSONDecoder) -> Result<Any, NetworkError> {
        if response.body.isEmpty && response.bodyFileURL == nil { return .success(Wrapped?.none as Any) }
        if ResponseBody.hasOwnRule(Wrapped.self) {
            return ResponseBody.decode(Wrapped.self, from: response, decoder: decoder).map { Wrapped?.some($0) as Any }
        }
        return ResponseBody.typed(Wrapped?.self, response, decoder).map { $0 as Any }
    }

    static func make(from response: HTTPResponse, atKeyPath keyPath: String, decoder: JSONDecoder) -> Result<Any, NetworkError> {
        ResponseBody.narrowedDecode(Wrapped?.self, from: response, atKeyPath: keyPath, decoder: decoder).map { $0 as Any }
    }
}

/// Why a body could not be read as text: its bytes are not valid in the encoding its
/// `Content-Type` names (UTF-8 when it names none).
struct UndecodableText: Error, CustomStringConvertible {
    /// The encoding the body was read with.
    let encoding: String.Encoding

    var description: String { "the body is not valid text in the encoding \(encoding)" }
}
