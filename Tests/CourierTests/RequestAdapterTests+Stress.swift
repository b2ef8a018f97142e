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
    final class MixedAdapter: RequestAdapter {
        private let held = HeldPromises<URLRequest>()
        var counts: (held: Int, cancelled: Int) { held.counts }

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
                return held.make()   // kept: the promise never settles by itself
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

        guard let counted = raceRequests(on: client, count: 2_000, { Numbered(index: $0) }, check: { index, result in
            guard case .failure(let error) = result else { return }
            if index.isMultiple(of: 2) {
                XCTAssertTrue(error is NetworkError || isCancellation(error), "unexpected \(error)")
            } else if case NetworkError.invalidRequest = error {
                XCTFail("unexpected \(error)")
            }
        }) else { return }
        XCTAssertEqual(counted.indices.filter { counted[$0] != 1 }, [], "requests not settled exactly once")
        // A request cancelled while its adapter was being called settles first and cancels the
        // adapter's promise once it has taken it, so the count may still be catching up here.
        XCTAssertTrue(eventually(within: 10) { adapter.counts.cancelled == adapter.counts.held },
                      "every adapter promise that never settled was cancelled: \(adapter.counts)")
        XCTAssertGreaterThan(adapter.counts.held, 0)
        for request in transport.requests {
            let index = Int(request.url?.lastPathComponent ?? "") ?? -1
            XCTAssertEqual(request.value(forHTTPHeaderField: "X-Adapted"), "\(index)")
            XCTAssertNotEqual(index % 3, 2, "a request whose adapter never answered went out")
        }
    }
}
