import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Endpoint.requestAdapters` and `Endpoint.requestRetriers`: an endpoint's own adapters and
/// retriers, run before the client's.
final class EndpointInterceptorTests: XCTestCase {
    typealias HeaderAdapter = RequestAdapterTests.HeaderAdapter
    typealias ScriptedRetrier = RequestRetrierTests.ScriptedRetrier

    /// An endpoint type that declares its own adapter and retrier.
    struct Signed: Endpoint {
        let adapter: HeaderAdapter
        var retrier: ScriptedRetrier?
        var path: String { "signed" }
        var requestAdapters: [any RequestAdapter] { [adapter] }
        var requestRetriers: [any RequestRetrier] { retrier.map { [$0] } ?? [] }
    }

    /// The order retriers were asked in, by name.
    final class Trail: @unchecked Sendable {
        // @unchecked: `names` is only touched while holding `lock`.
        private let lock = NSLock()
        private var names: [String] = []
        var asked: [String] { lock.withLock { names } }
        func retrier(_ name: String, answer: RetryDecision) -> ScriptedRetrier {
            ScriptedRetrier { [self] _, _ in
                lock.withLock { names.append(name) }
                return answer
            }
        }
    }

    func client(
        _ builder: StubbingBuilder, adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [],
        retry: RetryPolicy? = nil
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.requestAdapters = adapters
        configuration.requestRetriers = retriers
        configuration.retryPolicy = retry
        return builder.makeClient(configuration: configuration)
    }

    // MARK: Adapters

    func test_givenEndpointAndClientAdapters_whenSent_thenTheEndpointsRunsFirstAndTheClientsSeesItsChange() {
        let recorder = StubRecorder()
        let own = HeaderAdapter(header: "X-Endpoint")
        let shared = HeaderAdapter(header: "X-Client")
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [shared])
        XCTAssertEqual(outcomeName(settle(client.request(Signed(adapter: own)))), "ok")
        XCTAssertEqual(own.seen.map { $0.value(forHTTPHeaderField: "X-Client") }, [nil], "ran before the client's")
        XCTAssertEqual(shared.seen.map { $0.value(forHTTPHeaderField: "X-Endpoint") }, ["signed-1"], "given the endpoint's result")
        let sent = recorder.requests.first
        XCTAssertEqual(sent?.value(forHTTPHeaderField: "X-Endpoint"), "signed-1")
        XCTAssertEqual(sent?.value(forHTTPHeaderField: "X-Client"), "signed-1")
    }

    func test_givenOnlyAnEndpointAdapter_whenTheRequestIsRetried_thenEachAttemptIsAdaptedAndOtherEndpointsAreNot() {
        let recorder = StubRecorder()
        let own = HeaderAdapter()
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}"), .json("{}")]).recording(into: recorder),
            retry: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0))
        XCTAssertEqual(outcomeName(settle(client.request(Signed(adapter: own)))), "ok")
        XCTAssertEqual(outcomeName(settle(client.request(Request("plain")))), "ok")
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Signature") }, ["signed-1", "signed-2", nil])
    }

    func test_givenARequestToAnotherOrigin_whenItHasItsOwnAdapter_thenItRunsWhileTheClientsOwnOriginAdapterDoesNot() {
        let recorder = StubRecorder()
        let own = HeaderAdapter(header: "X-Endpoint")
        let shared = HeaderAdapter(header: "X-Client")
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [shared])
        var elsewhere = Request<JSON>(url: URL(string: "https://uploads.other.invalid/v1/put")!)
        elsewhere.requestAdapters = [own]
        XCTAssertEqual(outcomeName(settle(client.request(elsewhere))), "ok")
        XCTAssertEqual(recorder.requests.first?.value(forHTTPHeaderField: "X-Endpoint"), "signed-1")
        XCTAssertNil(recorder.requests.first?.value(forHTTPHeaderField: "X-Client"))
        XCTAssertEqual(shared.seen.count, 0)
    }

    func test_givenAnEndpointAdapterThatFails_whenSent_thenNothingIsSentAndTheClientsAdapterIsNotAsked() {
        let recorder = StubRecorder()
        let shared = HeaderAdapter(header: "X-Client")
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [shared])
        var refused = Request<JSON>("refused")
        refused.requestAdapters = [RequestAdapterTests.Refusing(error: NetworkError.invalidRequest(reason: "no signature"))]
        XCTAssertEqual(outcomeName(settle(client.request(refused))), "invalidRequest")
        XCTAssertEqual(recorder.count, 0)
        XCTAssertEqual(shared.seen.count, 0)
    }

    func test_givenAnEndpointWithAdaptersAndRetriers_whenWrappedOrCopied_thenTheWrapperAndTheCopyCarryThem() {
        let recorder = StubRecorder()
        let own = HeaderAdapter()
        let endpoint = Signed(adapter: own, retrier: ScriptedRetrier())
        let copy = Request(endpoint)
        XCTAssertTrue(copy.requestAdapters.first as? HeaderAdapter === own)
        XCTAssertTrue(copy.requestRetriers.first as? ScriptedRetrier === endpoint.retrier)
        XCTAssertEqual(endpoint.withHTTPResponse().requestRetriers.count, 1)
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder))
        XCTAssertEqual(outcomeName(settle(client.request(endpoint.withHTTPResponse()))), "ok")
        XCTAssertEqual(outcomeName(settle(client.request(copy))), "ok")
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Signature") }, ["signed-1", "signed-2"])
    }

    // MARK: Retriers

    func test_givenOnlyAnEndpointRetrier_whenTheRequestFails_thenItIsAskedAndItsRetryIsSent() {
        let recorder = StubRecorder()
        let own = ScriptedRetrier()
        let client = client(NetworkClient.stubbing().sequence([StubResponse(status: 500), .json("{}")]).recording(into: recorder))
        var request = Request<JSON>("flaky")
        request.requestRetriers = [own]
        XCTAssertEqual(outcomeName(settle(client.request(request))), "ok")
        XCTAssertEqual(recorder.count, 2)
        XCTAssertEqual(own.errors, ["serverError(500)"])
    }

    func test_givenEndpointAndClientRetriers_whenTheEndpointsDeclines_thenTheClientsIsAskedAfterIt() {
        let trail = Trail()
        let recorder = StubRecorder()
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 500), .json("{}")]).recording(into: recorder),
            retriers: [trail.retrier("client", answer: .retry)])
        var request = Request<JSON>("x")
        request.requestRetriers = [trail.retrier("endpoint", answer: .doNotRetry)]
        XCTAssertEqual(outcomeName(settle(client.request(request))), "ok")
        XCTAssertEqual(trail.asked, ["endpoint", "client"])
        XCTAssertEqual(recorder.count, 2)
    }

    func test_givenEndpointAndClientRetriers_whenTheEndpointsDecides_thenTheClientsIsNotAsked() {
        let trail = Trail()
        let client = client(
            NetworkClient.stubbing().status(500), retriers: [trail.retrier("client", answer: .retry)])
        var request = Request<JSON>("x")
        request.requestRetriers = [trail.retrier("endpoint", answer: .fail(.invalidRequest(reason: "gave up")))]
        XCTAssertEqual(outcomeName(settle(client.request(request))), "invalidRequest")
        XCTAssertEqual(trail.asked, ["endpoint"])
    }

    func test_givenAnEndpoint_whenItDeclaresNoAdaptersOrRetriers_thenItHasNone() {
        struct Plain: Endpoint { var path: String { "plain" } }
        XCTAssertTrue(Plain().requestAdapters.isEmpty)
        XCTAssertTrue(Plain().requestRetriers.isEmpty)
        XCTAssertTrue(Request<JSON>("plain").requestAdapters.isEmpty)
        XCTAssertTrue(Request<JSON>("plain").requestRetriers.isEmpty)
    }
}
