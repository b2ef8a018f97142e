import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NetworkClient.events(_:lastEventID:reconnection:)`: reconnects with `Last-Event-ID` after
/// the connection ends, waits as the server and the policy say, and stops where `EventSource`
/// stops (204, an error status, cancellation, too many attempts).
final class EventSourceTests: XCTestCase {
    private let feed = StubJSONEndpoint(path: "feed", timeout: 100)

    /// A client whose `feed` route answers `responses` in turn, on `scheduler`.
    private func client(
        _ responses: [StubResponse], scheduler: ShortWorkScheduler = ShortWorkScheduler(), recorder: StubRecorder
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.scheduler = scheduler
        return NetworkClient.stubbing().stub(.get, "feed", sequence: responses).recording(into: recorder)
            .makeClient(configuration: configuration)
    }

    /// Reads `count` events (or up to the end) from `source`.
    private func read(_ source: EventSource, count: Int = .max) async throws -> [ServerSentEvent] {
        try await bounded {
            var events: [ServerSentEvent] = []
            for try await event in source {
                events.append(event)
                if events.count == count { break }
            }
            return events
        }
    }

    private func lastEventIDs(_ recorder: StubRecorder) -> [String?] {
        recorder.requests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") }
    }

    func test_givenTheStreamEnds_thenItReconnectsWithTheLastEventIDUntilA204() async throws {
        let recorder = StubRecorder()
        let client = client([
            .events([ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "2")], every: 0),
            .events([ServerSentEvent(data: "c", id: "3")], every: 0),
            StubResponse(status: 204),
        ], recorder: recorder)

        let events = try await read(client.events(feed, reconnection: EventReconnection(delay: 0)))

        XCTAssertEqual(events.map(\.data), ["a", "b", "c"])
        XCTAssertEqual(lastEventIDs(recorder), [nil, "2", "3"])
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "Accept") },
                       Array(repeating: "text/event-stream", count: 3))
    }

    func test_givenALastEventID_thenTheFirstConnectionResumesAfterIt() async throws {
        let recorder = StubRecorder()
        let client = client([.events([ServerSentEvent(data: "8", id: "8")], every: 0), StubResponse(status: 204)],
                            recorder: recorder)

        let events = try await read(client.events(feed, lastEventID: "7", reconnection: EventReconnection(delay: 0)))

        XCTAssertEqual(events.map(\.data), ["8"])
        XCTAssertEqual(lastEventIDs(recorder), ["7", "8"])
    }

    func test_givenABlockCutShort_thenItsIDIsNotSentBack() async throws {
        let recorder = StubRecorder()
        let pieces = ["id: 1\ndata: whole\n\n", "id: 2\ndata: cut before its blank line"].map { Data($0.utf8) }
        let client = client([.streaming(pieces, every: 0), StubResponse(status: 204)], recorder: recorder)

        let events = try await read(client.events(feed, reconnection: EventReconnection(delay: 0)))

        XCTAssertEqual(events.map(\.data), ["whole"])
        XCTAssertEqual(lastEventIDs(recorder), [nil, "1"], "the standard keeps an ID only when its block ends")
    }

    func test_givenFailedReconnections_thenTheWaitFollowsTheServersRetryAndDoublesUpToTheCap() async throws {
        let scheduler = ShortWorkScheduler()
        let lost = StubResponse.failure(URLError(.networkConnectionLost))
        let client = client([
            .events([ServerSentEvent(data: "a", id: "1", retry: 2000)], every: 0),
            lost, lost, lost,
            .events([ServerSentEvent(data: "b")], every: 0),
            lost,
            .events([ServerSentEvent(data: "c")], every: 0),
        ], scheduler: scheduler, recorder: StubRecorder())

        let events = try await read(client.events(feed, reconnection: EventReconnection(delay: 1, maximumDelay: 10)), count: 3)

        XCTAssertEqual(events.map(\.data), ["a", "b", "c"])
        // 2 s from the server, doubled for each reconnection in a row without an event, capped at
        // 10 s; an event starts the count again.
        XCTAssertEqual(scheduler.delays.filter { $0 > 0 && $0 < 30 }, [2, 4, 8, 10, 2, 4])
    }

    func test_givenTooManyReconnectionsWithoutAnEvent_thenTheLastErrorIsThrown() async throws {
        let recorder = StubRecorder()
        let refused = StubResponse.failure(URLError(.cannotConnectToHost))
        let client = client([refused, refused, refused, .events([ServerSentEvent(data: "late")], every: 0)],
                            recorder: recorder)

        await XCTAssertThrowsAsync(try await self.read(client.events(feed, reconnection: EventReconnection(delay: 0, maximumAttempts: 2)))) { error in
            guard case .transport(let underlying)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertEqual((underlying as? URLError)?.code, .cannotConnectToHost)
        }
        XCTAssertEqual(recorder.count, 3, "the first connection and two reconnections")
    }

    func test_givenAnErrorStatus_thenItThrowsWithoutReconnecting() async throws {
        let recorder = StubRecorder()
        let client = client([.json(#"{"message":"no such feed"}"#, status: 404), .events([], every: 0)], recorder: recorder)

        await XCTAssertThrowsAsync(try await self.read(client.events(feed, reconnection: EventReconnection(delay: 0)))) { error in
            guard case .clientError(404, let metadata, _)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertEqual(metadata?.message, "no such feed")
        }
        XCTAssertEqual(recorder.count, 1)
    }

    func test_givenNeverReconnect_thenOneConnectionsEventsAreRead() async throws {
        let recorder = StubRecorder()
        let client = client([.events([ServerSentEvent(data: "only")], every: 0), .events([], every: 0)], recorder: recorder)

        let events = try await read(client.events(feed, reconnection: .never))

        XCTAssertEqual(events.map(\.data), ["only"])
        XCTAssertEqual(recorder.count, 1)
    }

    func test_givenTheTaskIsCancelledWhileWaiting_thenTheLoopThrowsCancelledAndTheWaitIsDropped() async throws {
        let scheduler = ShortWorkScheduler()
        let client = client([.events([ServerSentEvent(data: "a")], every: 0)], scheduler: scheduler, recorder: StubRecorder())
        let source = client.events(feed, reconnection: EventReconnection(delay: 40))   // held: longer than the scheduler runs
        let reading = readingAll(source)

        XCTAssertTrue(scheduler.waitForHeldWork(delay: 40), "the loop is waiting to reconnect")
        reading.cancel()
        let outcome = try await bounded { await reading.value }

        XCTAssertEqual(outcome.events, ["a"])
        XCTAssertTrue(outcome.error.map(isCancellation) ?? false, "\(String(describing: outcome.error))")
        XCTAssertEqual(scheduler.cancelledDelays.filter { $0 == 40 }, [40], "the wait does not stay scheduled")
    }

    func test_reconnectionRules() {
        let policy = EventReconnection(delay: 3, maximumDelay: 30)
        XCTAssertEqual((1...6).map { policy.wait(beforeAttempt: $0, serverRetry: nil) }, [3, 6, 12, 24, 30, 30])
        XCTAssertEqual(policy.wait(beforeAttempt: 1, serverRetry: 60_000), 60, "a server's longer retry is honoured")
        XCTAssertEqual(policy.wait(beforeAttempt: 3, serverRetry: 60_000), 60)
        XCTAssertEqual(policy.wait(beforeAttempt: Int.max, serverRetry: 500), 30, "no overflow")
        let immediate = EventReconnection(delay: 0, maximumDelay: 30)
        XCTAssertEqual((1...4).map { immediate.wait(beforeAttempt: $0, serverRetry: nil) }, [0, 0.5, 1, 2],
                       "no tight loop against a server that keeps failing")
        XCTAssertEqual(policy.wait(beforeAttempt: 1, serverRetry: Int.max), 86_400, "a wait that ends")
        XCTAssertTrue(EventSource.AsyncIterator.reconnects(after: .timedOut))
        XCTAssertTrue(EventSource.AsyncIterator.reconnects(after: .transport(underlying: URLError(.networkConnectionLost))))
        XCTAssertFalse(EventSource.AsyncIterator.reconnects(after: .cancelled))
        XCTAssertFalse(EventSource.AsyncIterator.reconnects(after: .serverError(statusCode: 503, metadata: nil, response: HTTPResponse(statusCode: 503))))
        XCTAssertFalse(EventSource.AsyncIterator.reconnects(after: .responseTooLarge(limit: 10)))
    }

    func test_connectionHeaders() {
        XCTAssertEqual(EventSource.headers(for: feed, lastEventID: nil), ["Accept": "text/event-stream"])
        XCTAssertEqual(EventSource.headers(for: feed, lastEventID: ""), ["Accept": "text/event-stream"], "an empty ID is not sent")
        var ownAccept = feed
        ownAccept.headers = ["accept": "application/x-ndjson"]
        XCTAssertEqual(EventSource.headers(for: ownAccept, lastEventID: "7"), ["Last-Event-ID": "7"], "the endpoint's Accept wins")
    }

    func test_givenAReconnectedStreamWithoutIDs_thenItsEventsCarryTheLastIDAndRetry() async throws {
        let recorder = StubRecorder()
        let client = client([
            .events([ServerSentEvent(data: "a", id: "1", retry: 10)], every: 0),
            .events([ServerSentEvent(data: "b")], every: 0),
            StubResponse(status: 204),
        ], recorder: recorder)

        let events = try await read(client.events(feed, reconnection: EventReconnection(delay: 0)))

        XCTAssertEqual(events, [ServerSentEvent(data: "a", id: "1", retry: 10), ServerSentEvent(data: "b", id: "1", retry: 10)],
                       "an app that saves event.id must not save nil after a reconnection")
        XCTAssertEqual(lastEventIDs(recorder), [nil, "1", "1"])
    }

    /// The standard discards what follows the last line break when the stream ends: a `retry:`
    /// cut short (`retry: 1` of `retry: 10000`) must not set a 1 ms wait.
    func test_givenARetryFieldCutShortByTheEndOfTheBody_thenItIsNotApplied() async throws {
        let scheduler = ShortWorkScheduler()
        let pieces = ["data: a\n\n", "retry: 1"].map { Data($0.utf8) }
        let client = client([.streaming(pieces, every: 0), StubResponse(status: 204)], scheduler: scheduler, recorder: StubRecorder())

        let events = try await read(client.events(feed, reconnection: EventReconnection(delay: 5)))

        XCTAssertEqual(events.map(\.data), ["a"])
        XCTAssertEqual(events.first?.retry, nil)
        XCTAssertTrue(scheduler.delays.contains(5), "waits: \(scheduler.delays)")
        XCTAssertFalse(scheduler.delays.contains(0.001), "waits: \(scheduler.delays)")
    }

    /// A server that sends `retry: 0` and one event per connection resets the count of
    /// attempts without an event each time: its `retry:` is honoured from 0.25 s, so the loop
    /// waits between connections instead of spinning.
    func test_givenRetryZeroAndOneEventPerConnection_thenEachReconnectionWaitsAtLeastAQuarterSecond() async throws {
        let scheduler = ShortWorkScheduler()
        let recorder = StubRecorder()
        let one = StubResponse.events([ServerSentEvent(data: "x", retry: 0)], every: 0)
        let client = client(Array(repeating: one, count: 5) + [StubResponse(status: 204)], scheduler: scheduler, recorder: recorder)

        let events = try await read(client.events(feed, reconnection: EventReconnection(delay: 3)))

        XCTAssertEqual(events.count, 5)
        XCTAssertEqual(recorder.count, 6)
        let waits = scheduler.delays.filter { $0 > 0 && $0 < 30 }   // not the stubs' zero delays, not the deadlines
        XCTAssertEqual(waits, Array(repeating: 0.25, count: 5), "\(scheduler.delays)")
    }

    /// An event source whose connection is in flight is one thing to cancel: the client lists
    /// the loop and not its connection (listed too, it was counted twice by `cancelAll` when its
    /// entry came first), and `cancelAll` counts it once.
    func test_givenAConnectingEventSource_whenCancelAll_thenItIsListedAndCountedOnce() async throws {
        for _ in 0..<10 {
            let transport = RecordingTransport(.manual)   // keeps the connection in flight
            let client = NetworkClient(
                configuration: NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL), transport: transport)
            let reading = readingAll(client.events(Request<EmptyResponse>("feed"), reconnection: EventReconnection(delay: 40)))
            let sent = await transport.sends(1)
            XCTAssertTrue(sent, "the connection never reached the transport")
            XCTAssertEqual(client.core.liveRequests.snapshot().count, 1, "one entry for the loop, none for its connection")
            XCTAssertEqual(client.cancelAll(), 1)
            let outcome = try await bounded { await reading.value }
            XCTAssertEqual((outcome.error as? NetworkError)?.shortName, "cancelled")
        }
    }

    func test_givenAResponseThatIsNotAnEventStream_thenItThrowsWithoutReconnecting() async throws {
        let recorder = StubRecorder()
        let portal = StubResponse(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data("<html>".utf8))
        let client = client([portal, .events([ServerSentEvent(data: "late")], every: 0)], recorder: recorder)

        await XCTAssertThrowsAsync(try await self.read(client.events(feed, reconnection: EventReconnection(delay: 0)))) { error in
            guard case .decodingFailed(let underlying, let response)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertEqual(underlying as? EventSourceError, .notAnEventStream(contentType: "text/html; charset=utf-8"))
            XCTAssertEqual(response.statusCode, 200)
        }
        XCTAssertEqual(recorder.count, 1)
        XCTAssertTrue(EventSource.isEventStream(HTTPResponse(statusCode: 200, headers: ["content-type": "Text/Event-Stream ; charset=utf-8"])))
    }

    func test_givenAPlugin_thenItSeesTheCallersEndpoint() async throws {
        struct EndpointTypes: RequestPlugin {
            let seen = SharedValue<[String]>([])
            func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
                seen.withLock { $0.append("\(type(of: endpoint))") }
                return request
            }
        }
        let plugin = EndpointTypes()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.scheduler = ShortWorkScheduler()
        configuration.plugins = [plugin]
        let client = NetworkClient.stubbing().stub(.get, "feed", sequence: [.events([ServerSentEvent(data: "x")], every: 0)])
            .makeClient(configuration: configuration)

        _ = try await read(client.events(feed, reconnection: .never))

        XCTAssertEqual(plugin.seen.withLock { $0 }, ["\(type(of: feed))"])
    }
}

/// Runs work due within 30 s at once (on another thread), holds later work until it is
/// cancelled, and records every delay: request deadlines stay pending, reconnection waits are
/// instant and visible.
final class ShortWorkScheduler: RequestScheduler {
    private let state = SharedValue((delays: [TimeInterval](), cancelled: [TimeInterval]()))
    private let held = DispatchSemaphore(value: 0)

    var delays: [TimeInterval] { state.withLock { $0.delays } }
    var cancelledDelays: [TimeInterval] { state.withLock { $0.cancelled } }

    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        state.withLock { $0.delays.append(delay) }
        if delay < 30 {
            let handle = SharedValue<(@Sendable () -> Void)?>(work)
            DispatchQueue.global().async { handle.withLock { stored in defer { stored = nil }; return stored }?() }
            return ScheduledWork { handle.withLock { $0 = nil } }
        }
        if delay < 100 { held.signal() }
        return ScheduledWork { [state] in state.withLock { $0.cancelled.append(delay) } }
    }

    /// Waits (bounded) until work of `delay` seconds was scheduled.
    func waitForHeldWork(delay: TimeInterval) -> Bool {
        while held.wait(timeout: .now() + 10) == .success {
            if delays.contains(delay) { return true }
        }
        return false
    }
}
