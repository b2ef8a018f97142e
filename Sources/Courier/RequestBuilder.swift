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
    /// The client's origin: an endpoint whose own base URL lies elsewhere gets no credentials.
    private let origin: URLOrigin
    private let defaultHeaders: [String: String]
    private let timeout: TimeInterval
    private let idleTimeout: TimeInterval?
    private let cachePolicy: URLRequest.CachePolicy
    private let encoder: SharedCoder<JSONEncoder>

    init(configuration: NetworkClient.Configuration) {
        base = BaseURL.parse(configuration.baseURL)
        origin = URLOrigin(configuration.baseURL)
        defaultHeaders = configuration.defaultHeaders
        timeout = configuration.timeout
        idleTimeout = configuration.idleTimeout
        cachePolicy = configuration.cachePolicy
        encoder = configuration.sharedEncoder
    }

    /// The request for `endpoint`; see ``NetworkClient/makeURLRequest(for:)`` for the rules. A
    /// form with file parts is read into memory here, so that the request shows what is sent.
    func makeURLRequest<E: Endpoint>(for endpoint: E) throws(NetworkError) -> URLRequest {
        var (request, upload, _) = try makeRequest(for: endpoint)
        if case .form(let form)? = upload { request.httpBody = try form.encoded() }
        return request
    }

    /// The request for `endpoint`, and where its body streams from: the file of a
    /// ``RequestBody/file(_:contentType:)`` body, which each attempt reopens (the request streams
    /// it already), or a form with file parts (the request has no body yet). `onClientOrigin` is
    /// `false` for an endpoint whose own base URL lies on another origin: its request gets none of
    /// the client's credentials (the credential default headers are already left out).
    func makeRequest<E: Endpoint>(
        for endpoint: E
    ) throws(NetworkError) -> (request: URLRequest, upload: UploadSource?, onClientOrigin: Bool) {
        let ownBase = endpoint.baseURL
        let base = try (ownBase.map(BaseURL.parse) ?? base).get()
        let url = try base.url(appending: endpoint.path, query: endpoint.query)
        let interval = endpoint.timeout ?? timeout
        guard interval > 0 else {
            throw .invalidRequest(reason: "the timeout must be a positive number of seconds, not \(interval)")
        }
        if let idle = endpoint.idleTimeout ?? idleTimeout, !(idle > 0) {
            throw .invalidRequest(reason: "the idle timeout must be a positive number of seconds, not \(idle)")
        }
        let (body, contentType, upload) = try endpoint.body.encoded(using: endpoint.encoder ?? encoder.coder)

        var headers = defaultHeaders
        // Decided once, from the URL built (a URL's parts cost about 4 000 instructions to read on
        // Linux: only read for another base).
        let onClientOrigin = ownBase == nil || URLOrigin(url) == origin
        if !onClientOrigin {
            // Another server: the client's credentials stay home (see `Endpoint.baseURL`).
            headers = headers.filter { !Redaction.isSensitive(headerName: $0.key) }
        }
        if let contentType { headers.setCaseInsensitive("Content-Type", to: contentType) }
        for (name, value) in endpoint.headers { headers.setCaseInsensitive(name, to: value) }
        try HeaderValidation.check(headers)

        var request = URLRequest(url: url, cachePolicy: endpoint.cachePolicy ?? cachePolicy, timeoutInterval: interval)
        // A new URLRequest's method is already "GET". FoundationNetworking's setter normalises
        // the name with case-insensitive, locale-aware string comparisons (thousands of
        // instructions), so it is only called for the other methods.
        let method = endpoint.method
        if method != .get {
            try HeaderValidation.checkMethod(method.rawValue)
            request.httpMethod = method.rawValue
        }
        request.allHTTPHeaderFields = headers
        if case .file(let file)? = upload {
            // The file's size, whatever the endpoint says: a wrong length hangs the request or
            // corrupts the connection. Each attempt measures the file again.
            _ = try FileBody.prepare(&request, from: file)
        } else {
            request.httpBody = body
        }
        if let modify = endpoint.requestModifier { try RequestBuilder.apply(modify, to: &request, builtFor: url) }
        return (request, upload, onClientOrigin)
    }
}

extension RequestBuilder {
    /// Runs an endpoint's ``Endpoint/requestModifier`` on `request`, then checks what it may not
    /// do: change the URL (which decided where credentials go), the method (which decides
    /// retries, sharing and stub routes) or the body (which each attempt of an upload sets again,
    /// and a stream would be spent by the first attempt), or leave a header field that cannot be
    /// sent.
    static func apply(
        _ modify: @Sendable (inout URLRequest) -> Void, to request: inout URLRequest, builtFor url: URL
    ) throws(NetworkError) {
        let method = request.httpMethod, body = request.httpBody, stream = request.httpBodyStream
        modify(&request)
        guard request.url == url else {
            throw .invalidRequest(reason: "the request modifier changed the URL; set the endpoint's path, query or baseURL instead")
        }
        guard request.httpMethod == method else {
            throw .invalidRequest(reason: "the request modifier changed the method; set the endpoint's method instead")
        }
        guard request.httpBodyStream === stream, request.httpBody == body else {
            throw .invalidRequest(reason: "the request modifier changed the body; set the endpoint's body instead")
        }
        try HeaderValidation.check(request.allHTTPHeaderFields ?? [:])
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
            return .failure(.invalidRequest(reason: "the base URL \(Redaction.redact(url)) needs a scheme and a host"))
        }
        let path = components.percentEncodedPath
        let query = components.percentEncodedQuery
        components.percentEncodedPath = ""
        components.percentEncodedQuery = nil
        components.percentEncodedFragment = nil
        guard let origin = components.string else {
            return .failure(.invalidRequest(reason: "the base URL \(Redaction.redact(url)) is not valid"))
        }
        var trimmed = Substring(path)
        while trimmed.last == "/" { trimmed.removeLast() }
        return .success(BaseURL(origin: origin, path: path, trimmedPath: String(trimmed), query: query))
    }

    /// The scheme of `path` (its leading slashes removed) when it is a whole URL (`scheme://…`,
    /// the scheme as RFC 3986 spells it), which an endpoint's path never is: it would be joined
    /// under the base URL and sent to the wrong place. `nil` for every other path, including one
    /// with a colon later (`v1/items:batch`).
    static func schemeOfWholeURL(_ path: Substring) -> Substring? {
        guard let colon = path.utf8.firstIndex(of: UInt8(ascii: ":")),
              path.utf8[colon...].starts(with: "://".utf8) else { return nil }
        let scheme = path[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return nil }
        let allowed = scheme.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar))
        }
        return allowed ? scheme : nil
    }

    /// Joins `endpointPath` with exactly one "/" and appends the query items; a path that is a
    /// whole URL fails (see ``schemeOfWholeURL(_:)``).
    func url(appending endpointPath: String, query items: [URLQueryItem]) throws(NetworkError) -> URL {
        var text = origin
        if endpointPath.isEmpty {
            text += path
        } else {
            var relative = Substring(endpointPath)
            while relative.first == "/" { relative.removeFirst() }
            if let scheme = BaseURL.schemeOfWholeURL(relative) {
                throw .invalidRequest(reason: "the path is a whole URL (it starts with \"\(scheme)://\"); "
                    + "send a whole URL with Request(url:) (also one that holds another URL, as a proxy's "
                    + "\"/https://…\" path does), or give a path under the base URL")
            }
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

/// Rejects header names and values that would change the message on the wire: FoundationNetworking
/// on Linux hands header lines to libcurl as they are, so a CR or LF in a value would smuggle in a
/// second header.
enum HeaderValidation {
    static func check(_ headers: [String: String]) throws(NetworkError) {
        for (name, value) in headers {
            guard !name.isEmpty, allBytes(of: name, satisfy: isTokenByte) else {
                throw .invalidRequest(reason: "the header name \"\(printable(name))\" is not a valid HTTP token")
            }
            if !isValidValue(value) {
                throw .invalidRequest(reason: "the value of header \"\(name)\" contains a line break or NUL")
            }
        }
    }

    /// Rejects a method that is not an HTTP token: FoundationNetworking hands it to libcurl as the
    /// request line's first word, so a space or a line break would rewrite the request.
    static func checkMethod(_ method: String) throws(NetworkError) {
        guard !method.isEmpty, allBytes(of: method, satisfy: isTokenByte) else {
            throw .invalidRequest(reason: "the method \"\(printable(method))\" is not a valid HTTP token")
        }
    }

    /// Whether `value` may be sent as a header value: no CR, LF or NUL.
    static func isValidValue(_ value: String) -> Bool {
        allBytes(of: value, satisfy: { $0 != 0x0D && $0 != 0x0A && $0 != 0x00 })
    }

    /// Whether every UTF-8 byte of `text` passes `test`; scans the contiguous bytes of a native
    /// string directly (the common case) and falls back to the UTF-8 view otherwise.
    private static func allBytes(of text: String, satisfy test: (UInt8) -> Bool) -> Bool {
        if let result = text.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(test) }) { return result }
        return text.utf8.allSatisfy(test)
    }

    /// RFC 9110 `tchar`: visible ASCII except separators.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func printable(_ name: String) -> String {
        name.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
    }
}
