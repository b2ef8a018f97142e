import Foundation

/// A response whose body is read as it arrives: the answer of ``NetworkClient/stream(_:)``.
///
/// Iterate it for the body's pieces (`Data`), or ``lines`` for its text lines. Read it once,
/// from one task: the pieces are handed out as they come, not kept for a second reader, and a
/// second loop started after the first one began reading throws at once (and leaves the first
/// alone).
///
/// ```swift
/// let streamed = try await client.stream(Logs(follow: true))
/// print(streamed.response.statusCode)          // the head arrived; the body is on its way
/// for try await line in streamed.lines {
///     print(line)
/// }
/// ```
///
/// - Leaving the loop early (`break`, `return`, a thrown error), cancelling the reading task or
///   calling ``cancel()`` cancels the transfer; so does letting go of the response before the
///   end. The body cannot be read again after that.
/// - An error while the body arrives (the connection dropped, no piece within the stream's idle
///   limit: see ``Endpoint/idleTimeout``) is thrown from the loop as a ``NetworkError``.
/// - Pieces the caller has not read yet are held in memory up to
///   ``NetworkClient/Configuration/maximumResponseSize`` bytes (one piece is always taken,
///   whatever its size); a reader that falls further behind gets the pieces it has not read,
///   then ``NetworkError/invalidRequest(reason:)`` ("response larger than … bytes"), and the
///   transfer is cancelled. The server is not slowed down for a slow reader.
public struct StreamedResponse: AsyncSequence, Sendable {
    /// One piece of the body, as the transport received it (its size depends on the network).
    public typealias Element = Data
    /// Reading fails only with a ``NetworkError``.
    public typealias Failure = NetworkError

    /// The response head: status, headers and URL; its ``HTTPResponse/body`` is empty.
    public let response: HTTPResponse
    let reader: StreamedBodyReader

    init(head: HTTPResponse, reader: StreamedBodyReader) {
        var head = head
        head.streamedBody = nil
        head.body = Data()
        response = head
        self.reader = reader
    }

    /// The response of a transport that answered with the whole body: one piece.
    init(complete response: HTTPResponse) {
        self.init(head: response, reader: StreamedBodyReader(ResponseBodyStream(completeBody: response.body)))
    }

    /// Reads the body's pieces in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Reading fails only with a ``NetworkError``.
        public typealias Failure = NetworkError
        let reader: StreamedBodyReader

        /// The next piece, or `nil` once the body ended.
        ///
        /// - Throws: A ``NetworkError`` when the body was cut short, or ``NetworkError/cancelled``
        ///   when the reading task was cancelled.
        public mutating func next() async throws(NetworkError) -> Data? {
            try await reader.next()
        }
    }

    /// An iterator over the body's pieces; see ``StreamedResponse``. Letting go of it before the
    /// end (leaving the loop) cancels the transfer.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: StreamedBodyReader(iterating: reader))
    }

    /// Stops the transfer and drops what was not read: a loop reading the body throws
    /// ``NetworkError/cancelled``. Does nothing once the body has been read to its end.
    public func cancel() {
        reader.stream.stop()
    }

    /// The body as lines of UTF-8 text (invalid bytes become U+FFFD), split at LF, CR LF or a
    /// lone CR (the line endings of the event-stream format); the last line counts even without a line break.
    /// Suits line-delimited formats such as NDJSON and log tails; see ``events`` for
    /// Server-Sent Events.
    public var lines: Lines { Lines(reader: reader) }

    /// The body's lines; see ``StreamedResponse/lines``.
    public struct Lines: AsyncSequence, Sendable {
        /// One line, without its line break.
        public typealias Element = String
        /// Reading fails only with a ``NetworkError``.
        public typealias Failure = NetworkError
        let reader: StreamedBodyReader

        /// Reads lines in order.
        public struct AsyncIterator: AsyncIteratorProtocol {
            /// Reading fails only with a ``NetworkError``.
            public typealias Failure = NetworkError
            var splitter: LineSplitter

            /// The next line, or `nil` once the body ended.
            ///
            /// - Throws: A ``NetworkError`` when the body was cut short, when one line is longer
            ///   than ``NetworkClient/Configuration/maximumResponseSize`` bytes, or
            ///   ``NetworkError/cancelled`` when the reading task was cancelled.
            public mutating func next() async throws(NetworkError) -> String? {
                try await splitter.next()
            }
        }

        /// An iterator over the lines. Letting go of it before the end (leaving the loop)
        /// cancels the transfer.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(splitter: LineSplitter(reader: StreamedBodyReader(iterating: reader)))
        }
    }
}

/// Cuts a streamed body into lines, holding at most one unfinished line. Each byte is searched
/// for a line break once, however many pieces a long line arrives in.
///
/// A line ends at LF, CR LF or a lone CR (the event-stream format's line endings). A CR that is the last byte received so far ends its line at once, so a server that
/// ends lines with CR is not kept waiting for the next piece; an LF at the start of that next
/// piece then completes the CR LF instead of making an empty line.
struct LineSplitter {
    let reader: StreamedBodyReader
    private var pending: [UInt8] = []
    /// Where the unfinished line starts in `pending`.
    private var start = 0
    /// How far `pending` was searched for a line break without finding one.
    private var searched = 0
    /// The last line ended at a CR that was the last byte received: an LF next belongs to it.
    private var skipsLineFeed = false
    private var ended = false
    /// Whether bytes after the last line break, when the body ends, are dropped instead of
    /// returned as a last line: the event-stream format discards them (a field cut short, such
    /// as `retry: 3` from `retry: 3000`, must not take effect).
    var dropsUnterminatedLine = false

    init(reader: StreamedBodyReader) { self.reader = reader }

    mutating func next() async throws(NetworkError) -> String? {
        if Task.isCancelled {
            reader.stream.stop()
            throw NetworkError.cancelled
        }
        while true {
            if skipsLineFeed, start < pending.count {
                skipsLineFeed = false
                if pending[start] == UInt8(ascii: "\n") {
                    start += 1
                    searched = max(searched, start)
                }
            }
            if let lineBreak = pending[max(start, searched)...].firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
                let line = String(decoding: pending[start..<lineBreak], as: UTF8.self)
                start = lineBreak + 1
                if pending[lineBreak] == UInt8(ascii: "\r") {
                    if start < pending.count {
                        if pending[start] == UInt8(ascii: "\n") { start += 1 }
                    } else {
                        skipsLineFeed = true
                    }
                }
                searched = start
                if start == pending.count {
                    pending.removeAll(keepingCapacity: true)
                    start = 0
                    searched = 0
                }
                return line
            }
            searched = pending.count
            let limit = reader.stream.limit
            if pending.count - start > limit {
                // The unfinished line alone passes the limit: no end in sight.
                reader.stream.stop(with: .responseTooLarge(limit: limit))
                throw NetworkError.responseTooLarge(limit: limit)
            }
            if ended {
                guard start < pending.count, !dropsUnterminatedLine else { return nil }
                defer {
                    pending = []
                    start = 0
                    searched = 0
                }
                return String(decoding: pending[start...], as: UTF8.self)
            }
            guard let piece = try await reader.next() else {
                ended = true
                continue
            }
            if start > 0 {
                pending.removeFirst(start)
                searched -= start
                start = 0
            }
            pending.append(contentsOf: piece)
        }
    }
}
