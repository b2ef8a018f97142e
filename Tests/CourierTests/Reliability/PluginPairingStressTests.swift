import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every attempt a plugin saw go out (`willSend`) gets exactly one `didReceive`, however it ends:
/// answered, retried, cancelled while in flight or while being sent, timed out, held by a pause,
/// or answered through a shared exchange. A plugin that counts requests in flight (a network
/// activity indicator, Moya's `NetworkActivityPlugin`) relies on it.
final class PluginPairingStressTests: XCTestCase {
    /// Tags each attempt in `prepare` and counts its `willSend` and `didReceive`. The tag goes in
    /// `mainDocumentURL`, which is not sent and not part of what makes two attempts identical, so
    /// that tagged attempts can still share an exchange.
    // @unchecked: `sent`, `received` and `unknown` are only touched while holding `condition`.
    private final class PairingPlugin: RequestPlugin, @unchecked Sendable {
        private let condition = NSCondition()
        private var sent: [String: Int] = [:]
        private var received: [String: Int] = [:]
        private var unknown = 0

        func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
            var request = request
            request.mainDocumentURL = URL(string: "attempt:\(UUID().uuidString)")
            return request
        }

        func willSend(_ request: URLRequest, for endpoint: any Endpoint) {
            record(request, in: \.sent)
        }

        func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint) {
            record(request, in: \.received)
        }

        private func record(_ request: URLRequest, in table: ReferenceWritableKeyPath<PairingPlugin, [String: Int]>) {
            condition.withLock {
                if let id = request.mainDocumentURL?.absoluteString { self[keyPath: table][id, default: 0] += 1 } else { unknown += 1 }
                condition.broadcast()
            }
        }

        /// Waits until every attempt sent was received, or `timeout` passes; the unpaired ones.
        func unpaired(within timeout: TimeInterval) -> (sent: Int, unpaired: [String], twice: [String], unknown: Int) {
            _ = condition.waitUntil({ sent.keys.allSatisfy { received[$0] != nil } }, timeout: timeout)
            return condition.withLock {
                (sent.count,
                 sent.keys.filter { received[$0] == nil } + received.keys.filter { sent[$0] == nil },
                 sent.filter { $0.value != 1 }.map(\.key) + received.filter { $0.value != 1 }.map(\.key),
                 unknown)
            }
        }
    }

    private func run(sharing: Bool) {
        let plugin = PairingPlugin()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = [plugin]
        configuration.sharesIdenticalRequests = sharing
        let (client, counter) = RacingTraffic.makeClient(configuration: configuration)
        let threads = 8, perThread = 150
        XCTAssertTrue(RacingTraffic.run(client, threads: threads, perThread: perThread), "every request settled")
        let result = plugin.unpaired(within: 10)
        XCTAssertGreaterThan(result.sent, threads * perThread / 2, "most requests were sent")
        let answered = counter.withLock { $0 }
        if sharing {
            XCTAssertLessThan(answered, result.sent, "some attempts shared an exchange")
        } else {
            XCTAssertEqual(answered, result.sent, "each attempt sent was answered by the stub")
        }
        XCTAssertEqual(result.unpaired, [], "an attempt sent without a didReceive, or the reverse")
        XCTAssertEqual(result.twice, [], "an attempt reported twice")
        XCTAssertEqual(result.unknown, 0)
    }

    func test_givenRacingCancelsTimeoutsRetriesAndPauses_thenEveryAttemptSentIsReceivedOnce() {
        run(sharing: false)
    }

    func test_givenSharedExchangesToo_thenEveryAttemptSentIsStillReceivedOnce() {
        run(sharing: true)
    }
}
