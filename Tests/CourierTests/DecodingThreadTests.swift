import Dispatch
import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a response is decoded when the transport answers inside `send`: on the caller's thread
/// for a first attempt made there, never on a gate's queue or on the timer queue of a retry.
final class DecodingThreadTests: XCTestCase {
    /// Tags the queues a test cares about ("gate", "scheduler").
    static let queueTag = DispatchSpecificKey<String>()
    /// Where each ``WhereDecoded`` was decoded: the thread and the tag of the queue, if any.
    static let decodings = SharedValue<[(thread: ObjectIdentifier, queue: String?)]>([])

    struct WhereDecoded: Decodable, Sendable {
        init(from decoder: any Decoder) throws {
            let tag = DispatchQueue.getSpecific(key: DecodingThreadTests.queueTag)
            DecodingThreadTests.decodings.withLock { $0.append((ObjectIdentifier(Thread.current), tag)) }
        }
    }

    struct GetWhereDecoded: Endpoint {
        typealias Response = WhereDecoded
        var path: String { "where" }
        var retryPolicy: RetryPolicy?
    }

    override func setUp() {
        super.setUp()
        DecodingThreadTests.decodings.withLock { $0 = [] }
    }

    private func makeClient(
        _ transport: RecordingTransport, configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) throws -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9/api")))
        configure(&configuration)
        let client = NetworkClient(configuration: configuration, transport: transport)
        client.core.gate.queue.setSpecific(key: DecodingThreadTests.queueTag, value: "gate")
        return client
    }

    private var decodings: [(thread: ObjectIdentifier, queue: String?)] {
        DecodingThreadTests.decodings.withLock { $0 }
    }

    func test_givenTransportAnsweringInsideSend_whenGateIsOpen_thenDecodedOnTheCallersThreadBeforeRequestReturns() throws {
        let client = try makeClient(RecordingTransport.answering(body: "{}"))
        let promise = client.request(GetWhereDecoded())
        XCTAssertTrue(promise.isFulfilled, "no hop: the answer was decoded inside request(_:)")
        XCTAssertEqual(decodings.count, 1)
        XCTAssertEqual(decodings.first?.thread, ObjectIdentifier(Thread.current))
    }

    func test_givenTransportAnsweringInsideSend_whenReleasedByResume_thenDecodedOffTheGateQueue() throws {
        let client = try makeClient(RecordingTransport.answering(body: "{}"))
        client.pause()
        let promises = (0..<3).map { _ in client.request(GetWhereDecoded()) }
        XCTAssertTrue(promises.allSatisfy(\.isPending))
        client.resume()
        for promise in promises { _ = try promise.wait(within: 10) }
        XCTAssertEqual(decodings.count, 3)
        XCTAssertEqual(decodings.compactMap(\.queue), [], "sent on the gate's queue, decoded off it")
    }

    func test_givenRequestStartedByCodeOnTheGateQueue_whenTheTransportAnswersInsideSend_thenDecodedOffTheGateQueue() throws {
        // A plugin or authenticator running on the gate's queue may start a request itself;
        // the gate passes it at once, still on its queue.
        let client = try makeClient(RecordingTransport.answering(body: "{}"))
        let started = DispatchSemaphore(value: 0)
        let box = SharedValue<Promise<WhereDecoded>?>(nil)
        client.core.gate.queue.async {
            box.withLock { $0 = client.request(GetWhereDecoded()) }
            started.signal()
        }
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        _ = try XCTUnwrap(box.withLock { $0 }).wait(within: 10)
        XCTAssertEqual(decodings.count, 1)
        XCTAssertEqual(decodings.compactMap(\.queue), [], "decoded on the gate's queue")
    }

    func test_givenRetryAnsweredInsideSend_thenDecodedOffTheSchedulersQueue() throws {
        let answers = SharedValue(0)
        let transport = RecordingTransport(.immediate { request in
            let status = answers.withLock { count -> Int in
                count += 1
                return count == 1 ? 503 : 200
            }
            return .success(HTTPResponse(statusCode: status, headers: [:], body: Data("{}".utf8), url: request.url))
        })
        let timerQueue = DispatchQueue(label: "DecodingThreadTests.scheduler")
        timerQueue.setSpecific(key: DecodingThreadTests.queueTag, value: "scheduler")
        let client = try makeClient(transport) { $0.scheduler = DispatchScheduler(queue: timerQueue) }
        let endpoint = GetWhereDecoded(
            retryPolicy: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0))
        _ = try client.request(endpoint).wait(within: 10)
        XCTAssertEqual(answers.withLock { $0 }, 2, "the 503 was retried once")
        XCTAssertEqual(decodings.count, 1, "only the 200 is decoded")
        XCTAssertEqual(decodings.compactMap(\.queue), [], "the retry was decoded on the timer's queue")
    }
}
