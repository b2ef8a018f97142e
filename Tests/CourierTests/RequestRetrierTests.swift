import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Configuration.requestRetriers`: asynchronous decisions to send a failed request again.
final class RequestRetrierTests: XCTestCase {
    /// Answers each question with `decide(error, context)`, or holds the answer until ``answerAll(_:)``
    /// or a cancellation; records what it was asked.
    final class ScriptedRetrier: RequestRetrier, @unchecked Sendable {
        // @unchecked: `questions` is only touched while holding `lock`.
        private let lock = NSLock()
        private var questions: [(request: URLRequest, error: NetworkError, context: RetryContext)] = []
        private let held = HeldPromises<RetryDecision>()
        let holds: Bool
        let decide: @Sendable (NetworkError, RetryContext) -> RetryDecision
        /// Signalled once per question.
        let asked = DispatchSemaphore(value: 0)

        init(holds: Bool = false, decide: @escaping @Sendable (NetworkError, RetryContext) -> RetryDecision = { _, _ in .retry }) {
            self.holds = holds
            self.decide = decide
        }

        var errors: [String] { lock.withLock { questions.map(\.error.shortName) } }
        var retryCounts: [Int] { lock.withLock { questions.map(\.context.retryCount) } }
        var contexts: [RetryContext] { lock.withLock { questions.map(\.context) } }
        var requests: [URLRequest] { lock.withLock { questions.map(\.request) } }
        var cancelCount: Int { held.cancelCount }
        /// Waits until `count` of its promises were cancelled (see ``HeldPromises/waitForCancels(_:timeout:)``).
        func waitForCancels(_ count: Int) -> Bool { held.waitForCancels(count) }

        func retry(_ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError, context: RetryContext) -> Promise<RetryDecision> {
            lock.withLock { questions.append((request, error, context)) }
            defer { asked.signal() }
            guard holds else { return Promise.value(decide(error, context)) }
            return held.make()
        }

        /// Answers every held question with `decision`.
        func answerAll(_ decision: RetryDecision) {
            for resolver in held.takeAll() { resolver.fulfill(decision) }
        }
    }

    struct Rejecting: RequestRetrier {
        let error: any Error
        func retry(_ request: URLRequest, for endpoint: any Endpoint, dueTo error: NetworkError, context: RetryContext) -> Promise<RetryDecision> {
            Promise(error: self.error)
        }
    }

    struct Unreachable: Error {}

    func client(
        _ builder: StubbingBuilder, retriers: [any RequestRetrier], retry: RetryPolicy? = nil,
        authenticator: (any Authenticator)? = nil, timeout: TimeInterval = 60, scheduler: (any RequestScheduler)? = nil
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        if let scheduler { configuration.scheduler = scheduler }
        configuration.requestRetriers = retriers
        configuration.retryPolicy = retry
        configuration.authenticator = authenticator
        configuration.timeout = timeout
        return builder.makeClient(configuration: configuration)
    }

    func test_givenARetrierThatRetries_whenARequestFails_thenItIsSentAgainAndTheRetrierSawTheSentRequestAndError() {
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier()
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]).recording(into: recorder),
            retriers: [retrier], authenticator: TokenAuthenticator(token: "t0") { _ in Promise.value("t1") })
        XCTAssertEqual(outcomeName(settle(client.request(Request("profile")))), "ok")
        XCTAssertEqual(recorder.count, 2)
        XCTAssertEqual(retrier.errors, ["serverError(503)"])
        XCTAssertEqual(retrier.retryCounts, [0])
        XCTAssertEqual(retrier.requests.first?.value(forHTTPHeaderField: "Authorization"), "Bearer t0", "as sent")
    }

    func test_givenARetrierThatDeclines_whenARequestFails_thenItFailsWithTheOriginalErrorAfterOneAttempt() {
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier { _, _ in .doNotRetry }
        let client = client(NetworkClient.stubbing().status(503).recording(into: recorder), retriers: [retrier])
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "serverError(503)")
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(retrier.errors, ["serverError(503)"])
    }

    func test_givenARetrierThatCountsRetries_whenTheServerKeepsFailing_thenItIsAskedWithEachCountUntilItStops() {
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier { _, context in context.retryCount < 2 ? .retry : .doNotRetry }
        let client = client(NetworkClient.stubbing().failure(URLError(.networkConnectionLost)).recording(into: recorder), retriers: [retrier])
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "transport")
        XCTAssertEqual(recorder.count, 3)
        XCTAssertEqual(retrier.retryCounts, [0, 1, 2])
        XCTAssertEqual(retrier.errors, ["transport", "transport", "transport"])
    }

    func test_givenAPolicyAndARetrier_whenThePolicyHasRetriesLeft_thenThePolicyRetriesFirstAndTheRetrierIsAskedAfter() {
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier()
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), StubResponse(status: 503), .json("{}")]).recording(into: recorder),
            retriers: [retrier], retry: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0))
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "ok")
        XCTAssertEqual(recorder.count, 3)
        XCTAssertEqual(retrier.retryCounts, [1], "asked only once the policy's one retry was used, and counts it")
    }

    func test_givenARetriersRetry_whenThePolicyMeetsALaterFailure_thenThePolicyStillHasAllItsRetries() {
        let recorder = StubRecorder()
        // The policy retries a 503 once; the retrier retries anything else once.
        let retrier = ScriptedRetrier { _, context in context.retrierRetryCount == 0 ? .retry : .doNotRetry }
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 500), StubResponse(status: 503), .json("{}")]).recording(into: recorder),
            retriers: [retrier], retry: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0))
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "ok")
        XCTAssertEqual(recorder.count, 3)
        XCTAssertEqual(retrier.contexts.map(\.retrierRetryCount), [0], "asked about the 500 only")
    }

    func test_givenAnAttemptThatTimedOutWhileHeld_whenTheRetrierIsAsked_thenItHearsItWasNotSent() {
        let clock = VirtualClock()
        let retrier = ScriptedRetrier { _, _ in .doNotRetry }
        let client = client(NetworkClient.stubbing().status(503).clock(clock), retriers: [retrier], timeout: 5)
        XCTAssertEqual(outcomeName(settle(client.request(Request("sent")))), "serverError(503)")
        client.pause()
        let held = client.request(Request("held"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 5), "the held attempt's deadline")
        clock.advance(by: 5)
        XCTAssertEqual(outcomeName(settle(held)), "timedOut")
        XCTAssertEqual(retrier.contexts.map(\.wasSent), [true, false])
        XCTAssertEqual(retrier.requests.last?.url?.lastPathComponent, "held", "the request as built")
    }

    func test_givenAPolicyThatDoesNotRetryPOST_whenAPOSTFails_thenTheRetrierDecides() {
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier { _, context in context.retryCount == 0 ? .retry : .doNotRetry }
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]).recording(into: recorder),
            retriers: [retrier], retry: .default)
        XCTAssertEqual(outcomeName(settle(client.request(Request("orders", method: .post)))), "ok")
        XCTAssertEqual(recorder.requests.map(\.httpMethod), ["POST", "POST"])
    }

    func test_givenFail_whenDecided_thenThatErrorIsTheOutcomeButARejectionKeepsTheRequestsOwnError() {
        let replacement = ScriptedRetrier { _, _ in .fail(.invalidRequest(reason: "offline mode")) }
        let failing = client(NetworkClient.stubbing().status(503), retriers: [replacement])
        XCTAssertEqual(outcomeName(settle(failing.request(Request("x")))), "invalidRequest")

        // A retrier whose own lookup failed (with a 404 of its own) does not replace the request's error.
        let lookup = NetworkError.clientError(statusCode: 404, metadata: nil, response: HTTPResponse(statusCode: 404))
        let later = ScriptedRetrier()
        let rejecting = client(NetworkClient.stubbing().status(503), retriers: [Rejecting(error: lookup), later])
        XCTAssertEqual(outcomeName(settle(rejecting.request(Request("x")))), "serverError(503)")
        XCTAssertEqual(later.retryCounts, [], "a rejection ends the asking")

        let rejectingWithOther = client(NetworkClient.stubbing().status(503), retriers: [Rejecting(error: Unreachable())])
        XCTAssertEqual(outcomeName(settle(rejectingWithOther.request(Request("x")))), "serverError(503)")
    }

    func test_givenTwoRetriers_whenTheFirstDeclines_thenTheSecondDecidesAndWhenTheFirstRetriesTheSecondIsNotAsked() {
        let declining = ScriptedRetrier { _, _ in .doNotRetry }
        let retrying = ScriptedRetrier { _, context in context.retryCount == 0 ? .retry : .doNotRetry }
        let client = client(NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]), retriers: [declining, retrying])
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "ok")
        XCTAssertEqual(declining.retryCounts, [0])
        XCTAssertEqual(retrying.retryCounts, [0])

        let first = ScriptedRetrier { _, context in context.retryCount == 0 ? .retry : .doNotRetry }
        let second = ScriptedRetrier()
        let other = self.client(NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]), retriers: [first, second])
        XCTAssertEqual(outcomeName(settle(other.request(Request("x")))), "ok")
        XCTAssertEqual(second.retryCounts, [], "the first retrier's retry was the decision")
    }

    func test_givenRetryAfter_whenDecided_thenTheRetryWaitsThatLongOnTheClientsClock() {
        let clock = VirtualClock()
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier { _, context in context.retryCount == 0 ? .retryAfter(30) : .doNotRetry }
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]).clock(clock).recording(into: recorder),
            retriers: [retrier])
        let promise = client.request(Request("x"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 30), "the retry waits 30 s")
        XCTAssertEqual(recorder.count, 1)
        XCTAssertTrue(promise.isPending)
        clock.advance(by: 30)
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        XCTAssertEqual(recorder.count, 2)
    }

    func test_givenARetrierThatNeverAnswers_whenTheRequestsTimeoutPasses_thenItIsCancelledAndTheRequestFailsWithItsError() {
        let clock = VirtualClock()
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier(holds: true)
        let client = client(
            NetworkClient.stubbing().status(503).delay(2).clock(clock).recording(into: recorder), retriers: [retrier], timeout: 5)
        let promise = client.request(Request("x"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 2), "the stub's answer")
        clock.advance(by: 2)
        XCTAssertEqual(retrier.asked.wait(timeout: .now() + 5), .success)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 7), "the decision's own time limit, from when it was asked")
        clock.advance(by: 4.9)
        XCTAssertTrue(promise.isPending, "the attempt's deadline (at 5) does not end the decision")
        clock.advance(by: 0.1)
        XCTAssertEqual(outcomeName(settle(promise)), "serverError(503)")
        XCTAssertEqual(retrier.cancelCount, 1)
        XCTAssertEqual(recorder.count, 1)
    }

    func test_givenARetrierAtWork_whenTheCallerCancels_thenTheRequestEndsAtOnceAndTheDecisionIsCancelled() {
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier(holds: true)
        let client = client(NetworkClient.stubbing().status(503).recording(into: recorder), retriers: [retrier])
        let promise = client.request(Request("x"))
        XCTAssertEqual(retrier.asked.wait(timeout: .now() + 5), .success)
        promise.cancel()
        XCTAssertTrue(isCancelled(settle(promise)))
        XCTAssertTrue(retrier.waitForCancels(1))
        XCTAssertEqual(retrier.cancelCount, 1)
        XCTAssertEqual(recorder.count, 1)
    }

    func test_givenRetriersAtWork_whenCancelAllRuns_thenEveryRequestEndsAndEveryDecisionIsCancelled() {
        let retrier = ScriptedRetrier(holds: true)
        let client = client(NetworkClient.stubbing().status(503), retriers: [retrier])
        let promises = (0..<3).map { client.request(Request("x/\($0)")) }
        for _ in promises { XCTAssertEqual(retrier.asked.wait(timeout: .now() + 5), .success) }
        XCTAssertEqual(client.cancelAll(), 3)
        for promise in promises { XCTAssertEqual(outcomeName(settle(promise)), "cancelled") }
        XCTAssertTrue(retrier.waitForCancels(3))
        XCTAssertEqual(retrier.cancelCount, 3)
    }

    func test_givenARetrier_whenTheTransportReportsACancellationOrTheResponseCannotBeDecoded_thenItIsNotAsked() {
        let retrier = ScriptedRetrier()
        let cancelling = client(NetworkClient.stubbing().failure(URLError(.cancelled)), retriers: [retrier])
        XCTAssertEqual(outcomeName(settle(cancelling.request(Request("x")))), "cancelled")

        struct Profile: Decodable, Sendable { let name: String }
        let undecodable = client(NetworkClient.stubbing().body(json: "{\"id\":1}"), retriers: [retrier])
        XCTAssertEqual(outcomeName(settle(undecodable.request(Request<Profile>("me")))), "decodingFailed")
        XCTAssertEqual(retrier.errors, [])
    }

    func test_givenAnAsyncRetrier_whenARequestFails_thenItsDecisionIsUsedAndThrowingIsANo() async throws {
        let recorder = StubRecorder()
        let retrying = AsyncRequestRetrier { _, _, error, context in
            guard case .serverError(503, _, _) = error, context.retryCount == 0 else { return .doNotRetry }
            await Task.yield()
            return .retry
        }
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{\"ok\":true}")]).recording(into: recorder),
            retriers: [retrying])
        let json = try await client.send(Request("x"))
        XCTAssertEqual(json["ok"].bool, true)
        XCTAssertEqual(recorder.count, 2)

        let throwing = AsyncRequestRetrier { _, _, _, _ in throw NetworkError.invalidRequest(reason: "read-only") }
        let other = self.client(NetworkClient.stubbing().status(500), retriers: [throwing])
        do {
            _ = try await other.send(Request("x"))
            XCTFail("expected a failure")
        } catch let error as NetworkError {
            XCTAssertEqual(error.shortName, "serverError(500)", "throwing is a no: the request keeps its error")
        }
    }

    func test_givenAnAsyncRetrier_whenTheRequestIsCancelled_thenItsTaskIsCancelled() {
        let started = expectation(description: "retrier started")
        let taskCancelled = expectation(description: "task cancelled")
        let waiter = CancellationWaiter()
        let retrier = AsyncRequestRetrier { _, _, _, _ in
            await withTaskCancellationHandler {
                started.fulfill()
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    waiter.park(continuation)   // resumed only by the cancellation below
                }
            } onCancel: {
                taskCancelled.fulfill()
                waiter.resumeAll()
            }
            return .retry
        }
        let recorder = StubRecorder()
        let client = client(NetworkClient.stubbing().status(503).recording(into: recorder), retriers: [retrier])
        let promise = client.request(Request("x"))
        wait(for: [started], timeout: 5)
        promise.cancel()
        wait(for: [taskCancelled], timeout: 5)
        XCTAssertTrue(isCancelled(settle(promise)))
    }

    func test_givenAPausedClient_whenARetrierRetries_thenTheRetryWaitsAtTheGateLikeAnyAttempt() {
        let clock = VirtualClock()
        let recorder = StubRecorder()
        let retrier = ScriptedRetrier(holds: true)
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json("{}")]).clock(clock).recording(into: recorder),
            retriers: [retrier])
        let promise = client.request(Request("x"))
        XCTAssertEqual(retrier.asked.wait(timeout: .now() + 5), .success)
        client.pause()
        retrier.answerAll(.retryAfter(1))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 1), "the retry's wait")
        clock.advance(by: 1)   // starts the retry on this thread: the paused gate holds it
        XCTAssertTrue(promise.isPending)
        XCTAssertEqual(recorder.count, 1, "held, not sent")
        client.resume()
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        XCTAssertEqual(recorder.count, 2)
    }

    func test_givenRetriers_whenTheConfigurationIsDescribed_thenTheirTypesAreListed() {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.requestRetriers = [ScriptedRetrier()]
        XCTAssertTrue(String(reflecting: configuration).contains("ScriptedRetrier"))
    }
}
