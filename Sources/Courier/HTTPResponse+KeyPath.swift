import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPResponse {
    /// Decodes the value found at `keyPath` in the JSON body: Moya's `map(_:atKeyPath:using:)`,
    /// for APIs that wrap every answer (`{"data":{"products":[…]},"metadata":{…}}`).
    ///
    /// ```swift
    /// let products = try await client.send(Request<HTTPResponse>("products"))
    ///     .decoded([Product].self, atKeyPath: "data.products")
    /// let firstName = try response.decoded(String.self, atKeyPath: "data.products.0.name")
    /// ```
    ///
    /// Each dot-separated part names a key of an object, or an index of an array (`0`, `1`, …);
    /// a key that itself contains a dot cannot be reached. Only the value found is decoded, by
    /// `decoder` with its strategies; integers keep their precision (a 64-bit ID survives), but
    /// a number with a fraction is read through `Double` on the way (decode a `Decimal` price
    /// from the whole body when every digit counts). A key is matched as written: a decoder's
    /// `keyDecodingStrategy` applies to the keys of the value found, not to the path. The body
    /// is read as strict JSON: a decoder's `allowsJSON5` and `assumesTopLevelDictionary` do not
    /// apply here.
    ///
    /// - Parameters:
    ///   - type: The type to decode, e.g. `[Product].self`.
    ///   - keyPath: Where the value is, e.g. `"data.products"`; `nil` or `""` decodes the whole body.
    ///   - decoder: The decoder. Default: a plain `JSONDecoder()`; pass the client's
    ///     ``NetworkClient/Configuration/decoder`` to use its strategies.
    /// - Returns: The decoded value.
    /// - Throws: ``NetworkError/decodingFailed(underlying:response:)`` carrying this response:
    ///   with a ``ResponseKeyPathError`` when the body is not JSON or the path leads nowhere,
    ///   or with the decoder's error when the value does not fit `type`. A body kept in a file
    ///   (a download) is not read: it fails with ``ResponseKeyPathError/bodyInFile``.
    public func decoded<T: Decodable>(
        _ type: T.Type = T.self, atKeyPath keyPath: String? = nil, using decoder: JSONDecoder = JSONDecoder()
    ) throws(NetworkError) -> T {
        do {
            guard bodyFileURL == nil else { throw ResponseKeyPathError.bodyInFile }
            guard let keyPath, !keyPath.isEmpty else { return try decoder.decode(T.self, from: body) }
            return try decoder.decode(T.self, from: try jsonData(atKeyPath: keyPath))
        } catch {
            throw .decodingFailed(underlying: error, response: self)
        }
    }

    /// This response with its body replaced by the JSON value at `keyPath` (status, headers and
    /// URL kept), for decoding an endpoint's ``Endpoint/responseKeyPath``.
    func narrowed(toKeyPath keyPath: String) throws -> HTTPResponse {
        guard bodyFileURL == nil else { throw ResponseKeyPathError.bodyInFile }
        var narrowed = self
        narrowed.body = try jsonData(atKeyPath: keyPath)
        return narrowed
    }

    /// The JSON text of the value at `keyPath` in the body.
    private func jsonData(atKeyPath keyPath: String) throws -> Data {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: body, options: .fragmentsAllowed)
        } catch {
            throw ResponseKeyPathError.notJSON
        }
        let value = try Self.value(at: keyPath, in: root)
        return try JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed)
    }

    /// The value `keyPath` leads to inside `root`, a parsed JSON value.
    private static func value(at keyPath: String, in root: Any) throws(ResponseKeyPathError) -> Any {
        var current = root
        var walked: [Substring] = []
        for part in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            if let object = current as? [String: Any], let next = object[String(part)] {
                current = next
            } else if let array = current as? [Any], let index = Self.arrayIndex(part), array.indices.contains(index) {
                current = array[index]
            } else {
                throw .notFound(keyPath: keyPath, missing: String(part), at: walked.joined(separator: "."))
            }
            walked.append(part)
        }
        return current
    }

    /// `part` as an array index: decimal digits only, without a sign or a leading zero (`"01"`
    /// and `"+1"` are keys, not indices).
    private static func arrayIndex(_ part: Substring) -> Int? {
        guard let first = part.first, part.allSatisfy({ $0.isASCII && $0.isNumber }),
              first != "0" || part.count == 1 else { return nil }
        return Int(part)
    }
}

/// Why ``HTTPResponse/decoded(_:atKeyPath:using:)`` found nothing to decode.
public enum ResponseKeyPathError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The body is not JSON.
    case notJSON
    /// The path leads nowhere: `missing` is neither a key of the object nor an index of the
    /// array found at `at` (`""`: the top level).
    case notFound(keyPath: String, missing: String, at: String)
    /// The body is in a file (``HTTPResponse/bodyFileURL``), not in memory.
    case bodyInFile

    /// A readable explanation, e.g. `No "products" in the body at "data" (key path "data.products")`.
    public var description: String {
        switch self {
        case .notJSON:
            "The body is not JSON"
        case .notFound(let keyPath, let missing, let at):
            "No \"\(missing)\" in the body \(at.isEmpty ? "at the top level" : "at \"\(at)\"") (key path \"\(keyPath)\")"
        case .bodyInFile:
            "The body is in a file, not in memory"
        }
    }

    /// The same as ``description``.
    public var errorDescription: String? { description }
}
