import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request adapters racing cancellation, deadlines, retries and pauses.
final class RequestAdapterStressTests: XCTestCase {
    struct Numbered: Endpoint {
        let index: Int
        var path: String { "adapted/\(index)" }
        var timeout: TimeInterval? { index % 3 == 2 ? 0.005 : 10 }
        var retryPolicy: RetryPolicy? {
            index.isMultiple(of: 4) ? RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0) : nil
        }
    }

    /// Answers at once (index % 3 == 0), from another queue (1), or never (2: only a
    /// cancellation, by the caller or the deadline, ends it). Counts promises held and cancelled.
    final class MixedAdapter: RequestAdapter, @unchecked Sendable {
        // @unchecked: the counters are only touched while holding `lock`.
        private let lock = NSLock()
        private var held = 0
        private var cancelled = 0
        private var resolvers: [Resolver<URLRequest>] = []
        var counts: (held: Int, cancelled: Int) { lock.withLock { (held, cancelled) } }

        func adapt(_ request: URLRequest, for endpoint: any Endpoint) -> Promise<URLRequest> {
            let index = Int(request.url?.lastPathComponent ?? "0") ?? 0
            var request = request
            request.setValue("\(index)", forHTTPHeaderField: "X-Adapted")
            let adapted = request
            switch index % 3 {
            case 0:
                return Promise.value(adapted)
            case 1:
                let (promise, resolver) = Promise<URLRequest>.pending()
                DispatchQueue.global().async { resolver.fulfill(adapted) }
                return promise
            default:
                let (promise, resolver) = Promise<URLRequest>.pending()
                resolver.onCancel { [self] in lock.withLock { cancelled += 1 } }
                lock.withLock {
                    held += 1
                    resolvers.append(resolver)   // kept: the promise never settles by itself
                }
                return promise
            }
        }
    }

    func test_givenAdaptersRacingCancelsPausesAndDeadlines_whenThousandsOfRequestsRun_thenEachSettlesOnceAndNoHeldAdapterIsLeft() throws {
        let transport = RecordingTransport(.async { request in
            let index = Int(request.url?.lastPathComponent ?? "0") ?? 0
            return index.isMultiple(of: 8)
                ? .success(HTTPResponse(statusCode: 503))
                : .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8)))
        }, keepsCompletions: false)
        let adapter = MixedAdapter()
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        configuration.requestAdapters = [adapter]
        let client = NetworkClient(configuration: configuration, transport: transport)

        let count = 2_000
        // Odd requests use the completion style: a handler called twice would show here (a
        // promise ignores a second settlement silently).
        let calls = SharedValue([Int](repeating: 0, count: count))
        let group = DispatchGroup()
        let promises = SharedValue<[Promise<JSON>]>([])
        DispatchQueue.concurrentPerform(iterations: count) { index in
            if index.isMultiple(of: 97) { client.pause() }
            group.enter()
            let cancel: @Sendable () -> Void
            if index.isMultiple(of: 2) {
                let promise = client.request(Numbered(index: index))
                promises.withLock { $0.append(promise) }
                _ = promise.tap { _ in
                    calls.withLock { $0[index] += 1 }
                    group.leave()
                }
                cancel = { promise.cancel() }
            } else {
                let task = client.request(Numbered(index: index)) { (result: Result<JSON, NetworkError>) in
                    if case .failure(let error) = result, case .invalidRequest = error { XCTFail("unexpected \(error)") }
                    calls.withLock { $0[index] += 1 }
                    group.leave()
                }
                cancel = { task.cancel() }
            }
            if index.isMultiple(of: 7) { cancel() }
            if index.isMultiple(of: 11) { DispatchQueue.global().async { cancel() } }
            if index.isMultiple(of: 97) { client.resume() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "some requests never settled")
        let counted = calls.withLock { $0 }
        XCTAssertEqual(counted.indices.filter { counted[$0] != 1 }, [], "requests not settled exactly once")
        let (held, cancelled) = adapter.counts
        XCTAssertGreaterThan(held, 0)
        XCTAssertEqual(cancelled, held, "every adapter promise that never settled was cancelled")
        for request in transport.requests {
            let index = Int(request.url?.lastPathComponent ?? "") ?? -1
            XCTAssertEqual(request.value(forHTTPHeaderField: "X-Adapted"), "\(index)")
            XCTAssertNotEqual(index % 3, 2, "a request whose adapter never answered went out")
        }
        for promise in promises.withLock({ $0 }) {
            switch promise.result {
            case .success?: break
            case .failure(let error)?:
                XCTAssertTrue(error is NetworkError || isCancellation(error), "unexpected \(error)")
            case nil:
                XCTFail("a promise is still pending")
            }
        }
    }
}
