import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request retriers racing cancellation, time limits, policy retries and pauses.
final class RequestRetrierStressTests: XCTestCase {
    struct Numbered: Endpoint {
        let index: Int
        var path: String { "retried/\(index)" }
        var timeout: TimeInterval? { index % 3 == 2 ? 0.005 : 10 }
        var retryPolicy: RetryPolicy? {
            index.isMultiple(of: 4) ? RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0) : nil
        }
    }

    /// Retries once at once (index % 3 == 0), declines from another queue (1), or never answers
    /// (2: only a cancellation, by the caller, `cancelAll` or the 5 ms time limit, ends it). Counts
    /// questions held and cancelled.
    final class MixedRetrier: RequestRetrier, @unchecked Sendable {
        // @unchecked: the counters and `resolvers` are only touched while holding `lock`.
        private let lock = NSLock()
        private var held = 0
        private var cancelled = 0
        private var resolvers: [Resolver<RetryDecision>] = []
        var counts: (held: Int, cancelled: Int) { lock.withLock { (held, cancelled) } }

        func retry(_ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError, context: RetryContext) -> Promise<RetryDecision> {
            let index = Int(request.url?.lastPathComponent ?? "0") ?? 0
            switch index % 3 {
            case 0:
                return Promise.value(context.retrierRetryCount < 2 ? .retry : .doNotRetry)
            case 1:
                let (promise, resolver) = Promise<RetryDecision>.pending()
                DispatchQueue.global().async { resolver.fulfill(.doNotRetry) }
                return promise
            default:
                let (promise, resolver) = Promise<RetryDecision>.pending()
                resolver.onCancel { [self] in lock.withLock { cancelled += 1 } }
                lock.withLock {
                    held += 1
                    resolvers.append(resolver)   // kept: the promise never settles by itself
                }
                return promise
            }
        }
    }

    func test_givenRetriersRacingCancelsPausesAndTimeLimits_whenThousandsOfRequestsFail_thenEachSettlesOnceAndNoHeldDecisionIsLeft() throws {
        let transport = RecordingTransport(.async { _ in .success(HTTPResponse(statusCode: 503)) }, keepsCompletions: false)
        let retrier = MixedRetrier()
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        configuration.requestRetriers = [retrier]
        let client = NetworkClient(configuration: configuration, transport: transport)

        let count = 2_000
        // Odd requests use the completion style: a handler called twice would show here (a
        // promise ignores a second settlement silently).
        let calls = SharedValue([Int](repeating: 0, count: count))
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            if index.isMultiple(of: 97) { client.pause() }
            group.enter()
            let cancel: @Sendable () -> Void
            if index.isMultiple(of: 2) {
                let promise = client.request(Numbered(index: index))
                _ = promise.tap { result in
                    if case .failure(let error) = result, !(error is NetworkError || isCancellation(error)) {
                        XCTFail("unexpected \(error)")
                    }
                    calls.withLock { $0[index] += 1 }
                    group.leave()
                }
                cancel = { promise.cancel() }
            } else {
                let task = client.request(Numbered(index: index)) { (result: Result<JSON, NetworkError>) in
                    if case .success = result { XCTFail("every attempt fails") }
                    calls.withLock { $0[index] += 1 }
                    group.leave()
                }
                cancel = { task.cancel() }
            }
            if index.isMultiple(of: 7) { cancel() }
            if index.isMultiple(of: 11) { DispatchQueue.global().async { cancel() } }
            if index.isMultiple(of: 97) { client.resume() }
            if index.isMultiple(of: 500) { client.cancelAll() }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 30), .success, "some requests never settled")
        let counted = calls.withLock { $0 }
        XCTAssertEqual(counted.indices.filter { counted[$0] != 1 }, [], "requests not settled exactly once")
        // A request cancelled while its retrier was being asked settles first and cancels the
        // decision right after: the count catches up.
        XCTAssertTrue(eventually(within: 10) { retrier.counts.cancelled == retrier.counts.held },
                      "every decision that never came was cancelled: \(retrier.counts)")
        XCTAssertGreaterThan(retrier.counts.held, 0)
        var sends: [Int: Int] = [:]
        for request in transport.requests {
            sends[Int(request.url?.lastPathComponent ?? "") ?? -1, default: 0] += 1
        }
        for (index, sent) in sends {
            let policyRetries = index.isMultiple(of: 4) ? 1 : 0
            switch index % 3 {
            case 0: XCTAssertLessThanOrEqual(sent, 1 + policyRetries + 2, "request \(index)")
            default: XCTAssertLessThanOrEqual(sent, 1 + policyRetries, "request \(index): only the policy retried")
            }
        }
    }
}
