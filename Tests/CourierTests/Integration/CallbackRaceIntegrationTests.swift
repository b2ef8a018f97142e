@testable import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cancellations racing the callbacks URLSession waits on (a redirect's, an authentication
/// challenge's). FoundationNetworking traps when a redirect's completion handler runs after its
/// task was cancelled ("Received callback for HTTP redirection, but we're not waiting for it"),
/// which crashed about one run in three of the first test before the transport stopped answering
/// cancelled requests. Each request must settle exactly once, and the process must survive.
final class CallbackRaceIntegrationTests: IntegrationTestCase {
    /// Sends `count` requests from 8 threads, cancels every other one after up to `jitter`
    /// microseconds, and checks that each settles once and that every task of `transports` ends
    /// (a task left waiting for an answer would stay tracked).
    private func race(count: Int, jitter: Int, transports: [URLSessionTransport],
                      _ request: @escaping @Sendable (Int) -> Promise<JSON>) {
        let settled = SharedValue(0)
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            for index in 0..<(count / 8) {
                group.enter()
                let promise = request(lane * 1_000 + index)
                _ = promise.tap { _ in
                    settled.withLock { $0 += 1 }
                    group.leave()
                }
                if index.isMultiple(of: 2) {
                    DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(Int.random(in: 0...jitter))) { promise.cancel() }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 60), .success, "some requests never settled")
        XCTAssertEqual(settled.withLock { $0 }, count)
        // A cancelled request settles at once; its task ends a moment later.
        let ended = expectation(for: NSPredicate { _, _ in transports.allSatisfy { $0.tasksInFlight == 0 } }, evaluatedWith: nil)
        wait(for: [ended], timeout: 20)
    }

    /// A client on the test server over `transport`.
    private func client(over transport: URLSessionTransport) throws -> NetworkClient {
        NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: transport)
    }

    func test_givenCancelsRacingRedirects_whenHundredsRun_thenEachSettlesOnceAndNothingTraps() throws {
        let transport = URLSessionTransport()
        let client = try client(over: transport)
        race(count: 480, jitter: 15_000, transports: [transport]) { index in
            let query = [URLQueryItem(name: "url", value: "/anything/next"), URLQueryItem(name: "status", value: "302"),
                         URLQueryItem(name: "delay", value: index.isMultiple(of: 3) ? "0.01" : "0")]
            return client.request(LiveJSONEndpoint(path: "redirect-to", query: query, timeout: 20))
        }
    }

    func test_givenCancelsRacingBasicChallenges_whenHundredsRun_thenEachSettlesOnceAndNothingTraps() throws {
        let answering = URLSessionTransport(challengeHandler: { challenge in
            challenge.previousFailureCount == 0
                ? .useCredential(URLCredential(user: "reporter", password: "s3cret", persistence: .none)) : .performDefaultHandling
        })
        let withCredential = try client(over: answering)
        let plain = URLSessionTransport()
        let declining = try client(over: plain)
        race(count: 480, jitter: 3_000, transports: [answering, plain]) { index in
            (index.isMultiple(of: 2) ? withCredential : declining)
                .request(LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", timeout: 20))
        }
    }

    func test_givenCancelsRacingMixedTraffic_whenHundredsRun_thenEachSettlesOnceAndNothingTraps() throws {
        let folder = try makeScratchFolder("CallbackRace")
        defer { removeScratchFolder(folder) }
        let transport = URLSessionTransport()
        var configuration = NetworkClient.Configuration(baseURL: try server.baseURL)
        configuration.maximumResponseSize = 100_000
        let client = NetworkClient(configuration: configuration, transport: transport)
        let retry = RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(1))
        let redirect307 = [URLQueryItem(name: "url", value: "/anything"), URLQueryItem(name: "status", value: "307")]
        race(count: 480, jitter: 8_000, transports: [transport]) { index in
            switch index % 6 {
            case 0: return client.request(LiveJSONEndpoint(path: "gzip", timeout: 20))
            case 1: return client.request(LiveJSONEndpoint(path: "redirect/3", timeout: 20))
            case 2: return client.request(LiveJSONEndpoint(path: "redirect-to", method: .post, query: redirect307, body: .json(["a": 1]), timeout: 20))
            case 3: return client.request(LiveJSONEndpoint(path: "status/503", timeout: 20, retryPolicy: retry))
            case 4: return client.request(LiveJSONEndpoint(path: "json/large", query: [URLQueryItem(name: "kb", value: "200")], timeout: 20))
            default:
                let endpoint = LiveJSONEndpoint(path: "redirect-to", query: [URLQueryItem(name: "url", value: "/bytes/50000")], timeout: 20)
                return client.download(endpoint, to: folder.appendingPathComponent("file-\(index)")).map { _ in JSON.null }
            }
        }
    }
}
