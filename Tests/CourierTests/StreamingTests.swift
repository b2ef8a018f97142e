import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stream(_:)`: the head returns before the body ends, pieces arrive in order and exactly once,
/// error statuses throw with the whole error body, leaving the loop cancels the transfer, and a
/// reader that falls too far behind fails instead of holding unbounded memory.
final class StreamingTests: XCTestCase {
    struct Feed: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "feed" }
    }

    /// A client over a manual transport, and a way to stream attempt `index`'s body by hand.
    private func manualClient(
        _ configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> (NetworkClient, RecordingTransport) {
        let transport = RecordingTransport(.manual)
        return (exampleClient(transport, configure), transport)
    }

    func test_givenAStreamingTransport_thenStreamReturnsAtTheHeadAndPiecesFollowInOrder() async throws {
        let (client, transport) = manualClient()
        let (response, stream) = try await openStream(client, transport)

        XCTAssertEqual(response.response.statusCode, 200)
        XCTAssertEqual(response.response.header("content-type"), "text/plain")
        XCTAssertTrue(response.response.body.isEmpty)
        // The body had not started when `stream` returned: every piece comes after.
        stream.yield(Data("one ".utf8))
        stream.yield(Data("two ".utf8))
        stream.yield(Data("three".utf8))
        stream.finish()
        let pieces = try await bounded { try await response.reduce(into: [String]()) { $0.append(String(decoding: $1, as: UTF8.self)) } }
        XCTAssertEqual(pieces, ["one ", "two ", "three"])
    }

    func test_givenTheResponseIsNotKept_thenTheLoopStillReadsTheWholeBody() async throws {
        let transport = RecordingTransport(.manual)
        let client = exampleClient(transport)
        let feeding = Task {
            let stream = try await streamHead(transport)
            stream.yield(Data("a".utf8))
            stream.yield(Data("b".utf8))
            stream.finish()
        }
        var pieces: [Data] = []
        // The response value is a temporary: only the loop's iterator keeps the body alive.
        for try await piece in try await client.stream(Feed()) { pieces.append(piece) }
        try await feeding.value
        XCTAssertEqual(pieces, [Data("a".utf8), Data("b".utf8)])
        XCTAssertEqual(transport.cancelledIndices, [], "nothing was cancelled")
    }

    func test_givenATransportThatStreamsInsideSend_thenTheClientDoesNotCancelItsTransfer() async throws {
        /// Claims the stream and delivers the head and the whole body before `send` returns.
        struct InlineStreamingTransport: HTTPTransport {
            let cancels: SharedValue<Int>
            func send(
                _ request: URLRequest, context: TransportContext,
                completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
            ) -> any TransportTask {
                let head = HTTPResponse(statusCode: 200, url: request.url)
                if let stream = context.bodyStream, stream.shouldStream(head) {
                    completion(.success(head))
                    stream.yield(Data("in".utf8))
                    stream.yield(Data("line".utf8))
                }
                return RecordingTransport.Task { cancels.withLock { $0 += 1 } }
            }
        }
        let cancels = SharedValue(0)
        let client = exampleClient(InlineStreamingTransport(cancels: cancels))

        let streamed = try await bounded { try await client.stream(Feed()) }

        XCTAssertEqual(cancels.withLock { $0 }, 0, "the head came inside send, the body is still arriving")
        var iterator = streamed.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first, Data("in".utf8))
    }

    func test_givenATransportThatDoesNotStream_thenTheWholeBodyIsOnePiece() async throws {
        let client = exampleClient(RecordingTransport.answering(200, body: "all at once"))
        let streamed = try await bounded { try await client.stream(Feed()) }
        let pieces = try await bounded { try await streamed.reduce(into: [Data]()) { $0.append($1) } }
        XCTAssertEqual(pieces, [Data("all at once".utf8)])
        XCTAssertTrue(streamed.response.body.isEmpty, "the head carries no body")
    }

    func test_givenAnErrorStatus_thenStreamThrowsWithTheMetadataOfTheWholeBody() async throws {
        let body = #"{"metadata":{"status":"404","desc":"no such feed"}}"#
        let client = exampleClient(RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 404, body: Data(body.utf8), url: request.url))
        }))
        do {
            _ = try await bounded { try await client.stream(Feed()) }
            XCTFail("a 404 must throw")
        } catch let NetworkError.clientError(status, metadata, _) {
            XCTAssertEqual(status, 404)
            XCTAssertEqual(metadata?.message, "no such feed")
        }
    }

    func test_givenAnErrorStatusOrAnAuthenticationFailure_thenTheStreamIsNotOffered() async throws {
        struct SessionAuthenticator: Authenticator {
            func apply(to request: URLRequest) -> URLRequest { request }
            func isAuthenticationFailure(_ response: HTTPResponse) -> Bool { response.header("X-Session") == "expired" }
            func refresh(failedCredential: String?) -> Promise<Void> { Promise.value(()) }
        }
        let (client, transport) = manualClient { $0.authenticator = SessionAuthenticator() }
        let streaming = Task { try await client.stream(Feed()) }
        let arrived = await transport.sends(1)
        XCTAssertTrue(arrived)
        let stream = try XCTUnwrap(transport.contexts[0].bodyStream)

        XCTAssertFalse(stream.shouldStream(HTTPResponse(statusCode: 500)), "an error body is read for its metadata")
        XCTAssertFalse(stream.shouldStream(HTTPResponse(statusCode: 200, headers: ["X-Session": "expired"])),
                       "the authenticator's failure is replayed, not streamed")
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 206)))
        XCTAssertFalse(stream.shouldStream(HTTPResponse(statusCode: 200)), "only once")
        streaming.cancel()
    }

    func test_givenAPluginThatKeepsTheHead_whenTheCallerLetsGo_thenTheTransferIsStillCancelled() async throws {
        let plugin = RecordingPlugin()
        let transport = RecordingTransport(.manual)
        let client = exampleClient(transport) { $0.plugins = [plugin] }
        let feeding = Task {
            let stream = try await streamHead(transport)
            stream.yield(Data("unread".utf8))
        }

        // The response is a temporary: let go as soon as its status is read.
        let status = try await bounded { try await client.stream(Feed()).response.statusCode }
        try await feeding.value

        XCTAssertEqual(status, 200)
        XCTAssertEqual(plugin.results.count, 1)
        XCTAssertNil(try plugin.results.first?.get().streamedBody, "plugins get the head without its reader")
        XCTAssertEqual(transport.cancelledIndices, [0], "nobody can read the body: the transfer is cancelled")
    }

    func test_givenASecondLoop_thenTheSecondFailsAtOnceAndTheFirstGoesOn() async throws {
        let (client, transport) = manualClient()
        let (response, stream) = try await openStream(client, transport)
        let first = Task { try await response.reduce(into: Data()) { $0.append($1) } }
        XCTAssertTrue(eventually { response.reader.stream.hasWaitingReader }, "the first loop waits for a piece")

        // A second loop, through the public API, in its own task; it leaves (and lets go of its
        // iterator) as soon as it is refused.
        let second = Task { () -> String in
            do {
                for try await _ in response { return "read a piece" }
                return "ended"
            } catch {
                return "\(error)"
            }
        }
        let secondOutcome = try await bounded { await second.value }
        XCTAssertTrue(secondOutcome.contains("already being read"), secondOutcome)

        stream.yield(Data("body".utf8))
        stream.finish()
        let body = try await bounded { try await first.value }
        XCTAssertEqual(body, Data("body".utf8), "the refused loop did not stop the first")
        XCTAssertEqual(transport.cancelledIndices, [])
    }

    func test_givenPiecesWaiting_whenTheReadingTaskIsCancelled_thenItStopsAtOnce() async throws {
        let (client, transport) = manualClient()
        let (response, stream) = try await openStream(client, transport)
        for piece in ["a", "b", "c"] { stream.yield(Data(piece.utf8)) }

        let reading = Task {
            withUnsafeCurrentTask { $0?.cancel() }   // cancelled before its first read
            return try await response.reduce(into: [Data]()) { $0.append($1) }
        }

        await XCTAssertThrowsAsync(try await bounded { try await reading.value }) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled", "\(error)")
        }
        XCTAssertEqual(transport.cancelledIndices, [0])
    }

    func test_givenAPieceLargerThanTheLimit_whenTheBufferIsEmpty_thenItIsStillDelivered() async throws {
        let stream = ResponseBodyStream(accepting: { _ in true }, limit: 4)
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
        stream.yield(Data("123456".utf8))
        stream.finish()
        let response = StreamedResponse(head: HTTPResponse(statusCode: 200), reader: StreamedBodyReader(stream))
        let body = try await bounded { try await response.reduce(into: Data()) { $0.append($1) } }
        XCTAssertEqual(body, Data("123456".utf8))
    }

    func test_givenTheClientEndedTheBodyBeforeTheTaskWasAttached_thenTheTaskIsCancelledWhenAttached() {
        let stream = ResponseBodyStream(accepting: { _ in true }, limit: 4)
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
        stream.yield(Data("1234".utf8))
        stream.yield(Data("5".utf8))   // over the limit: the client ends the body
        let cancelled = SharedValue(false)
        stream.attach(RecordingTransport.Task { cancelled.withLock { $0 = true } })
        XCTAssertTrue(cancelled.withLock { $0 }, "a transfer nobody will read is stopped")
    }

    func test_givenTheLoopIsLeftEarly_thenTheTransferIsCancelled() async throws {
        let (client, transport) = manualClient()
        let (response, stream) = try await openStream(client, transport)
        stream.yield(Data("first".utf8))
        stream.yield(Data("second".utf8))

        for try await piece in response {
            XCTAssertEqual(piece, Data("first".utf8))
            break
        }

        XCTAssertEqual(transport.cancelledIndices, [0], "leaving the loop cancels the transport's task")
        var again = response.makeAsyncIterator()
        await XCTAssertThrowsAsync(try await again.next()) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled", "\(error)")
        }
    }

    func test_givenTheReadingTaskIsCancelled_thenAWaitingReadThrowsCancelledAndTheTransferStops() async throws {
        let (client, transport) = manualClient()
        let (response, _) = try await openStream(client, transport)

        let reading = Task { try await response.reduce(0) { $0 + $1.count } }
        reading.cancel()

        await XCTAssertThrowsAsync(try await reading.value) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled", "\(error)")
        }
        XCTAssertEqual(transport.cancelledIndices, [0])
    }

    func test_givenAReaderFallsBehindPastTheLimit_thenItGetsWhatArrivedThenAnErrorAndTheTransferStops() async throws {
        let (client, transport) = manualClient { $0.maximumResponseSize = 10 }
        let (response, stream) = try await openStream(client, transport)

        stream.yield(Data("123456".utf8))
        stream.yield(Data("7890".utf8))   // 10 bytes held: at the limit
        stream.yield(Data("X".utf8))      // one more: over it
        stream.yield(Data("Y".utf8))      // dropped

        var iterator = response.makeAsyncIterator()
        let first = try await iterator.next()
        let second = try await iterator.next()
        XCTAssertEqual(first, Data("123456".utf8))
        XCTAssertEqual(second, Data("7890".utf8))
        await XCTAssertThrowsAsync(try await iterator.next()) { error in
            guard case .invalidRequest(let reason)? = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("larger than 10 bytes"), reason)
        }
        XCTAssertEqual(transport.cancelledIndices, [0])
    }

    func test_givenTheBodyEndsWithAnError_thenTheLoopThrowsItAsANetworkErrorAfterThePieces() async throws {
        let (client, transport) = manualClient()
        let (response, stream) = try await openStream(client, transport)
        stream.yield(Data("partial".utf8))
        stream.finish(throwing: URLError(.timedOut))

        var iterator = response.makeAsyncIterator()
        let piece = try await iterator.next()
        XCTAssertEqual(piece, Data("partial".utf8))
        await XCTAssertThrowsAsync(try await iterator.next()) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "timedOut", "\(error)")
        }
    }

    func test_givenABodyThatGoesQuiet_thenItEndsWithTimedOutAfterAFullTimeoutWithoutAPiece() async throws {
        let clock = VirtualClock()
        let (client, transport) = manualClient {
            $0.scheduler = clock
            $0.timeout = 5
        }
        let (response, stream) = try await openStream(client, transport)
        var iterator = response.makeAsyncIterator()

        stream.yield(Data("alive".utf8))
        clock.advance(by: 5)   // a piece came during this period: the body goes on
        let piece = try await iterator.next()
        XCTAssertEqual(piece, Data("alive".utf8))
        XCTAssertEqual(transport.cancelledIndices, [])
        clock.advance(by: 5)   // nothing for a whole period

        await XCTAssertThrowsAsync(try await iterator.next()) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "timedOut", "\(error)")
        }
        XCTAssertEqual(transport.cancelledIndices, [0], "the quiet transfer is cancelled")
        XCTAssertEqual(clock.pendingCount, 0, "no check is left behind")
    }

    func test_givenTheCallerCancelsBeforeTheHead_thenNothingStreamsAndStreamThrowsCancelled() async throws {
        let (client, transport) = manualClient()
        let task = Task { try await client.stream(Feed()) }
        let arrived = await transport.sends(1)
        XCTAssertTrue(arrived)

        task.cancel()

        await XCTAssertThrowsAsync(try await task.value) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled", "\(error)")
        }
        XCTAssertEqual(transport.cancelledIndices, [0])
    }

    func test_givenAHeadThatArrivesAfterTheRequestWasCancelled_thenItsTransferIsCancelled() async throws {
        let (client, transport) = manualClient()
        let task = Task { try await client.stream(Feed()) }
        let arrived = await transport.sends(1)
        XCTAssertTrue(arrived)
        task.cancel()
        await XCTAssertThrowsAsync(try await task.value) { _ in }
        let cancelledBefore = transport.cancelledIndices.count

        // The transport had claimed the stream and answers late: nobody will read it.
        let stream = try XCTUnwrap(transport.contexts[0].bodyStream)
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
        transport.complete(0, with: .success(HTTPResponse(statusCode: 200)))

        XCTAssertEqual(transport.cancelledIndices.count, cancelledBefore + 1, "the orphaned transfer is cancelled")
    }

    func test_givenManyPiecesFromAnotherThread_thenEachArrivesOnceAndInOrder() async throws {
        let stream = ResponseBodyStream(accepting: { _ in true }, limit: .max)
        XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
        let response = StreamedResponse(head: HTTPResponse(statusCode: 200), reader: StreamedBodyReader(stream))
        let count = 20_000
        DispatchQueue.global().async {
            for index in 0..<count {
                withUnsafeBytes(of: UInt32(index).littleEndian) { stream.yield(Data($0)) }
            }
            stream.finish()
        }
        var expected: UInt32 = 0
        var bytes = 0
        for try await piece in response {
            bytes += piece.count
            for offset in stride(from: 0, to: piece.count, by: 4) {
                let value = piece[piece.startIndex + offset..<piece.startIndex + offset + 4]
                    .enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
                XCTAssertEqual(value, expected)
                expected += 1
            }
        }
        XCTAssertEqual(bytes, count * 4)
        XCTAssertEqual(expected, UInt32(count))
    }
}

/// Runs `body`, failing (with ``StillPending``) when it takes more than `seconds`; the body's
/// task is then cancelled, and not waited for (a body that ignores cancellation cannot hang
/// the suite).
func bounded<T: Sendable>(
    _ seconds: TimeInterval = 10, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = OnceResult<T>()
    let work = Task {
        do { outcome.resolve(.success(try await body())) } catch { outcome.resolve(.failure(error)) }
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
        if outcome.resolve(.failure(StillPending(seconds: seconds))) { work.cancel() }
    }
    let result = await outcome.value
    if case .failure(let error) = result, error is StillPending { XCTFail("still running after \(seconds) s") }
    return try result.get()
}

/// A result set once, by whichever comes first, and awaited by one caller.
// @unchecked: `result` and `waiter` are read and written only while holding `lock`.
final class OnceResult<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?
    private var waiter: CheckedContinuation<Result<T, any Error>, Never>?

    /// Sets the result; `false` when one was set already.
    @discardableResult
    func resolve(_ outcome: Result<T, any Error>) -> Bool {
        let waiter = lock.withLock { () -> CheckedContinuation<Result<T, any Error>, Never>?? in
            guard result == nil else { return nil }
            result = outcome
            defer { self.waiter = nil }
            return .some(self.waiter)
        }
        guard let waiter else { return false }
        waiter?.resume(returning: outcome)
        return true
    }

    var value: Result<T, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let settled = lock.withLock { () -> Result<T, any Error>? in
                    if let result { return result }
                    waiter = continuation
                    return nil
                }
                if let settled { continuation.resume(returning: settled) }
            }
        }
    }
}

/// Asserts that `expression` throws, and hands the error to `check`.
func XCTAssertThrowsAsync<T>(
    _ expression: @autoclosure () async throws -> T, file: StaticString = #filePath, line: UInt = #line,
    _ check: (any Error) -> Void
) async {
    do {
        _ = try await expression()
        XCTFail("expected an error", file: file, line: line)
    } catch {
        check(error)
    }
}

/// Streams `Feed` through `client` and delivers the head as a streaming transport does: the
/// response, and the stream that feeds its body.
private func openStream(
    _ client: NetworkClient, _ transport: RecordingTransport
) async throws -> (StreamedResponse, ResponseBodyStream) {
    let streamed = Task { try await client.stream(StreamingTests.Feed()) }
    let stream = try await streamHead(transport)
    return (try await bounded { try await streamed.value }, stream)
}

/// Claims attempt `index`'s stream for `status` and delivers the head, as a streaming
/// transport does; returns the stream to feed.
private func streamHead(
    _ transport: RecordingTransport, index: Int = 0, status: Int = 200
) async throws -> ResponseBodyStream {
    let arrived = await transport.sends(index + 1)
    XCTAssertTrue(arrived, "attempt \(index) reached the transport")
    let stream = try XCTUnwrap(transport.contexts[index].bodyStream, "a stream request carries a body stream")
    XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: status)))
    transport.complete(index, with: .success(HTTPResponse(
        statusCode: status, headers: ["Content-Type": "text/plain"], url: transport.requests[index].url)))
    return stream
}
