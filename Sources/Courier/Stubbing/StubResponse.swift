import Foundation

/// One canned answer of a stubbed ``NetworkClient``: an HTTP response, or a transport failure,
/// delivered after a delay.
///
/// ```swift
/// let notFound = StubResponse.json(#"{"metadata":{"status":"404","desc":"no such user"}}"#, status: 404)
/// let offline = StubResponse.failure(URLError(.notConnectedToInternet))
/// let slow = StubResponse(status: 200, body: Data("{}".utf8), delay: 2)
/// ```
public struct StubResponse: Sendable {
    /// The HTTP status code. Default: 200.
    public var status: Int
    /// Response headers. Default: none.
    public var headers: [String: String]
    /// The body; when empty, the endpoint's `sampleData` is used instead.
    public var body: Data
    /// Seconds before the answer arrives. It runs on the request's own deadline:
    /// a delay longer than the request's timeout ends in ``NetworkError/timedOut``.
    public var delay: TimeInterval
    /// A transport failure (no HTTP response at all) reported instead of a response.
    public var failure: (any Error)?

    /// Creates an HTTP response stub.
    ///
    /// - Parameters:
    ///   - status: The status code. Default: 200.
    ///   - headers: Response headers. Default: none.
    ///   - body: The body. Default: empty, which means "the endpoint's `sampleData`".
    ///   - delay: Seconds before the response arrives. Default: 0 (still asynchronous).
    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data(), delay: TimeInterval = 0) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.failure = nil
    }

    /// A JSON response: the body is `json`'s UTF-8 bytes and `Content-Type` is `application/json`.
    ///
    /// - Parameters:
    ///   - json: The JSON text, sent as is (it is not validated, so malformed JSON can be tested).
    ///   - status: The status code. Default: 200.
    ///   - delay: Seconds before the response arrives. Default: 0.
    public static func json(_ json: String, status: Int = 200, delay: TimeInterval = 0) -> StubResponse {
        StubResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8), delay: delay)
    }

    /// A transport failure: the request gets no HTTP response, exactly as when the network fails.
    /// A `URLError` surfaces like the network's: ``NetworkError/transport(underlying:)``, or
    /// ``NetworkError/timedOut`` for `.timedOut` and ``NetworkError/cancelled`` for `.cancelled`.
    ///
    /// - Parameters:
    ///   - error: The error the transport reports.
    ///   - delay: Seconds before it is reported. Default: 0.
    public static func failure(_ error: any Error, delay: TimeInterval = 0) -> StubResponse {
        var response = StubResponse(status: 0, delay: delay)
        response.failure = error
        return response
    }
}

extension StubResponse: CustomStringConvertible, CustomReflectable {
    /// `StubResponse(status: 200, headers: [Content-Type: application/json], body: 42 bytes, delay: 0.0)`,
    /// with credential headers redacted and the body shown only as its size, since stubs are often
    /// seeded with recorded traffic or from the environment.
    public var description: String {
        if let failure { return "StubResponse(failure: \(NetworkError.describeOther(failure)), delay: \(delay))" }
        let shown = Redaction.redact(headers).mapValues(Redaction.scrub)
        let fields = shown.keys.sorted().map { "\($0): \(shown[$0] ?? "")" }.joined(separator: ", ")
        return "StubResponse(status: \(status), headers: [\(fields)], body: \(body.count) bytes, delay: \(delay))"
    }

    /// What `dump()` and the debugger's `po` show: the same as ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
