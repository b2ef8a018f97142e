import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 7, lifetime: weak references show that clients, requests (their promises and handler
/// closures) and everything those captured are freed once a request settles, once it is
/// cancelled, and when a client is released while it holds paused requests.
///
/// Objects are released on other threads after the last handler ran, so each check waits
/// (bounded, see ``WeakTracker/survivors(within:)``) for the weak references to clear.
final class LifetimeTests: XCTestCase {
    /// A stubbed client answering `{"ok":true}` after `delay` seconds.
    private func stubClient(delay: TimeInterval = 0, timeout: TimeInterval = 30,
                            authenticator: (any Authenticator)? = nil) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.timeout = timeout
        configuration.authenticator = authenticator
        configuration.plugins = [LoggingPlugin { _ in }]
        return NetworkClient.stubbing().body(json: #"{"ok":true}"#).delay(delay).makeClient(configuration: configuration)
    }

    /// Issues one request in each call style, each capturing its own canaries, and tracks the
    /// client, the promises and the canaries. Returns what cancels each request.
    private func issueInEveryStyle(on client: NetworkClient, tracker: WeakTracker,
                                   settled: XCTestExpectation) -> [@Sendable () -> Void] {
        settled.expectedFulfillmentCount = 3
        tracker.track("client", client)

        let completionCanary = LifetimeCanary("completion closure")
        let completionEndpoint = LifetimeCanary("completion endpoint")
        tracker.track(completionCanary.name, completionCanary)
        tracker.track(completionEndpoint.name, completionEndpoint)
        let task = client.request(CanaryEndpoint(path: "a", canary: completionEndpoint)) { _ in
            withExtendedLifetime(completionCanary) {}
            settled.fulfill()
        }
        tracker.track("request task", task)

        let promiseCanary = LifetimeCanary("promise handler")
        let promiseEndpoint = LifetimeCanary("promise endpoint")
        tracker.track(promiseCanary.name, promiseCanary)
        tracker.track(promiseEndpoint.name, promiseEndpoint)
        let promise = client.request(CanaryEndpoint(path: "b", canary: promiseEndpoint))
        let chained = promise.map { json in
            withExtendedLifetime(promiseCanary) {}
            return json
        }
        chained.ensure { settled.fulfill() }.catch { _ in }
        tracker.track("request promise", promise)
        tracker.track("chained promise", chained)

        let asyncEndpoint = LifetimeCanary("async endpoint")
        tracker.track(asyncEndpoint.name, asyncEndpoint)
        let asyncTask = Task { [client] in
            _ = try? await client.send(CanaryEndpoint(path: "c", canary: asyncEndpoint))
            settled.fulfill()
        }
        return [{ task.cancel() }, { promise.cancel() }, { asyncTask.cancel() }]
    }

    func test_givenRequestsInEveryStyle_whenTheySettle_thenClientPromisesClosuresAndCapturesAreFreed() {
        let tracker = WeakTracker()
        do {
            let settled = expectation(description: "every request settled")
            _ = issueInEveryStyle(on: stubClient(), tracker: tracker, settled: settled)
            wait(for: [settled], timeout: 10)
        }
        XCTAssertEqual(tracker.survivors(), [])
    }

    func test_givenSlowRequestsInEveryStyle_whenCancelled_thenEverythingIsFreedLongBeforeTheResponseWasDue() {
        let tracker = WeakTracker()
        do {
            // Settling within 10 s of a 60 s stub delay is the proof that the cancel, not the
            // delay running out, settled them.
            let settled = expectation(description: "every request settled")
            let cancels = issueInEveryStyle(on: stubClient(delay: 60), tracker: tracker, settled: settled)
            cancels.forEach { $0() }
            wait(for: [settled], timeout: 10)
        }
        XCTAssertEqual(tracker.survivors(), [])
    }

    func test_givenSlowRequests_whenTheyTimeOut_thenEverythingIsFreed() {
        let tracker = WeakTracker()
        do {
            let settled = expectation(description: "every request settled")
            _ = issueInEveryStyle(on: stubClient(delay: 60, timeout: 0.2), tracker: tracker, settled: settled)
            wait(for: [settled], timeout: 10)
        }
        XCTAssertEqual(tracker.survivors(), [])
    }

    func test_givenAPausedClientHoldingRequests_whenTheClientIsReleased_thenTheyAreCancelledAndEverythingIsFreed() {
        let tracker = WeakTracker()
        let outcomes = OutcomeList()
        do {
            let client = stubClient()
            client.pause()
            tracker.track("client", client)
            for index in 0..<4 {
                let canary = LifetimeCanary("held endpoint \(index)")
                tracker.track(canary.name, canary)
                let task = client.request(CanaryEndpoint(path: "held/\(index)", canary: canary)) { result in
                    outcomes.append(result)
                }
                tracker.track("held task \(index)", task)
            }
            let promiseCanary = LifetimeCanary("held promise handler")
            tracker.track(promiseCanary.name, promiseCanary)
            let promise = client.request(CanaryEndpoint(path: "held/promise", canary: LifetimeCanary("unused")))
            promise.tap { result in
                withExtendedLifetime(promiseCanary) {}
                outcomes.append(result.mapError { $0 as? NetworkError ?? .transport(underlying: $0) })
            }.catch { _ in }
            tracker.track("held promise", promise)
        }
        XCTAssertTrue(eventually { outcomes.count == 5 }, "held requests did not settle when their client went away")
        XCTAssertEqual(outcomes.kinds, Array(repeating: "cancelled", count: 5))
        XCTAssertEqual(tracker.survivors(), [])
    }

    func test_givenARequestWaitingToRetry_whenCancelled_thenItsEndpointAndClientAreFreed() {
        let tracker = WeakTracker()
        do {
            let attempts = AttemptRecorder()
            var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
            configuration.plugins = [attempts]
            let client = NetworkClient.stubbing().status(503).makeClient(configuration: configuration)
            tracker.track("client", client)
            let canary = LifetimeCanary("retrying endpoint")
            tracker.track(canary.name, canary)
            var endpoint = CanaryEndpoint(path: "retry", canary: canary)
            endpoint.retryPolicy = RetryPolicy(maximumRetryCount: 5, delayBeforeRetry: .seconds(60))
            let promise = client.request(endpoint)
            tracker.track("promise", promise)
            // The first attempt answers 503 at once; the retry would then wait 30-60 s.
            XCTAssertTrue(attempts.waitForReceive(within: 5), "the first attempt never finished")
            promise.cancel()
            guard case .failure(let error)? = settle(promise) else { return XCTFail("the request was not rejected") }
            XCTAssertTrue(isCancellation(error), "got \(error)")
            XCTAssertEqual(attempts.sent.count, 1)
        }
        XCTAssertEqual(tracker.survivors(), [])
    }

    func test_givenATokenAuthenticatorThatRefreshed_whenTheClientIsReleased_thenClientAuthenticatorAndRefreshClosureAreFreed() {
        let tracker = WeakTracker()
        do {
            let refreshCanary = LifetimeCanary("refresh closure")
            tracker.track(refreshCanary.name, refreshCanary)
            let auth = TokenAuthenticator(token: "stale") { _ in
                withExtendedLifetime(refreshCanary) {}
                return after(seconds: 0.01).map { "fresh" }
            }
            tracker.track("authenticator", auth)
            let client = NetworkClient.stubbing()
                .respond { request in
                    request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh"
                        ? .json(#"{"ok":true}"#) : .json("{}", status: 401)
                }
                .makeClient(configuration: {
                    var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
                    configuration.authenticator = auth
                    return configuration
                }())
            tracker.track("client", client)
            let result = settle(client.request(StubJSONEndpoint(path: "me")), within: 10)
            XCTAssertNotNil(try? result?.get(), "the request should succeed after one refresh")
            XCTAssertEqual(auth.token, "fresh")
        }
        XCTAssertEqual(tracker.survivors(), [])
    }

    func test_givenAURLSessionClient_whenItsRequestsSettleOrAreCancelled_thenClientTransportAndCapturesAreFreed() throws {
        let server = try TestServer.shared
        let tracker = WeakTracker()
        do {
            let transport = URLSessionTransport()
            tracker.track("transport", transport)
            let client = NetworkClient(configuration: .init(baseURL: server.baseURL), transport: transport)
            let settled = expectation(description: "both settled")
            settled.expectedFulfillmentCount = 2
            let cancels = issueLive(on: client, tracker: tracker, settled: settled)
            cancels.last?()
            wait(for: [settled], timeout: 10)
        }
        XCTAssertEqual(tracker.survivors(within: 10), [])
    }

    /// One request that completes (`anything`) and one that never would (`stall`), for a client on
    /// the local server; returns their cancel actions, the stalled one last.
    private func issueLive(on client: NetworkClient, tracker: WeakTracker,
                           settled: XCTestExpectation) -> [@Sendable () -> Void] {
        tracker.track("client", client)
        let answered = LifetimeCanary("answered endpoint")
        let stalled = LifetimeCanary("stalled endpoint")
        tracker.track(answered.name, answered)
        tracker.track(stalled.name, stalled)
        let first = client.request(CanaryEndpoint(path: "anything", canary: answered)) { _ in settled.fulfill() }
        let second = client.request(CanaryEndpoint(path: "stall", canary: stalled)) { _ in settled.fulfill() }
        return [{ first.cancel() }, { second.cancel() }]
    }
}

/// Results delivered to completion handlers, from any thread.
// @unchecked Sendable: `results` is only touched while holding `lock`.
final class OutcomeList: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<JSON, NetworkError>] = []

    func append(_ result: Result<JSON, NetworkError>) { lock.withLock { results.append(result) } }
    var count: Int { lock.withLock { results.count } }
    /// `"ok"` or the error's kind (see `errorKind`), in arrival order.
    var kinds: [String] {
        lock.withLock { results.map { result in if case .failure(let error) = result { errorKind(error) } else { "ok" } } }
    }
}
