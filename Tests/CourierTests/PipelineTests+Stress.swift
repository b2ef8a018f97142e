import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Many requests racing cancellation, deadlines, retries and pauses: every one settles exactly
/// once, with a NetworkError or a value, and nothing is left held.
final class PipelineStressTests: XCTestCase {
    struct Flaky: Endpoint {
        let index: Int
        var path: String { "flaky/\(index)" }
        var timeout: TimeInterval? { index.isMultiple(of: 5) ? 0.005 : 10 }
        var retryPolicy: RetryPolicy? {
            index.isMultiple(of: 3) ? RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(1), jitter: 0) : nil
        }
    }

    func test_givenRacingCancelsPausesAndDeadlines_whenThousandsOfRequestsRun_thenEachSettlesOnce() throws {
        let transport = RecordingTransport(.async { request in
            let index = Int(request.url?.lastPathComponent ?? "0") ?? 0
            switch index % 4 {
            case 0: return .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8)))
            case 1: return .success(HTTPResponse(statusCode: 503))
            case 2: return .failure(URLError(.networkConnectionLost))
            default:
                usleep(UInt32(index % 3) * 1_000)
                return .success(HTTPResponse(statusCode: 200, body: Data("[1]".utf8)))
            }
        })
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        configuration.plugins = [RecordingPlugin()]
        let client = NetworkClient(configuration: configuration, transport: transport)

        let count = 2_000
        let settled = SharedValue(0)
        let group = DispatchGroup()
        let promises = SharedValue<[Promise<JSON>]>([])
        DispatchQueue.concurrentPerform(iterations: count) { index in
            if index.isMultiple(of: 97) { client.pause() }
            group.enter()
            let promise = client.request(Flaky(index: index))
            promises.withLock { $0.append(promise) }
            _ = promise.tap { _ in
                settled.withLock { $0 += 1 }
                group.leave()
            }
            if index.isMultiple(of: 7) { promise.cancel() }
            if index.isMultiple(of: 11) { DispatchQueue.global().async { promise.cancel() } }
            if index.isMultiple(of: 97) { client.resume() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "some requests never settled")
        XCTAssertEqual(settled.withLock { $0 }, count)
        XCTAssertFalse(client.isPaused)
        for promise in promises.withLock({ $0 }) {
            switch promise.result {
            case .success?: break
            case .failure(let error)?:
                XCTAssertTrue(error is NetworkError || error as? PromiseError == .cancelled, "unexpected \(error)")
            case nil:
                XCTFail("a request is still pending")
            }
        }
    }
}

extension PipelineStressTests {
    struct Ping: Endpoint {
        var path: String { "ping" }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0) }
    }

    func test_givenFinishedRetriedAndCancelledRequests_whenClientReleased_thenClientAndTransportAreFreed() throws {
        let refs = WeakReferences()
        try autoreleasepoolIfAvailable {
            let transport = RecordingTransport.statuses([503, 200], keepsCompletions: false)
            let client = NetworkClient(
                configuration: .init(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9"))), transport: transport)
            refs.set(client: client, transport: transport)
            _ = try client.request(Ping()).wait(within: 10)
            client.pause()
            let held = client.request(Ping())
            held.cancel()
            client.resume()
            _ = try client.response(for: Ping()).wait(within: 10)
        }
        // The last references leave with closures finishing on other threads: poll, bounded.
        _ = eventually { !refs.anyAlive }
        XCTAssertFalse(refs.clientAlive, "the client leaked")
        XCTAssertFalse(refs.transportAlive, "the transport (held by the client's core) leaked")
    }
}

/// Weak references readable from any thread.
// @unchecked: both weak references are read and written only while holding `lock`.
final class WeakReferences: @unchecked Sendable {
    private let lock = NSLock()
    private weak var client: NetworkClient?
    private weak var transport: RecordingTransport?

    func set(client: NetworkClient, transport: RecordingTransport) {
        lock.withLock {
            self.client = client
            self.transport = transport
        }
    }

    var clientAlive: Bool { lock.withLock { client != nil } }
    var transportAlive: Bool { lock.withLock { transport != nil } }
    var anyAlive: Bool { clientAlive || transportAlive }
}

/// Runs `body` in an autorelease pool where one exists (Apple platforms), else just runs it.
func autoreleasepoolIfAvailable(_ body: () throws -> Void) rethrows {
    #if canImport(ObjectiveC)
    try autoreleasepool { try body() }
    #else
    try body()
    #endif
}
