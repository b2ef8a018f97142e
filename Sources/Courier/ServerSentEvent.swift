import Foundation

/// One event of a `text/event-stream` body (Server-Sent Events, as in the WHATWG HTML standard):
/// what a streaming chat completion, a build log or a notification feed sends.
///
/// ```swift
/// let streamed = try await client.stream(ChatCompletion(prompt: "Hello", stream: true))
/// for try await event in streamed.events {
///     if event.data == "[DONE]" { break }
///     let delta = try JSONDecoder().decode(Delta.self, from: Data(event.data.utf8))
///     print(delta.text, terminator: "")
/// }
/// ```
public struct ServerSentEvent: Sendable, Equatable {
    /// The `event:` field; `"message"` when the event names none.
    public var event: String
    /// The `data:` lines joined with line feeds.
    public var data: String
    /// The last `id:` seen in the stream so far (it carries over to later events), or `nil`.
    /// Send it back as `Last-Event-ID` to resume.
    public var id: String?
    /// The reconnection time in milliseconds: the last `retry:` field seen in the stream so far
    /// (like ``id``, it carries over to later events, and a block with only `retry:` sets it),
    /// or `nil` when none came yet. It is how long the server asks a client to wait before
    /// reconnecting.
    public var retry: Int?

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - event: The event type. Default: `"message"`.
    ///   - data: The data.
    ///   - id: The last event ID. Default: `nil`.
    ///   - retry: The reconnection time in milliseconds. Default: `nil`, none given yet.
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

extension StreamedResponse {
    /// The body as Server-Sent Events: lines are gathered into events at each blank line;
    /// comments (`:` lines) and unknown fields are skipped, and a block without `data:` lines
    /// dispatches nothing, as a browser's `EventSource` does. Lines end with LF, CR LF or CR.
    /// This reads one response; ``NetworkClient/events(_:lastEventID:reconnection:)`` reconnects after a
    /// dropped connection, as `EventSource` does.
    public var events: Events { Events(lines: lines) }

    /// The body's events; see ``StreamedResponse/events``.
    public struct Events: AsyncSequence, Sendable {
        /// One event.
        public typealias Element = ServerSentEvent
        /// Reading fails only with a ``NetworkError``.
        public typealias Failure = NetworkError
        let lines: Lines

        /// Reads events in order.
        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Reading fails only with a ``NetworkError``.
            public typealias Failure = NetworkError
            var lines: Lines.AsyncIterator
            var parser: EventParser

            /// The next event, or `nil` once the body ended.
            ///
            /// - Throws: A ``NetworkError`` when the body was cut short, when one event's data
            ///   passes ``NetworkClient/Configuration/maximumResponseSize`` bytes, or
            ///   ``NetworkError/cancelled`` when the reading task was cancelled.
            public mutating func next() async throws(NetworkError) -> ServerSentEvent? {
                while let line = try await lines.next() {
                    do {
                        if let event = try parser.consume(line) { return event }
                    } catch {
                        lines.splitter.reader.stream.stop(with: error)
                        throw error
                    }
                }
                return nil   // an event not closed by a blank line is dropped, as the standard says
            }
        }

        /// An iterator over the events.
        public func makeAsyncIterator() -> AsyncIterator {
            var lines = lines.makeAsyncIterator()
            lines.splitter.dropsUnterminatedLine = true   // the standard discards a last line without its break
            return AsyncIterator(lines: lines, parser: EventParser(limit: self.lines.reader.stream.limit))
        }
    }
}

/// The event-stream interpretation of lines (WHATWG HTML, "Interpreting an event stream").
struct EventParser {
    /// The most bytes of data one event may gather.
    let limit: Int
    private var event = ""
    private var data = ""
    private var hasData = false
    private var lastID: String?
    /// The last event ID as of the last blank line (what a reconnection sends back): the
    /// standard sets it when a block ends, with or without data.
    private(set) var lastEventID: String?
    /// The reconnection time in milliseconds, once a `retry:` field set it.
    private(set) var retry: Int?
    private var isFirstLine = true

    init(limit: Int) { self.limit = limit }

    /// Starts from what earlier connections of the same event source left: events without an
    /// `id:` of their own then carry the last ID, as the standard's `lastEventId` does.
    mutating func carryOver(lastEventID: String?, retry: Int?) {
        lastID = lastEventID
        self.lastEventID = lastEventID
        self.retry = retry
    }

    /// Takes one line; returns an event when the line is the blank line that ends one.
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when the event's data passes `limit`
    ///   bytes (a server that never sends the blank line).
    mutating func consume(_ line: String) throws(NetworkError) -> ServerSentEvent? {
        // By Unicode scalar: a combining mark after the colon must not hide it.
        var scalars = Substring(line).unicodeScalars
        if isFirstLine {
            isFirstLine = false
            if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }   // a leading BOM
        }
        if scalars.isEmpty { return dispatch() }
        if scalars.first == ":" { return nil }
        let field: String
        var value: Substring.UnicodeScalarView
        if let colon = scalars.firstIndex(of: ":") {
            field = String(scalars[..<colon])
            value = scalars[scalars.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = String(scalars)
            value = Substring.UnicodeScalarView()
        }
        switch field {
        case "event":
            event = String(value)
        case "data":
            if hasData { data += "\n" }
            data += String(value)
            hasData = true
            if data.utf8.count > limit { throw .responseTooLarge(limit: limit) }
        case "id":
            if !value.contains("\u{0}") { lastID = String(value) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ ("0"..."9").contains($0) }) {
                retry = Int(String(value)) ?? Int.max
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastID
        defer {
            event = ""
            data = ""
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(event: event.isEmpty ? "message" : event, data: data, id: lastID, retry: retry)
    }
}
