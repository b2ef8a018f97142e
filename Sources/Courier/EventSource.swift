import Foundation
import Promises

extension NetworkClient {
    /// Server-Sent Events from `endpoint` that survive a dropped connection, as a browser's
    /// `EventSource` does: when the connection ends (the server closed it, the network dropped,
    /// or no data came for the idle period: the endpoint's ``Endpoint/idleTimeout``, else its
    /// timeout, else the client's idle timeout, else the client's timeout), the client waits,
    /// reconnects with
    /// `Last-Event-ID` set to the last event ID it received, and the loop goes on.
    ///
    /// ```swift
    /// for try await event in client.events(Notifications()) {
    ///     print(event.event, event.data)
    ///     savedID = event.id                 // to resume after a relaunch: events(_:lastEventID:)
    /// }
    /// ```
    ///
    /// Each loop over the returned sequence opens its own connection; each connection is a
    /// ``stream(_:)`` request of `endpoint`, so it passes the pause gate, gets credentials, is
    /// retried by the endpoint's ``RetryPolicy`` (else the client's), then as the client's
    /// ``Configuration/requestRetriers`` decide, until its head arrives,
    /// and shows to plugins (as `endpoint` itself). The request carries `Accept: text/event-stream` unless the
    /// endpoint sets `Accept`, and `Last-Event-ID` unless the endpoint sets it.
    ///
    /// - **Reconnects** after the body ends, a transport error or ``NetworkError/timedOut``. The
    ///   wait is the server's last `retry:` field (from 0.25 s up to a day), else
    ///   ``EventReconnection/delay``; it doubles (from at least 0.25 s) for every further
    ///   reconnection in a row that brings no event, up to ``EventReconnection/maximumDelay``.
    ///   The wait runs on ``Configuration/scheduler`` (a ``VirtualClock`` drives it in tests).
    /// - **Ends** (the loop finishes) on a `204 No Content`, which is how the standard lets a
    ///   server say "stop", and after ``EventReconnection/maximumAttempts`` reconnections in a row
    ///   without an event (then it throws the error that ended the last connection, or finishes
    ///   when that connection ended normally).
    /// - **Throws** without reconnecting on a status the endpoint does not accept (a `401` after
    ///   the authenticator's refresh, a `404`, a `500` its retry policy gave up on), on a request
    ///   that cannot be built, on a response whose `Content-Type` is not `text/event-stream`
    ///   (``EventSourceError/notAnEventStream(contentType:)``; a response without one is read),
    ///   and ``NetworkError/cancelled`` when the task is cancelled.
    ///
    /// Events carry the last event ID and reconnection time across connections: an event
    /// without `id:` after a reconnection has the ID sent back.
    ///
    /// - Parameters:
    ///   - endpoint: The event stream to read; its `Response` type is not used.
    ///   - lastEventID: The ID to resume after, sent as `Last-Event-ID` on the first connection
    ///     too. Default `nil`: start from the server's current position.
    ///   - reconnection: How long to wait and how often to try. Default:
    ///     ``EventReconnection/init(delay:maximumDelay:maximumAttempts:)`` with its defaults
    ///     (3 s, at most 30 s, without end).
    /// - Returns: The events of every connection, in order.
    public func events<E: Endpoint>(
        _ endpoint: E, lastEventID: String? = nil, reconnection: EventReconnection = EventReconnection()
    ) -> EventSource {
        EventSource(
            connect: { id, control async throws(NetworkError) in
                do {
                    return try await self.stream(
                        endpoint, headers: EventSource.headers(for: endpoint, lastEventID: id), for: control)
                } catch {
                    throw NetworkError.fromTransport(error)
                }
            },
            scheduler: configuration.scheduler, lastEventID: lastEventID, reconnection: reconnection,
            list: { [core] stop in LiveWork(endpoint: endpoint, registry: core.liveRequests, stop: stop) })
    }
}

/// Why ``NetworkClient/events(_:lastEventID:reconnection:)`` would not read a response; it
/// reaches the loop inside ``NetworkError/decodingFailed(underlying:response:)``.
public enum EventSourceError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The response names a `Content-Type` other than `text/event-stream` (a captive portal's
    /// HTML page, say); the source does not reconnect, as a browser's `EventSource` fails.
    case notAnEventStream(contentType: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .notAnEventStream(let contentType):
            "The response is not an event stream (Content-Type: \(contentType))"
        }
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// When and how often ``NetworkClient/events(_:lastEventID:reconnection:)`` reconnects.
///
/// ```swift
/// // Try five times in a row at most, starting after one second.
/// let feed = client.events(Feed(), reconnection: EventReconnection(delay: 1, maximumAttempts: 5))
/// ```
public struct EventReconnection: Sendable, Equatable {
    /// Seconds to wait before reconnecting when the server sent no `retry:` field.
    public var delay: TimeInterval
    /// The longest wait, however many reconnections in a row brought no event (a server's
    /// `retry:` longer than this is still honoured).
    public var maximumDelay: TimeInterval
    /// How many reconnections in a row may bring no event before the sequence gives up; `0`
    /// never reconnects.
    public var maximumAttempts: Int

    /// Describes the reconnection.
    ///
    /// - Parameters:
    ///   - delay: Seconds before a reconnection when the server named none. Default: 3, as
    ///     browsers wait.
    ///   - maximumDelay: The cap of the doubling wait. Default: 30 seconds.
    ///   - maximumAttempts: Reconnections in a row without an event before giving up.
    ///     Default: `Int.max`, never give up (as `EventSource`).
    public init(delay: TimeInterval = 3, maximumDelay: TimeInterval = 30, maximumAttempts: Int = .max) {
        self.delay = max(0, delay)
        self.maximumDelay = max(0, maximumDelay)
        self.maximumAttempts = max(0, maximumAttempts)
    }

    /// Never reconnect: the events of one connection, like ``StreamedResponse/events``.
    public static let never = EventReconnection(maximumAttempts: 0)

    /// The shortest wait the doubling starts from, so that a zero delay does not reconnect in a
    /// tight loop to a server that keeps failing; also the shortest server `retry:` honoured.
    static let shortestGrowingWait: TimeInterval = 0.25

    /// The longest server `retry:` honoured: one day (a larger one is a server's mistake, and
    /// would never end).
    static let longestServerWait: TimeInterval = 86_400

    /// The wait before the `attempt`th reconnection in a row without an event (1 for the first),
    /// given the server's `retry:` in milliseconds.
    func wait(beforeAttempt attempt: Int, serverRetry: Int?) -> TimeInterval {
        // A server's `retry:` below the shortest growing wait counts as that wait: a server that
        // sends `retry: 0` and one event per connection would otherwise be reconnected to in a
        // tight loop, since each event resets the count of attempts without one.
        let base = serverRetry.map {
            min(max(TimeInterval($0) / 1000, Self.shortestGrowingWait), Self.longestServerWait)
        } ?? delay
        guard attempt > 1 else { return base }
        let doublings = min(attempt - 1, 62)
        let grown = max(base, Self.shortestGrowingWait) * TimeInterval(UInt64(1) << doublings)
        return max(base, min(grown, maximumDelay))
    }
}

/// The events of an event stream across reconnections: the sequence
/// ``NetworkClient/events(_:lastEventID:reconnection:)`` returns. Each loop connects anew.
public struct EventSource: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent
    /// Reading fails only with a ``NetworkError``.
    public typealias Failure = NetworkError

    /// Makes one connection, resuming after an event ID; the loop's control learns of its request.
    let connect: @Sendable (String?, EventSourceControl) async throws(NetworkError) -> StreamedResponse
    let scheduler: any RequestScheduler
    let lastEventID: String?
    let reconnection: EventReconnection
    /// Lists one loop for ``NetworkClient/cancelAll(where:)`` while the returned entry lives;
    /// `stop` ends the loop (see ``EventSourceControl``).
    let list: (@Sendable (_ stop: @escaping @Sendable () -> Bool) -> LiveWork?)?

    /// Reads events, reconnecting as ``NetworkClient/events(_:lastEventID:reconnection:)`` describes.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Reading fails only with a ``NetworkError``.
        public typealias Failure = NetworkError

        let source: EventSource
        /// This loop's entry for ``NetworkClient/cancelAll(where:)``.
        let control: EventSourceControl
        var events: StreamedResponse.Events.AsyncIterator?
        /// The ID of the last event block the server completed, sent back on reconnection.
        var lastEventID: String?
        /// The server's last `retry:` in milliseconds.
        var serverRetry: Int?
        /// Reconnections in a row that brought no event.
        var attemptsWithoutEvent = 0
        var isFinished = false

        /// The next event, after as many reconnections as it takes; `nil` once the stream ended.
        ///
        /// - Throws: The ``NetworkError`` that ended the stream (see
        ///   ``NetworkClient/events(_:lastEventID:reconnection:)``), or ``NetworkError/cancelled``.
        public mutating func next() async throws(NetworkError) -> ServerSentEvent? {
            while !isFinished {
                do throws(NetworkError) {
                    try control.check()
                } catch {
                    finish()
                    throw error
                }
                var ending: NetworkError?
                if var current = events {
                    events = nil   // the only owner while it reads: its line buffer is not copied
                    do {
                        let event = try await current.next()
                        remember(current.parser)
                        if let event {
                            // An event parsed from lines already buffered is not handed out after `cancelAll`.
                            try control.check()
                            events = current
                            attemptsWithoutEvent = 0
                            return event
                        }
                    } catch {
                        remember(current.parser)
                        ending = error
                    }
                    control.idle()
                } else {
                    do throws(NetworkError) {
                        try control.connecting()
                        let response = try await source.connect(lastEventID, control)
                        try control.reading(response)
                        if response.response.statusCode == 204 {
                            finish()
                            return nil
                        }
                        guard EventSource.isEventStream(response.response) else {
                            response.cancel()
                            throw NetworkError.decodingFailed(underlying: EventSourceError.notAnEventStream(
                                contentType: response.response.header("Content-Type") ?? ""), response: response.response)
                        }
                        var iterator = response.events.makeAsyncIterator()
                        // The ID and reconnection time carry over from the connections before.
                        iterator.parser.carryOver(lastEventID: lastEventID, retry: serverRetry)
                        events = iterator
                        continue
                    } catch {
                        // A cancelled connection was counted by `cancelAll` already.
                        if !error.isCancelled { control.idle() }
                        ending = error
                    }
                }
                try await reconnect(after: ending)
            }
            return nil
        }

        /// Ends the loop: no more connections, and nothing left for `cancelAll`.
        private mutating func finish() {
            isFinished = true
            events = nil
            control.ended()
        }

        /// What the parser learned that outlives its connection (it started from the values of
        /// the connections before: see `EventParser.carryOver`).
        private mutating func remember(_ parser: EventParser) {
            lastEventID = parser.lastEventID
            serverRetry = parser.retry
        }

        /// Waits before the next connection, or ends the sequence: rethrows an `ending` that
        /// must not be retried, and gives up after too many reconnections without an event.
        private mutating func reconnect(after ending: NetworkError?) async throws(NetworkError) {
            if let ending, !Self.reconnects(after: ending) {
                finish()
                throw ending
            }
            attemptsWithoutEvent += 1
            guard attemptsWithoutEvent <= source.reconnection.maximumAttempts else {
                finish()
                if let ending { throw ending }
                return
            }
            let wait = source.reconnection.wait(beforeAttempt: attemptsWithoutEvent, serverRetry: serverRetry)
            do {
                try await source.scheduler.sleep(for: wait, control: control)
                control.idle()
            } catch {
                finish()
                throw error
            }
        }

        /// Errors after which a browser's `EventSource` reconnects: the connection, not the
        /// request, failed.
        static func reconnects(after error: NetworkError) -> Bool {
            switch error {
            case .transport, .timedOut: return true
            default: return false
            }
        }
    }

    /// An iterator that connects when first asked for an event.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self, control: EventSourceControl(list: list), lastEventID: lastEventID)
    }
}

extension EventSource {
    /// The headers one connection adds to `endpoint`'s: `Accept: text/event-stream` unless the
    /// endpoint sets `Accept`, and `Last-Event-ID` when there is an ID that a header can carry.
    static func headers<E: Endpoint>(for endpoint: E, lastEventID: String?) -> [String: String] {
        let declared = Set(endpoint.headers.keys.map { $0.lowercased() })
        var headers: [String: String] = [:]
        if !declared.contains("accept") { headers["Accept"] = "text/event-stream" }
        if let lastEventID, !lastEventID.isEmpty, HeaderValidation.isValidValue(lastEventID),
           !declared.contains("last-event-id") {
            headers["Last-Event-ID"] = lastEventID
        }
        return headers
    }

    /// Whether a response head may be read as an event stream: its `Content-Type` is
    /// `text/event-stream` (parameters aside), or it names none.
    static func isEventStream(_ response: HTTPResponse) -> Bool {
        guard let type = response.header("Content-Type") else { return true }
        let mediaType = type.split(separator: ";", maxSplits: 1).first.map(String.init) ?? type
        return mediaType.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }
}

extension RequestScheduler {
    /// Waits `delay` seconds on this scheduler; cancelling the task ends the wait early with
    /// ``NetworkError/cancelled`` and drops the scheduled work (through the promise's cancel hook).
    /// `control`, when given, learns of the wait before it is scheduled (a test that sees it
    /// scheduled may call `cancelAll` at once); a cancellation that came first ends it at once.
    func sleep(for delay: TimeInterval, control: EventSourceControl? = nil) async throws(NetworkError) {
        let (elapsed, resolver) = Promise<Void>.pending()
        try control?.waiting(elapsed)
        let work = schedule(after: delay) { resolver.fulfill() }
        resolver.onCancel { work.cancel() }
        // A scheduler may drop work it will never run: the resolver must not go (and reject
        // the wait) before the wait ends.
        defer { withExtendedLifetime(resolver) {} }
        do {
            try await elapsed.value
        } catch {
            throw .fromTransport(error)
        }
    }
}
