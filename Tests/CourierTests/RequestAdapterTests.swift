import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Configuration.requestAdapters`: asynchronous changes to each attempt just before it is sent.
final class RequestAdapterTests: XCTestCase {
    /// Sets `header` to `value` after an optional wait for `gate`, and counts its calls.
    final class HeaderAdapter: RequestAdapter, @unchecked Sendable {
        // @unchecked: `inputs` is only touched while holding `lock`.
        private let lock = NSLock()
        private var inputs: [URLRequest] = []
        private let held = HeldPromises<URLRequest>()
        let header: String
        let value: @Sendable (Int) -> String
        /// How many of the first calls get a promise that stays pending until ``releaseAll()``.
        let holdCalls: Int
        let appliesToOtherOrigins: Bool
        /// Signalled once per `adapt` call.
        let called = DispatchSemaphore(value: 0)

        /// - Parameters:
        ///   - holds: when `true`, every promise stays pending until ``releaseAll()`` or a cancellation.
        ///   - holdCalls: how many of the first calls are held (default: all when `holds`, none otherwise).
        init(header: String = "X-Signature", holds: Bool = false, holdCalls: Int? = nil, otherOrigins: Bool = false,
             value: @escaping @Sendable (Int) -> String = { "signed-\($0)" }) {
            self.header = header
            self.holdCalls = holdCalls ?? (holds ? Int.max : 0)
            self.value = value
            self.appliesToOtherOrigins = otherOrigins
        }

        var seen: [URLRequest] { lock.withLock { inputs } }
        var cancelCount: Int { held.cancelCount }
        /// Waits until `count` of its promises were cancelled (see ``HeldPromises/waitForCancels(_:timeout:)``).
        func waitForCancels(_ count: Int) -> Bool { held.waitForCancels(count) }

        func adapt(_ request: URLRequest, for endpoint: any Endpoint) -> Promise<URLRequest> {
            var adapted = request
            let call = lock.withLock { () -> Int in
                inputs.append(request)
                return inputs.count
            }
            adapted.setValue(value(call), forHTTPHeaderField: header)
            defer { called.signal() }
            guard call <= holdCalls else { return Promise.value(adapted) }
            return held.make()
        }

        /// Fulfils every held promise with its adapted request.
        func releaseAll() {
            let resolvers = held.takeAll()
            let requests = lock.withLock { inputs.suffix(resolvers.count) }
            for (resolver, request) in zip(resolvers, requests) {
                var adapted = request
                adapted.setValue("late", forHTTPHeaderField: header)
                resolver.fulfill(adapted)
            }
        }
    }

    struct Refusing: RequestAdapter {
        let error: any Error
        func adapt(_ request: URLRequest, for endpoint: any Endpoint) -> Promise<URLRequest> {
            Promise(error: error)
        }
    }

    struct KeychainLocked: Error, Equatable {}

    /// Records how each request ended, as `didFinish` reports it.
    final class FinishRecorder: RequestPlugin, @unchecked Sendable {
        // @unchecked: `values` is only touched while holding `lock`.
        private let lock = NSLock()
        private var values: [String] = []
        var outcomes: [String] { lock.withLock { values } }
        func didFinish(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint, metrics: RequestMetrics) {
            let outcome: String
            switch result {
            case .success(let response): outcome = "\(response.statusCode)"
            case .failure(let error): outcome = error.shortName
            }
            lock.withLock { values.append(outcome) }
        }
    }

    /// Records one header of each request plugins hear `willSend` for.
    final class SentHeader: RequestPlugin, @unchecked Sendable {
        // @unchecked: `values` is only touched while holding `lock`.
        private let lock = NSLock()
        private var values: [String?] = []
        let name: String
        init(_ name: String) { self.name = name }
        var seen: [String?] { lock.withLock { values } }
        func willSend(_ request: URLRequest) {
            lock.withLock { values.append(request.value(forHTTPHeaderField: name)) }
        }
    }

    func client(
        _ builder: StubbingBuilder, adapters: [any RequestAdapter], plugins: [any RequestPlugin] = [],
        authenticator: (any Authenticator)? = nil, retry: RetryPolicy? = nil, timeout: TimeInterval = 60
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.requestAdapters = adapters
        configuration.plugins = plugins
        configuration.authenticator = authenticator
        configuration.retryPolicy = retry
        configuration.timeout = timeout
        return builder.makeClient(configuration: configuration)
    }

    func test_givenAnAdapter_whenARequestIsSent_thenItSeesTheCredentialAndPluginsAndTheTransportGetsItsResult() {
        let recorder = StubRecorder()
        let adapter = HeaderAdapter()
        let plugin = RecordingPlugin(addingHeader: ("X-Plugin", "prepared"))
        let sent = SentHeader("X-Signature")
        let client = client(
            NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [adapter],
            plugins: [plugin, sent], authenticator: TokenAuthenticator(token: "t0") { _ in Promise.value("t1") })
        XCTAssertEqual(outcomeName(settle(client.request(Request("profile")))), "ok")
        XCTAssertEqual(adapter.seen.first?.value(forHTTPHeaderField: "Authorization"), "Bearer t0")
        XCTAssertEqual(adapter.seen.first?.value(forHTTPHeaderField: "X-Plugin"), "prepared")
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Signature") }, ["signed-1"])
        XCTAssertEqual(sent.seen, ["signed-1"], "willSend sees the adapted request")
    }

    func test_givenTwoAdapters_whenSent_thenTheyRunInOrderEachOnThePreviousResult() {
        let recorder = StubRecorder()
        let first = HeaderAdapter(header: "X-Step", value: { _ in "one" })
        let second = AsyncRequestAdapter { request, _ in
            var request = request
            let before = request.value(forHTTPHeaderField: "X-Step") ?? "none"
            request.setValue("\(before)+two", forHTTPHeaderField: "X-Step")
            return request
        }
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [first, second])
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "ok")
        XCTAssertEqual(recorder.requests.first?.value(forHTTPHeaderField: "X-Step"), "one+two")
    }

    func test_givenARetriedRequest_whenEachAttemptLeaves_thenEachIsAdaptedAgain() {
        let recorder = StubRecorder()
        let adapter = HeaderAdapter()
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]).recording(into: recorder),
            adapters: [adapter], retry: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0))
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "ok")
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Signature") }, ["signed-1", "signed-2"])
        XCTAssertNil(adapter.seen.last?.value(forHTTPHeaderField: "X-Signature"), "each attempt starts from the built request")
    }

    func test_givenAnAdapterThatFails_whenSent_thenNothingIsSentNothingRetriedAndTheErrorIsAuthenticationFailed() {
        let recorder = StubRecorder()
        let plugin = RecordingPlugin()
        let finished = FinishRecorder()
        let client = client(
            NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [Refusing(error: KeychainLocked())],
            plugins: [plugin, finished], retry: RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0))
        let result = settle(client.request(Request("x")))
        guard case .failure(NetworkError.authenticationFailed(let underlying))? = result else {
            return XCTFail("expected authenticationFailed, got \(outcomeName(result))")
        }
        XCTAssertEqual(underlying as? KeychainLocked, KeychainLocked())
        XCTAssertEqual(recorder.count, 0)
        XCTAssertEqual(plugin.events, ["prepare x"], "no willSend, no didReceive")
        XCTAssertEqual(finished.outcomes, ["authenticationFailed"], "didFinish reports the error")
    }

    func test_givenAnAdapterThatFailsWithANetworkErrorOrACancellation_whenSent_thenThatIsTheOutcome() {
        let invalid = client(NetworkClient.stubbing(), adapters: [Refusing(error: NetworkError.invalidRequest(reason: "no session"))])
        XCTAssertEqual(outcomeName(settle(invalid.request(Request("x")))), "invalidRequest")
        let cancelled = client(NetworkClient.stubbing(), adapters: [Refusing(error: CancellationError())])
        XCTAssertEqual(outcomeName(settle(cancelled.request(Request("x")))), "cancelled")
        let timedOut = client(NetworkClient.stubbing(), adapters: [Refusing(error: PromiseError.timedOut)])
        XCTAssertEqual(outcomeName(settle(timedOut.request(Request("x")))), "timedOut")
    }

    func test_givenAnAdapterThatSetsAnInvalidHeader_whenSent_thenTheRequestIsRefused() {
        let recorder = StubRecorder()
        let adapter = HeaderAdapter(header: "Bad Name")   // not an HTTP token
        let client = client(NetworkClient.stubbing().recording(into: recorder), adapters: [adapter])
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "invalidRequest")
        XCTAssertEqual(recorder.count, 0)
    }

    func test_givenAnAdapterStillAtWork_whenTheDeadlinePasses_thenTheRequestTimesOutAtOnceAndTheAdapterIsCancelled() {
        let clock = VirtualClock()
        let recorder = StubRecorder()
        let adapter = HeaderAdapter(holds: true)
        let client = client(
            NetworkClient.stubbing().body(json: "{}").clock(clock).recording(into: recorder), adapters: [adapter], timeout: 5)
        let promise = client.request(Request("x"))
        XCTAssertEqual(adapter.called.wait(timeout: .now() + 5), .success)
        clock.advance(by: 5)
        XCTAssertEqual(outcomeName(settle(promise)), "timedOut")
        XCTAssertTrue(adapter.waitForCancels(1))
        XCTAssertEqual(adapter.cancelCount, 1)
        XCTAssertEqual(recorder.count, 0, "settled without sending")
    }

    func test_givenAnAdapterThatTimesOut_whenTheRequestHasARetryPolicy_thenTheRetryIsAdaptedAndSent() {
        let clock = VirtualClock()
        let recorder = StubRecorder()
        let adapter = HeaderAdapter(holds: true)
        let client = client(
            NetworkClient.stubbing().body(json: "{}").clock(clock).recording(into: recorder), adapters: [adapter],
            retry: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1), jitter: 0), timeout: 5)
        let promise = client.request(Request("x"))
        XCTAssertEqual(adapter.called.wait(timeout: .now() + 5), .success)
        clock.advance(by: 5)          // the first attempt's deadline
        XCTAssertTrue(clock.waitUntilPending(dueAt: 6), "the retry delay")
        clock.advance(by: 1)
        XCTAssertEqual(adapter.called.wait(timeout: .now() + 5), .success)
        adapter.releaseAll()
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        XCTAssertEqual(adapter.cancelCount, 1)
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Signature") }, ["late"])
    }

    func test_givenAnAdapterStillAtWork_whenTheCallerCancels_thenTheRequestEndsAtOnceAndNothingIsSent() {
        let recorder = StubRecorder()
        let adapter = HeaderAdapter(holds: true)
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [adapter])
        let promise = client.request(Request("x"))
        XCTAssertEqual(adapter.called.wait(timeout: .now() + 5), .success)
        promise.cancel()
        XCTAssertTrue(isCancelled(settle(promise)))
        XCTAssertTrue(adapter.waitForCancels(1))
        XCTAssertEqual(adapter.cancelCount, 1)
        XCTAssertEqual(recorder.count, 0, "settled without sending")
    }

    func test_givenTheSecondAdapterAtWork_whenTheCallerCancels_thenThatAdaptersPromiseIsCancelled() {
        let recorder = StubRecorder()
        let first = HeaderAdapter(header: "X-First")
        let second = HeaderAdapter(holds: true)
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [first, second])
        let promise = client.request(Request("x"))
        XCTAssertEqual(second.called.wait(timeout: .now() + 5), .success)
        promise.cancel()
        XCTAssertTrue(isCancelled(settle(promise)))
        XCTAssertTrue(second.waitForCancels(1))
        XCTAssertEqual(second.cancelCount, 1, "the cancellation reaches the promise the second adapter returned")
        XCTAssertEqual(second.seen.first?.value(forHTTPHeaderField: "X-First"), "signed-1")
        XCTAssertEqual(recorder.count, 0)
    }

    func test_givenAdaptersAtWork_whenCancelAllRuns_thenEveryRequestEndsAndEveryAdapterIsCancelled() {
        let adapter = HeaderAdapter(holds: true)
        let client = client(NetworkClient.stubbing().body(json: "{}"), adapters: [adapter])
        let promises = (0..<3).map { client.request(Request("x/\($0)")) }
        for _ in promises { XCTAssertEqual(adapter.called.wait(timeout: .now() + 5), .success) }
        XCTAssertEqual(client.cancelAll(), 3)
        for promise in promises { XCTAssertEqual(outcomeName(settle(promise)), "cancelled") }
        XCTAssertTrue(adapter.waitForCancels(3))
        XCTAssertEqual(adapter.cancelCount, 3)
    }

    func test_givenAnAsyncAdapter_whenTheRequestIsCancelled_thenItsTaskIsCancelled() {
        let started = expectation(description: "adapter started")
        let taskCancelled = expectation(description: "task cancelled")
        let waiter = CancellationWaiter()
        let adapter = AsyncRequestAdapter { request, _ in
            await withTaskCancellationHandler {
                started.fulfill()
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    // Resumed only by cancellation, below.
                    waiter.park(continuation)
                }
            } onCancel: {
                taskCancelled.fulfill()
                waiter.resumeAll()
            }
            return request
        }
        let client = client(NetworkClient.stubbing().body(json: "{}"), adapters: [adapter])
        let promise = client.request(Request("x"))
        wait(for: [started], timeout: 5)
        promise.cancel()
        wait(for: [taskCancelled], timeout: 5)
        XCTAssertTrue(isCancelled(settle(promise)))
    }

    func test_givenARequestToAnotherOrigin_whenSent_thenOnlyAdaptersForOtherOriginsRun() {
        let recorder = StubRecorder()
        let own = HeaderAdapter(header: "X-Own")
        let any = HeaderAdapter(header: "X-Any", otherOrigins: true)
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [own, any])
        let elsewhere = Request<JSON>(url: URL(string: "https://cdn.other.invalid/file.json")!)
        XCTAssertEqual(outcomeName(settle(client.request(elsewhere))), "ok")
        XCTAssertEqual(outcomeName(settle(client.request(Request("mine")))), "ok")
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Own") }, [nil, "signed-1"])
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Any") }, ["signed-1", "signed-2"])
    }

    func test_givenAPausedClient_whenResumed_thenAdaptersRunOnlyAfterTheGateLetsTheRequestGo() {
        let adapter = HeaderAdapter()
        let client = client(NetworkClient.stubbing().body(json: "{}"), adapters: [adapter])
        client.pause()
        let promise = client.request(Request("x"))
        XCTAssertTrue(promise.isPending)
        XCTAssertEqual(adapter.seen.count, 0, "held at the gate, not adapted")
        client.resume()
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        XCTAssertEqual(adapter.seen.count, 1)
    }

    func test_givenAdapters_whenUsedFromEveryCallStyle_thenEachRequestIsAdapted() async throws {
        let recorder = StubRecorder()
        let client = client(NetworkClient.stubbing().body(json: "{}").recording(into: recorder), adapters: [HeaderAdapter()])
        _ = try await client.send(Request("async"))
        let done = expectation(description: "completion")
        _ = client.request(Request("completion")) { _ in done.fulfill() }
        await fulfillment(of: [done], timeout: 5)
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "X-Signature") }, ["signed-1", "signed-2"])
    }
}

/// Holds continuations that only a cancellation resumes.
final class CancellationWaiter: @unchecked Sendable {
    // @unchecked: `parked` and `cancelled` are only touched while holding `lock`.
    private let lock = NSLock()
    private var parked: [CheckedContinuation<Void, Never>] = []
    private var cancelled = false

    func park(_ continuation: CheckedContinuation<Void, Never>) {
        let resumeNow = lock.withLock { () -> Bool in
            if cancelled { return true }
            parked.append(continuation)
            return false
        }
        if resumeNow { continuation.resume() }
    }

    func resumeAll() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            cancelled = true
            defer { parked = [] }
            return parked
        }
        for continuation in waiting { continuation.resume() }
    }
}
