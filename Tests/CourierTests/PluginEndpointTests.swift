import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `willSend(_:for:)` and `didReceive(_:for:endpoint:)`: plugins that see the caller's endpoint.
final class PluginEndpointTests: XCTestCase {
    private struct Checkout: Endpoint {
        var path: String { "checkout" }
        var method: HTTPMethod { .put }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0) }
    }

    /// Records each call with the endpoint's type, path and, for results, the outcome.
    private final class EndpointRecorder: RequestPlugin, @unchecked Sendable {
        // @unchecked: `calls` is only read and written while holding `lock`.
        private let lock = NSLock()
        private var calls: [String] = []
        var recorded: [String] { lock.withLock { calls } }

        func willSend(_ request: URLRequest, for endpoint: any Endpoint) {
            lock.withLock { calls.append("willSend \(type(of: endpoint)) \(endpoint.path)") }
        }

        func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint) {
            let outcome = (try? result.get()).map { "\($0.statusCode)" } ?? "error"
            lock.withLock { calls.append("didReceive \(type(of: endpoint)) \(endpoint.path) \(outcome)") }
        }

        // The request-only forms are not called when the endpoint forms are implemented.
        func willSend(_ request: URLRequest) { lock.withLock { calls.append("request-only willSend") } }
        func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {
            lock.withLock { calls.append("request-only didReceive") }
        }
    }

    private func client(_ builder: StubbingBuilder, plugins: [any RequestPlugin]) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = plugins
        return builder.makeClient(configuration: configuration)
    }

    func test_givenAnEndpointPlugin_whenAnAttemptIsRetried_thenEachAttemptReportsTheCallersEndpoint() {
        let recorder = EndpointRecorder()
        let client = client(NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]), plugins: [recorder])
        XCTAssertEqual(outcomeName(settle(client.request(Checkout()))), "ok")
        XCTAssertEqual(recorder.recorded, [
            "willSend Checkout checkout", "didReceive Checkout checkout error",
            "willSend Checkout checkout", "didReceive Checkout checkout 200",
        ])
    }

    func test_givenARequestOnlyPlugin_whenSent_thenItsRequestFormsStillRun() {
        let plugin = RecordingPlugin()
        let client = client(NetworkClient.stubbing().body(json: "{}"), plugins: [plugin])
        XCTAssertEqual(outcomeName(settle(client.request(Request("ping")))), "ok")
        XCTAssertEqual(plugin.events, ["prepare ping", "willSend", "didReceive 200"])
    }

    func test_givenACancelledRequestOnTheWire_whenPluginsHear_thenTheyGetTheEndpoint() {
        let recorder = EndpointRecorder()
        let clock = VirtualClock()
        let client = client(NetworkClient.stubbing().delay(10).body(json: "{}").clock(clock), plugins: [recorder])
        let promise = client.request(Request("slow"))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the deadline and the stub's delay")
        promise.cancel()
        _ = settle(promise)
        XCTAssertEqual(recorder.recorded, ["willSend Request<JSON> slow", "didReceive Request<JSON> slow error"])
    }
}
