import Foundation
import XCTest
@testable import Courier

/// Streams under racing producers, readers, cancellations and stops: every loop ends (none
/// hangs), what it read is an in-order prefix of what was sent, and every transfer that was
/// stopped before its end was cancelled exactly once.
final class StreamingStressTests: XCTestCase {
    /// Counts cancellations of one transfer.
    private final class CountingTask: TransportTask {
        let count = SharedValue(0)
        func cancel() { count.withLock { $0 += 1 } }
    }

    func test_givenRacingPiecesReadsCancelsAndStops_whenThousandsOfStreamsRun_thenEachLoopEndsWithAnInOrderPrefix() async throws {
        let finished = try await bounded(120) { try await Self.race(streams: 2_000, piecesPerStream: 20) }
        XCTAssertEqual(finished, 2_000, "every loop ended")
    }

    /// The head and the body reader are made on the thread that answers and travel to the task
    /// through the continuation that `stream` awaits, often resumed before that task even
    /// suspends. Each task must read its own head and body whole; under Thread Sanitizer this
    /// also checks that the hand-over is seen as ordered (`CancellationRelay.handOver()`).
    func test_givenStreamsAnsweredAtOnce_whenManyTasksReadThem_thenEachGetsItsOwnHeadAndBody() async throws {
        let client = NetworkClient.stubbing().respond { request in
            let id = request.url?.lastPathComponent ?? "?"
            return StubResponse(status: 200, headers: ["X-Id": id], body: Data("body \(id)".utf8))
        }.makeClient()
        let checked = try await bounded(120) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for task in 0..<8 {
                    group.addTask {
                        for round in 0..<500 {
                            let id = "\(task)-\(round)"
                            let streamed = try await client.stream(Request<EmptyResponse>("items/\(id)"))
                            XCTAssertEqual(streamed.response.header("X-Id"), id)
                            var body = Data()
                            for try await piece in streamed { body += piece }
                            XCTAssertEqual(String(decoding: body, as: UTF8.self), "body \(id)")
                        }
                        return 500
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        XCTAssertEqual(checked, 4_000)
    }

    /// Runs the race; returns how many loops ended.
    private static func race(streams: Int, piecesPerStream: Int) async throws -> Int {
        var generator = SystemRandomNumberGenerator()
        return try await withThrowingTaskGroup(of: (read: [UInt8], ended: Bool, cancels: Int, stopped: Bool).self) { group in
            for index in 0..<streams {
                let stream = ResponseBodyStream(accepting: { _ in true }, limit: .max)
                XCTAssertTrue(stream.shouldStream(HTTPResponse(statusCode: 200)))
                let task = CountingTask()
                stream.attach(task)
                let response = StreamedResponse(head: HTTPResponse(statusCode: 200), reader: StreamedBodyReader(stream))
                let stopAfter = Int.random(in: 0...piecesPerStream * 2, using: &generator)   // > pieces: read to the end
                let externalStop = index % 7 == 0
                // The producer, on another thread.
                DispatchQueue.global().async {
                    for piece in 0..<piecesPerStream { stream.yield(Data([UInt8(piece)])) }
                    stream.finish()
                }
                if externalStop {
                    DispatchQueue.global().async { response.cancel() }
                }
                group.addTask {
                    var read: [UInt8] = []
                    var ended = true   // false when the loop is left early or throws
                    do {
                        for try await piece in response {
                            read += piece
                            if read.count >= stopAfter {
                                ended = false
                                break
                            }
                        }
                    } catch {
                        ended = false
                        XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled", "\(error)")
                    }
                    return (read, ended, task.count.withLock { $0 }, externalStop)
                }
            }
            var finished = 0
            for try await outcome in group {
                finished += 1
                XCTAssertEqual(outcome.read, (0..<UInt8(outcome.read.count)).map { $0 }, "an in-order prefix")
                XCTAssertLessThanOrEqual(outcome.cancels, 1, "a transfer is cancelled at most once")
                if outcome.ended {
                    XCTAssertEqual(outcome.read.count, piecesPerStream, "a loop that ended read everything")
                    XCTAssertEqual(outcome.cancels, 0, "a body read to its end is not cancelled")
                }
            }
            return finished
        }
    }
}
