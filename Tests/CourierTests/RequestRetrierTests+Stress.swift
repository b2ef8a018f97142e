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
    final class MixedRetrier: RequestRetrier {
        private let held = HeldPromises<RetryDecision>()
        var counts: (held: Int, cancelled: Int) { held.counts }

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
                return held.make()   // kept: the promise never settles by itself
            }
        }
    }

    func test_givenRetriersRacingCancelsPausesAndTimeLimits_whenThousandsOfRequestsFail_thenEachSettlesOnceAndNoHeldDecisionIsLeft() throws {
        let transport = RecordingTransport(.async { _ in .success(HTTPResponse(statusCode: 503)) }, keepsCompletions: false)
        let retrier = MixedRetrier()
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        configuration.requestRetriers = [retrier]
        let client = NetworkClient(configuration: configuration, transport: transport)

        guard let counted = raceRequests(on: client, count: 2_000, cancelAllEvery: 500, { Numbered(index: $0) }, check: { index, result in
            guard case .failure(let error) = result else {
                if !index.isMultiple(of: 2) { XCTFail("every attempt fails") }
                return
            }
            if index.isMultiple(of: 2), !(error is NetworkError || isCancellation(error)) {
                XCTFail("unexpected \(error)")
            }
        }) else { return }
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
