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
    /// The body; when empty, the endpoint's `sampleData` is used instead, except for a status that
    /// carries no body (`1xx`, `204`, `205`, `304`) and for ``empty(status:headers:delay:)``.
    public var body: Data
    /// Seconds before the answer arrives. It runs on the request's own deadline:
    /// a delay longer than the request's timeout ends in ``NetworkError/timedOut``.
    public var delay: TimeInterval
    /// A transport failure (no HTTP response at all) reported instead of a response.
    public var failure: (any Error)?
    /// For a streamed body (``streaming(_:every:status:headers:delay:)``): the pieces, in order;
    /// empty for an ordinary response. ``body`` then holds them joined.
    public var pieces: [Data] = []
    /// Seconds between one piece and the next (the first comes this long after the head).
    public var pieceInterval: TimeInterval = 0
    /// `true` for ``passthrough``: the request goes to the builder's passthrough transport.
    var passesThrough = false
    /// `false` for ``empty(status:headers:delay:)``: an empty ``body`` is the answer, not a
    /// request for the endpoint's `sampleData`.
    var fallsBackToSampleData = true

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

    /// A response whose body is empty whatever the endpoint's `sampleData` holds (a plain
    /// ``init(status:headers:body:delay:)`` with no body answers with the `sampleData`): an empty
    /// `200` for a `String?` or `Data` endpoint, an error status with no body for metadata, as Moya's
    /// `.networkResponse(404, Data())`.
    ///
    /// ```swift
    /// let client = NetworkClient.stubbing().stub(.get, "me/avatar", .empty(status: 404)).makeClient()
    /// ```
    ///
    /// - Parameters:
    ///   - status: The status code. Default: 200.
    ///   - headers: Response headers. Default: none.
    ///   - delay: Seconds before the response arrives. Default: 0.
    public static func empty(status: Int = 200, headers: [String: String] = [:], delay: TimeInterval = 0) -> StubResponse {
        var response = StubResponse(status: status, headers: headers, delay: delay)
        response.fallsBackToSampleData = false
        return response
    }

    /// Whether the endpoint's `sampleData` stands in for this answer's empty body: not for
    /// ``empty(status:headers:delay:)``, nor for a status that has no body on the wire (`1xx`,
    /// `204 No Content`, `205 Reset Content`, `304 Not Modified`), which no server could send one with.
    var usesSampleData: Bool {
        body.isEmpty && fallsBackToSampleData && !((100...199).contains(status) || [204, 205, 304].contains(status))
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

    /// A body that arrives in pieces over time: for ``NetworkClient/stream(_:)`` the head comes
    /// after `delay` and then one piece every `interval` seconds, on the client's scheduler (a
    /// ``VirtualClock`` steps through them); any other request gets the joined body when the
    /// last piece would have arrived. Between pieces the stream's idle timeout applies, so an
    /// interval as long as the request's timeout or longer ends the body with
    /// ``NetworkError/timedOut``. ``NetworkClient/Configuration/maximumResponseSize`` applies to
    /// the joined body only when it is not streamed.
    ///
    /// ```swift
    /// let tokens = ["Hel", "lo", "!"].map { Data($0.utf8) }
    /// let client = NetworkClient.stubbing().stub(.get, "chat", .streaming(tokens, every: 0.05)).makeClient()
    /// ```
    ///
    /// - Parameters:
    ///   - pieces: The body's pieces, in order.
    ///   - interval: Seconds between pieces.
    ///   - status: The status code. Default: 200.
    ///   - headers: Response headers. Default: none.
    ///   - delay: Seconds before the head arrives. Default: 0.
    public static func streaming(
        _ pieces: [Data], every interval: TimeInterval, status: Int = 200, headers: [String: String] = [:],
        delay: TimeInterval = 0
    ) -> StubResponse {
        var response = StubResponse(status: status, headers: headers, body: pieces.reduce(Data(), +), delay: delay)
        response.pieces = pieces.filter { !$0.isEmpty }
        response.pieceInterval = max(0, interval)
        return response
    }

    /// A `text/event-stream` body of `events`, one event per piece (see
    /// ``streaming(_:every:status:headers:delay:)``), read back by ``StreamedResponse/events``.
    ///
    /// ```swift
    /// let feed = StubResponse.events([ServerSentEvent(data: "hello"), ServerSentEvent(data: "[DONE]")], every: 0.1)
    /// ```
    ///
    /// - Parameters:
    ///   - events: The events, in order; a `data` with line feeds becomes several `data:` lines.
    ///   - interval: Seconds between events.
    ///   - delay: Seconds before the head arrives. Default: 0.
    public static func events(_ events: [ServerSentEvent], every interval: TimeInterval, delay: TimeInterval = 0) -> StubResponse {
        let pieces = events.map { event -> Data in
            var text = ""
            if event.event != "message" { text += "event: \(event.event)\n" }
            if let id = event.id { text += "id: \(id)\n" }
            if let retry = event.retry { text += "retry: \(retry)\n" }
            for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
            return Data((text + "\n").utf8)
        }
        return streaming(pieces, every: interval, headers: ["Content-Type": "text/event-stream"], delay: delay)
    }

    /// Not a canned answer: the request goes to the transport given to
    /// ``StubbingBuilder/passthrough(to:)`` (a real or loopback server) and gets its answer, after
    /// ``delay`` if you set one. Use it in a route, a sequence or a responder to let some requests
    /// through (Moya's `stubClosure` returning `.never` for some targets). Without a passthrough
    /// transport the request fails with ``StubError/noPassthroughTransport(request:)``.
    ///
    /// ```swift
    /// let client = NetworkClient.stubbing()
    ///     .stub(.get, "feed", sequence: [.json(#"{"items":[]}"#), .passthrough])   // first one canned
    ///     .passthrough(to: URLSessionTransport())
    ///     .makeClient(configuration: NetworkClient.Configuration(baseURL: server))
    /// ```
    public static let passthrough: StubResponse = {
        var response = StubResponse(status: 0)
        response.passesThrough = true
        return response
    }()

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
        if passesThrough { return "StubResponse(passthrough, delay: \(delay))" }
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
