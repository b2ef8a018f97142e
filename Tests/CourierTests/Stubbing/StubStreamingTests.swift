import Foundation
import XCTest
@testable import Courier

/// Streaming stubs: the head after the delay, then one piece per interval on the client's clock,
/// so that streaming code can be tested step by step; other requests get the joined body.
final class StubStreamingTests: XCTestCase {
    private let pieces = ["Hel", "lo", "!"].map { Data($0.utf8) }

    private func client(_ stub: StubResponse, clock: VirtualClock) -> NetworkClient {
        NetworkClient.stubbing().stub(.get, "chat", stub).clock(clock).makeClient()
    }

    /// Streams `stub` with a request `timeout`, moving the clock past the stub's `delay` to its
    /// head; returns once the head arrived and the idle check and the first piece are scheduled.
    private func openStream(
        _ stub: StubResponse, timeout: TimeInterval = 10, clock: VirtualClock
    ) async throws -> StreamedResponse {
        let client = client(stub, clock: clock)
        let streaming = Task { try await client.stream(StubJSONEndpoint(path: "chat", timeout: timeout)) }
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the deadline and the head")
        clock.advance(by: stub.delay)
        let response = try await bounded { try await streaming.value }
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the idle check and the first piece")
        return response
    }

    func test_givenAStreamingStub_whenTheClockAdvances_thenOnePieceArrivesPerInterval() async throws {
        let clock = VirtualClock()
        let response = try await openStream(.streaming(pieces, every: 1, delay: 2), clock: clock)
        var iterator = response.makeAsyncIterator()

        var received: [Data] = []
        for _ in pieces {
            clock.advance(by: 1)
            if let piece = try await iterator.next() { received.append(piece) }
        }

        XCTAssertEqual(received, pieces)
        let end = try await iterator.next()
        XCTAssertNil(end, "the body ends after the last piece")
        XCTAssertEqual(clock.pendingCount, 0)
    }

    func test_givenAStreamingStub_whenRequestedWithoutStreaming_thenTheJoinedBodyComesWithTheLastPiece() throws {
        let clock = VirtualClock()
        let client = client(.streaming(pieces, every: 1, delay: 2), clock: clock)
        let promise = client.response(for: StubJSONEndpoint(path: "chat", timeout: 10))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2))

        clock.advance(by: 4.9)
        XCTAssertTrue(promise.isPending, "not before the last piece's time")
        clock.advance(by: 0.1)

        XCTAssertEqual(try settle(promise)?.get().body, Data("Hello!".utf8))
    }

    func test_givenAnEventsStub_thenStreamedEventsReadBackTheSameEvents() async throws {
        let clock = VirtualClock()
        let events = [
            ServerSentEvent(data: "first"),
            ServerSentEvent(event: "update", data: "two\nlines", id: "7", retry: 500),
            ServerSentEvent(data: "[DONE]", id: "7"),
        ]
        let response = try await openStream(.events(events, every: 0.5), clock: clock)
        XCTAssertEqual(response.response.header("Content-Type"), "text/event-stream")

        clock.advance(by: 1.5)
        let read = try await bounded { try await response.events.reduce(into: [ServerSentEvent]()) { $0.append($1) } }
        // The reconnection time carries over to later events, as the standard says.
        XCTAssertEqual(read, events.enumerated().map { $0.offset == 2 ? ServerSentEvent(data: "[DONE]", id: "7", retry: 500) : $0.element })
    }

    func test_givenPiecesFurtherApartThanTheTimeout_thenTheStreamTimesOut() async throws {
        let clock = VirtualClock()
        let response = try await openStream(.streaming(pieces, every: 20), timeout: 5, clock: clock)

        await assertTimesOutLeavingNothingScheduled(response, clock: clock)
    }

    /// Moves the clock past the idle timeout of a stream whose next piece is further away, and
    /// checks that reading throws `.timedOut` and that the next piece is not scheduled any more.
    private func assertTimesOutLeavingNothingScheduled(
        _ response: StreamedResponse, clock: VirtualClock, file: StaticString = #filePath, line: UInt = #line
    ) async {
        clock.advance(by: 10)

        var iterator = response.makeAsyncIterator()
        await XCTAssertThrowsAsync(try await iterator.next(), file: file, line: line) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "timedOut", "\(error)", file: file, line: line)
        }
        // The client may still be attaching the stub's task when the body times out; it cancels
        // the task as it attaches it.
        XCTAssertTrue(eventually { clock.pendingCount == 0 }, "the next piece is not scheduled any more", file: file, line: line)
    }

    /// The stub's head may play before the call that scheduled it has stored its handle (the
    /// clock runs on another thread); the first piece, scheduled from inside the head, is then
    /// the pending work that stopping the stream must cancel.
    func test_givenTheHeadPlaysBeforeItsSchedulingCallReturns_whenTheStreamTimesOut_thenNoPieceIsLeftScheduled() async throws {
        let clock = VirtualClock()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.scheduler = RunsAtOnceElsewhere(later: clock)
        let client = NetworkClient.stubbing().stub(.get, "chat", .streaming(pieces, every: 20))
            .makeClient(configuration: configuration)
        let response = try await bounded { try await client.stream(StubJSONEndpoint(path: "chat", timeout: 5)) }
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the idle check and the first piece")

        await assertTimesOutLeavingNothingScheduled(response, clock: clock)
    }

    func test_givenTheReaderLeavesEarly_thenNoPieceIsLeftScheduled() async throws {
        let clock = VirtualClock()
        let response = try await openStream(.streaming(pieces, every: 1), clock: clock)
        clock.advance(by: 1)

        for try await piece in response {
            XCTAssertEqual(piece, pieces[0])
            break
        }

        XCTAssertTrue(eventually { clock.pendingCount == 0 }, "the stub's next piece and the idle check are cancelled")
    }
}

/// Runs work due now on another thread and returns only once it ran (as a busy dispatch queue
/// may); later work goes to a virtual clock.
private struct RunsAtOnceElsewhere: RequestScheduler {
    let later: VirtualClock

    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        guard delay <= 0 else { return later.schedule(after: delay, work) }
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            work()
            ran.signal()
        }
        ran.wait()
        return ScheduledWork {}
    }
}
