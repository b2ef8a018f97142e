import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Idle watches racing answers, progress reports, cancellations, pauses and `cancelAll`.
final class IdleTimeoutStressTests: XCTestCase {
    struct Numbered: Endpoint {
        let index: Int
        var path: String { "idle/\(index)" }
        // Longer than `raceRequests` waits: only the idle watch ends a silent attempt in time.
        var timeout: TimeInterval? { 60 }
        var idleTimeout: TimeInterval? { 0.01 }
    }

    /// By the request's index: 0, reports progress from another queue, then answers; 1, never
    /// answers (only its idle watch, or a cancellation, ends it); 2, answers at once. Counts
    /// the silent sends and their cancellations.
    final class MixedTransport: HTTPTransport, @unchecked Sendable {
        // @unchecked: `silent` and `silentCancelled` are only touched while holding `lock`.
        private let lock = NSLock()
        private var silent = 0
        private var silentCancelled = 0
        var counts: (silent: Int, cancelled: Int) { lock.withLock { (silent, silentCancelled) } }

        struct Task: TransportTask {
            let onCancel: @Sendable () -> Void
            func cancel() { onCancel() }
        }

        func send(
            _ request: URLRequest, context: TransportContext,
            completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
        ) -> any TransportTask {
            let index = Int(request.url?.lastPathComponent ?? "") ?? 0
            let answer = HTTPResponse(statusCode: 200, body: Data("{}".utf8), url: request.url)
            switch index % 3 {
            case 0:
                DispatchQueue.global().async {
                    for piece in 1...3 { context.progress?(TransferProgress(bytesReceived: Int64(piece), totalBytesToReceive: 3)) }
                    completion(.success(answer))
                }
                return Task {}
            case 1:
                lock.withLock { silent += 1 }
                let once = SharedValue(false)
                return Task { [self] in
                    guard once.withLock({ done in defer { done = true }; return !done }) else { return }
                    lock.withLock { silentCancelled += 1 }
                    completion(.failure(URLError(.cancelled)))
                }
            default:
                completion(.success(answer))
                return Task {}
            }
        }
    }

    func test_givenIdleWatchesRacingAnswersCancelsAndPauses_whenThousandsOfRequestsRun_thenEachSettlesOnceAndEverySilentAttemptIsCancelled() throws {
        let transport = MixedTransport()
        let configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        let client = NetworkClient(configuration: configuration, transport: transport)

        guard let counted = raceRequests(on: client, count: 2_000, cancelAllEvery: 500, { Numbered(index: $0) }, check: { index, result in
            switch result {
            case .success:
                if index % 3 == 1 { XCTFail("request \(index) never answered, yet succeeded") }
            case .failure(let error):
                guard let error = error as? NetworkError ?? (isCancellation(error) ? NetworkError.cancelled : nil) else {
                    return XCTFail("unexpected \(error)")
                }
                if !error.isCancelled, error.shortName != "timedOut" { XCTFail("request \(index): \(error)") }
            }
        }) else { return }
        XCTAssertEqual(counted.indices.filter { counted[$0] != 1 }, [], "requests not settled exactly once")
        XCTAssertGreaterThan(transport.counts.silent, 0)
        XCTAssertTrue(eventually(within: 10) { transport.counts.cancelled == transport.counts.silent },
                      "every silent attempt was cancelled: \(transport.counts)")
    }
}
