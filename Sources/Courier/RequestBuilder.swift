import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Step 1 of the pipeline: turns an ``Endpoint`` into the `URLRequest` that would be sent,
/// minus credentials (those are added when the request leaves the pause gate).
///
/// The base URL is parsed once, when the client is created; each request then costs one
/// string join, one `URL(string:)` parse and one header-dictionary assignment.
struct RequestBuilder: Sendable {
    private let base: Result<BaseURL, NetworkError>
    private let defaultHeaders: [String: String]
    private let timeout: TimeInterval
    private let cachePolicy: URLRequest.CachePolicy
    private let encoder: JSONEncoder

    init(configuration: NetworkClient.Configuration) {
        base = BaseURL.parse(configuration.baseURL)
        defaultHeaders = configuration.defaultHeaders
        timeout = configuration.timeout
        cachePolicy = configuration.cachePolicy
        encoder = configuration.encoder
    }

    /// The request for `endpoint`; see ``NetworkClient/makeURLRequest(for:)`` for the rules.
    func makeURLRequest<E: Endpoint>(for endpoint: E) throws(NetworkError) -> URLRequest {
        let base = try base.get()
        let url = try base.url(appending: endpoint.path, query: endpoint.query)
        let interval = endpoint.timeout ?? timeout
        guard interval > 0 else {
            throw .invalidRequest(reason: "the timeout must be a positive number of seconds, not \(interval)")
        }
        let (body, contentType) = try endpoint.body.encoded(using: encoder)

        var headers = defaultHeaders
        if let contentType { headers.setCaseInsensitive("Content-Type", to: contentType) }
        for (name, value) in endpoint.headers { headers.setCaseInsensitive(name, to: value) }

        var request = URLRequest(url: url, cachePolicy: cachePolicy, timeoutInterval: interval)
        request.httpMethod = endpoint.method.rawValue
        request.allHTTPHeaderFields = headers
        request.httpBody = body
        return request
    }
}

/// A base URL split into the parts a path is joined to.
struct BaseURL: Sendable {
    /// `scheme://authority`, e.g. `https://api.example.com:8443`.
    let origin: String
    /// The percent-encoded path exactly as written (may end with "/").
    let path: String
    /// `path` without trailing slashes.
    let trimmedPath: String
    /// The percent-encoded query of the base URL, if any.
    let query: String?

    static func parse(_ url: URL) -> Result<BaseURL, NetworkError> {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              let scheme = components.scheme, !scheme.isEmpty,
              let host = components.host, !host.isEmpty
        else {
            return .failure(.invalidRequest(reason: "the base URL \(url.absoluteString) needs a scheme and a host"))
        }
        let path = components.percentEncodedPath
        let query = components.percentEncodedQuery
        components.percentEncodedPath = ""
        components.percentEncodedQuery = nil
        components.percentEncodedFragment = nil
        guard let origin = components.string else {
            return .failure(.invalidRequest(reason: "the base URL \(url.absoluteString) is not valid"))
        }
        var trimmed = Substring(path)
        while trimmed.last == "/" { trimmed.removeLast() }
        return .success(BaseURL(origin: origin, path: path, trimmedPath: String(trimmed), query: query))
    }

    /// Joins `endpointPath` with exactly one "/" and appends the query items.
    func url(appending endpointPath: String, query items: [URLQueryItem]) throws(NetworkError) -> URL {
        var text = origin
        if endpointPath.isEmpty {
            text += path
        } else {
            var relative = Substring(endpointPath)
            while relative.first == "/" { relative.removeFirst() }
            let encoded = PercentEncoding.encodePath(relative)
            if PercentEncoding.hasDotDotSegment(encoded) {
                throw .invalidRequest(reason: "the path \"\(endpointPath)\" contains a \"..\" segment")
            }
            text += trimmedPath
            text += "/"
            text += encoded
        }
        var queryText = query ?? ""
        for item in items {
            if !queryText.isEmpty { queryText += "&" }
            queryText += PercentEncoding.encodeQueryComponent(item.name)
            if let value = item.value {
                queryText += "="
                queryText += PercentEncoding.encodeQueryComponent(value)
            }
        }
        if !queryText.isEmpty || query != nil {
            text += "?"
            text += queryText
        }
        guard let url = URL(string: text) else {
            throw .invalidRequest(reason: "\"\(endpointPath)\" does not form a valid URL")
        }
        return url
    }
}

/// RFC 3986 percent-encoding for paths and query components.
enum PercentEncoding {
    /// Encodes everything a path segment may not hold; "/" stays a separator and an existing
    /// valid escape such as `%20` is kept (so pre-encoded paths are not encoded twice).
    /// "?" and "#" are encoded: query items belong in ``Endpoint/query``.
    static func encodePath<S: StringProtocol>(_ path: S) -> String {
        encode(path) { byte in
            isUnreserved(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
                || isSubDelimiter(byte)
        }
    }

    /// Encodes a query name or value: also "&", "=", "+" (as `%2B`, since many servers read
    /// "+" as a space) and "#", so that a value can never end its item early.
    static func encodeQueryComponent(_ text: String) -> String {
        encode(text) { byte in
            isUnreserved(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "$")
                || byte == UInt8(ascii: "'") || byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")")
                || byte == UInt8(ascii: "*") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";")
        }
    }

    /// `true` when a "/"-separated segment of an encoded path decodes to "..".
    static func hasDotDotSegment(_ encodedPath: String) -> Bool {
        guard encodedPath.contains(".") || encodedPath.contains("%") else { return false }
        return encodedPath.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            segment == ".." || segment.count <= 6 && segment.removingPercentEncoding == ".."
        }
    }

    private static func encode<S: StringProtocol>(_ text: S, keeping allowed: (UInt8) -> Bool) -> String {
        let utf8 = Array(text.utf8)
        var index = 0
        var needsWork = false
        while index < utf8.count {
            let byte = utf8[index]
            if !allowed(byte) && !isEscape(utf8, at: index) { needsWork = true; break }
            index += 1
        }
        guard needsWork else { return String(text) }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count + 16)
        for (position, byte) in utf8.enumerated() {
            if allowed(byte) || isEscape(utf8, at: position) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// `%` followed by two hex digits.
    private static func isEscape(_ bytes: [UInt8], at index: Int) -> Bool {
        bytes[index] == UInt8(ascii: "%") && index + 2 < bytes.count
            && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}

extension Dictionary where Key == String, Value == String {
    /// Sets `value` for `name`, first removing any key that differs from `name` only in case.
    mutating func setCaseInsensitive(_ name: String, to value: String) {
        if self[name] == nil, let existing = keys.first(where: { $0.equalsIgnoringASCIICase(name) }) {
            removeValue(forKey: existing)
        }
        self[name] = value
    }
}

extension String {
    /// ASCII case-insensitive equality, without allocating lowercased copies.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { lhs, rhs in
            lhs == rhs || (lhs | 0x20 == rhs | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lhs | 0x20))
        }
    }
}
