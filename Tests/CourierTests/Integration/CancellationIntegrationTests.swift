import Courier
import Foundation
import Promises
import XCTest

/// Deadlines and cancellation against a real server: a slow answer ends in `.timedOut` at the
/// endpoint's timeout, cancelling an in-flight request ends it at once with `.cancelled`, and a
/// connection that dies mid-body is a transport error.
final class CancellationIntegrationTests: IntegrationTestCase {
    func test_givenEndpointTimeout_whenTheServerIsSlower_thenTimedOutAtTheTimeout() throws {
        let client = try makeClient()
        let start = Date()
        let error = failure(of: client.request(LiveJSONEndpoint(path: "delay/30", timeout: 0.3)), within: 20)
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(error.map(errorKind), "timedOut")
        XCTAssertGreaterThanOrEqual(elapsed, 0.25)
        // Far below the answer's 30 s, far above any stall of a busy machine under a sanitizer.
        XCTAssertLessThan(elapsed, 10, "a 0.3 s timeout must not wait for the 30 s answer")
    }

    func test_givenClientTimeout_whenTheServerNeverAnswers_thenTimedOut() throws {
        let client = try makeClient { $0.timeout = 0.4 }
        let start = Date()
        let error = failure(of: client.request(LiveJSONEndpoint(path: "stall")), within: 20)
        XCTAssertEqual(error.map(errorKind), "timedOut")
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "the server holds the request for 60 s")
    }

    func test_givenTimeoutLongerThanTheDelay_thenTheAnswerArrives() throws {
        let client = try makeClient()
        let json = try value(of: client.request(LiveJSONEndpoint(path: "delay/0.2", timeout: 3)))
        XCTAssertEqual(json["delay"].double, 0.2)
    }

    func test_givenASubSecondTimeoutLongerThanTheDelay_thenTheAnswerArrives() throws {
        // FoundationNetworking handles timeouts in whole seconds only (a 0.5 s session timeout fires
        // at once), so the client's own deadline must govern fractional timeouts.
        let client = try makeClient()
        // The widest fractions (0.99 s, 1.99 s) leave the most room for a busy machine.
        let json = try value(of: client.request(LiveJSONEndpoint(path: "delay/0.02", timeout: 0.99)))
        XCTAssertEqual(json["delay"].double, 0.02)
        // Past one whole second: FoundationNetworking would round 1.99 s down to 1 s.
        let slower = try value(of: client.request(LiveJSONEndpoint(path: "delay/1.01", timeout: 1.99)))
        XCTAssertEqual(slower["delay"].double, 1.01)
    }

    func test_givenAnInFlightRequest_whenThePromiseIsCancelled_thenCancelledQuickly() throws {
        let plugin = AttemptRecorder()
        let client = try makeClient { $0.plugins = [plugin] }
        let promise = client.request(LiveJSONEndpoint(path: "delay/5"))
        XCTAssertTrue(plugin.waitForSend(), "the request never reached the transport")
        promise.cancel()
        // Settled within 3 s of a 5 s answer: the cancel ended it, not the answer.
        let error = failure(of: promise, within: 3)
        XCTAssertEqual(error.map(errorKind), "PromiseError.cancelled")
    }

    func test_givenRequestsInFlight_whenTheClientCancelsAll_thenEachEndsCancelledQuickly() throws {
        let plugin = AttemptRecorder()
        let client = try makeClient { $0.plugins = [plugin] }
        let first = client.request(LiveJSONEndpoint(path: "delay/5"))
        XCTAssertTrue(plugin.waitForSend(), "the request never reached the transport")
        let second = client.request(LiveJSONEndpoint(path: "delay/5"))
        XCTAssertTrue(plugin.waitForSend(), "the second request never reached the transport")
        XCTAssertEqual(client.cancelAll(), 2)
        // Settled within 3 s of a 5 s answer: the cancel ended them, not the answers.
        XCTAssertEqual(failure(of: first, within: 3).map(errorKind), "cancelled")
        XCTAssertEqual(failure(of: second, within: 3).map(errorKind), "cancelled")
        XCTAssertNoThrow(try value(of: client.request(LiveJSONEndpoint(path: "delay/0"))), "later requests run as usual")
    }

    func test_givenAChainOnARequest_whenTheLastLinkIsCancelled_thenTheRequestIsCancelled() throws {
        let plugin = AttemptRecorder()
        let client = try makeClient { $0.plugins = [plugin] }
        let request = client.request(LiveJSONEndpoint(path: "delay/5"))
        let chain = request.map { $0["delay"].double ?? 0 }
        XCTAssertTrue(plugin.waitForSend())
        chain.cancel()
        XCTAssertEqual(failure(of: request, within: 3).map(errorKind), "PromiseError.cancelled")
    }

    func test_givenAnInFlightRequest_whenTheCompletionTaskIsCancelled_thenCompletionGetsCancelled() throws {
        let plugin = AttemptRecorder()
        let client = try makeClient { $0.plugins = [plugin] }
        let done = expectation(description: "completion")
        let received = ResultSlot<JSON>()
        let task = client.request(LiveJSONEndpoint(path: "delay/5")) { result in
            received.put(result.mapError { $0 as any Error })
            done.fulfill()
        }
        XCTAssertTrue(plugin.waitForSend())
        task.cancel()
        wait(for: [done], timeout: 2)
        if case .failure(let error)? = received.take(within: 0) {
            XCTAssertEqual(errorKind(error), "cancelled")
        } else {
            XCTFail("completion did not report a failure")
        }
    }

    func test_givenARequestHeldByPause_whenItsCompletionTaskIsCancelled_thenCompletionGetsCancelled() throws {
        let client = try makeClient()
        client.pause()
        defer { client.resume() }
        let done = expectation(description: "completion")
        let received = ResultSlot<JSON>()
        let task = client.request(LiveJSONEndpoint(path: "anything")) { result in
            received.put(result.mapError { $0 as any Error })
            done.fulfill()
        }
        task.cancel()
        wait(for: [done], timeout: 2)
        if case .failure(let error)? = received.take(within: 0) {
            XCTAssertEqual(errorKind(error), "cancelled")
        } else {
            XCTFail("completion did not report a failure")
        }
    }

    func test_givenAnInFlightSend_whenItsTaskIsCancelled_thenItThrowsCancelled() async throws {
        let plugin = AttemptRecorder()
        let client = try makeClient { $0.plugins = [plugin] }
        let task = Task { try await client.send(LiveJSONEndpoint(path: "delay/5")) }
        let sent = await Task.detached { plugin.waitForSend() }.value
        XCTAssertTrue(sent)
        let start = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("a cancelled send must throw")
        } catch {
            XCTAssertEqual(errorKind(error), "cancelled")
        }
        // Well before the 5 s answer (a generous bound: only the cancel can end it this early).
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
    }

    func test_givenTheConnectionClosesMidBody_thenATransportError() throws {
        let client = try makeClient()
        let error = failure(of: client.response(for: LiveJSONEndpoint(path: "close-mid-body")))
        XCTAssertEqual(error.map(errorKind), "transport")
    }

    func test_givenNothingListens_thenATransportError() throws {
        let unused = try TestServer.start()
        let base = unused.baseURL
        unused.stop()
        let client = NetworkClient(baseURL: base)
        let error = failure(of: client.request(LiveJSONEndpoint(path: "anything")))
        XCTAssertEqual(error.map(errorKind), "transport")
    }
}
