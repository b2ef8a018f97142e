import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class PipelineTests: XCTestCase {
    struct User: Decodable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    struct GetUser: Endpoint {
        typealias Response = User
        var path: String { "users/1" }
        var retryPolicy: RetryPolicy?
        var method: HTTPMethod = .get
        var timeout: TimeInterval?
    }

    struct Ping: Endpoint {
        var path: String { "ping" }
        var requiresAuthentication = true
        var timeout: TimeInterval?
        var retryPolicy: RetryPolicy?
        var sampleData: Data { Data("sample".utf8) }
    }

    struct Raw: Endpoint {
        typealias Response = HTTPResponse
        var path: String { "raw" }
    }

    struct Delete: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "users/1" }
        var method: HTTPMethod { .delete }
    }

    static let userJSON = #"{"id":1,"name":"Ada"}"#

    private func makeClient(
        _ transport: RecordingTransport,
        configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) throws -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9/api")))
        configure(&configuration)
        return NetworkClient(configuration: configuration, transport: transport)
    }

    private func policy(retries: Int) -> RetryPolicy {
        RetryPolicy(maximumRetryCount: retries, delayBeforeRetry: .milliseconds(1), jitter: 0)
    }

    private func error<T>(of promise: Promise<T>) -> NetworkError? {
        do {
            _ = try promise.wait(within: 10)
            return nil
        } catch {
            return error as? NetworkError
        }
    }

    // MARK: Deadline

    func test_givenSlowTransport_whenDeadlinePasses_thenTimedOutAndTaskCancelled() throws {
        let transport = RecordingTransport(.manual)
        let scheduler = ManualScheduler()
        let plugin = RecordingPlugin()
        let client = try makeClient(transport) {
            $0.scheduler = scheduler
            $0.plugins = [plugin]
            $0.timeout = 10
        }
        let promise = client.request(Ping())
        XCTAssertTrue(transport.waitForSends(1), "the request never reached the transport")
        XCTAssertEqual(scheduler.requestedDelays, [10])
        scheduler.advance(by: 10)
        XCTAssertEqual(error(of: promise)?.shortName, "timedOut")
        XCTAssertEqual(transport.cancelledIndices, [0])
        XCTAssertEqual(plugin.events.last, "didReceive timedOut")

        // A completion that arrives after the deadline changes nothing.
        transport.complete(0, with: .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8))))
        XCTAssertEqual(error(of: promise)?.shortName, "timedOut")
        XCTAssertEqual(plugin.results.count, 1)
    }

    func test_givenRealClock_whenTransportNeverAnswers_thenTimedOutAfterTheTimeout() throws {
        let client = try makeClient(RecordingTransport(.manual))
        let started = Date()
        XCTAssertEqual(error(of: client.request(Ping(timeout: 0.2)))?.shortName, "timedOut")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 0.19)
        XCTAssertLessThan(elapsed, 5)
    }

    func test_givenTransportThatCompletesTwice_whenSettled_thenFirstResultWins() throws {
        let transport = RecordingTransport(.immediate { _ in .success(HTTPResponse(statusCode: 200, body: Data("1".utf8))) })
        let client = try makeClient(transport)
        let promise = client.request(Ping())
        XCTAssertEqual(try promise.wait(within: 10), JSON.number(1))
        transport.complete(0, with: .success(HTTPResponse(statusCode: 500)))
        XCTAssertEqual(try promise.wait(within: 10), JSON.number(1))
    }

    func test_givenFinishedRequest_whenDone_thenItsDeadlineIsCancelled() throws {
        let scheduler = ManualScheduler()
        let client = try makeClient(RecordingTransport.answering(body: "{}")) { $0.scheduler = scheduler }
        _ = try client.request(Ping()).wait(within: 10)
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    // MARK: Retry

    func test_givenRetryableStatus_whenItKeepsFailing_thenRunsRetriesPlusOneTimes() throws {
        let transport = RecordingTransport.answering(503)
        let client = try makeClient(transport)
        let failure = error(of: client.request(Ping(retryPolicy: policy(retries: 2))))
        XCTAssertEqual(failure?.shortName, "serverError(503)")
        XCTAssertEqual(transport.sendCount, 3)
    }

    func test_givenNonRetryableStatus_whenItFails_thenRunsOnce() throws {
        let transport = RecordingTransport.answering(404)
        let client = try makeClient(transport)
        XCTAssertEqual(error(of: client.request(Ping(retryPolicy: policy(retries: 3))))?.shortName, "clientError(404)")
        XCTAssertEqual(transport.sendCount, 1)
    }

    func test_givenNonIdempotentMethod_whenRetryableStatus_thenRunsOnce() throws {
        let transport = RecordingTransport.answering(503)
        let client = try makeClient(transport)
        let endpoint = GetUser(retryPolicy: policy(retries: 3), method: .post)
        XCTAssertEqual(error(of: client.request(endpoint))?.shortName, "serverError(503)")
        XCTAssertEqual(transport.sendCount, 1)
    }

    func test_givenTransportErrorThenSuccess_whenRetried_thenDeliversTheSuccess() throws {
        let transport = RecordingTransport(.async { request in
            request.value(forHTTPHeaderField: "X-Attempt") == nil ? .failure(URLError(.networkConnectionLost))
                : .success(HTTPResponse(statusCode: 200, body: Data(PipelineTests.userJSON.utf8)))
        })
        // The plugin marks every attempt after the first one.
        struct MarkRetries: RequestPlugin {
            let counter = SharedValue(0)
            func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
                let attempt = counter.withLock { count -> Int in
                    count += 1
                    return count
                }
                var request = request
                if attempt > 1 { request.setValue("\(attempt)", forHTTPHeaderField: "X-Attempt") }
                return request
            }
        }
        let client = try makeClient(transport) { $0.plugins = [MarkRetries()] }
        XCTAssertEqual(try client.request(GetUser(retryPolicy: policy(retries: 3))).wait(within: 10), User(id: 1, name: "Ada"))
        XCTAssertEqual(transport.sendCount, 2)
    }

    /// A header a plugin adds after the builder's checks is checked before sending: it fails
    /// with `invalidRequest`, is never sent, and is not retried.
    func test_givenAPluginAddsAHeaderWithALineBreak_whenRequested_thenInvalidRequestAndNeverSent() throws {
        struct Smuggles: RequestPlugin {
            func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
                // Through `allHTTPHeaderFields`: FoundationNetworking's `setValue` drops such a value.
                var request = request
                var fields = request.allHTTPHeaderFields ?? [:]
                fields["X-Note"] = "a\r\nX-Smuggled: yes"
                request.allHTTPHeaderFields = fields
                return request
            }
        }
        let transport = RecordingTransport.answering(200, body: "{}")
        let recorder = RecordingPlugin()
        let client = try makeClient(transport) { $0.plugins = [Smuggles(), recorder] }
        XCTAssertEqual(error(of: client.request(Ping(retryPolicy: policy(retries: 3))))?.shortName, "invalidRequest")
        XCTAssertEqual(transport.sendCount, 0)
        // Never sent, so the plugins hear nothing of it (a didReceive without a willSend would
        // confuse a logging plugin's timing).
        XCTAssertEqual(recorder.events.filter { $0.hasPrefix("willSend") || $0.hasPrefix("didReceive") }, [])
    }

    /// A plugin that blocks in one of its hooks until the test lets it go, and says when it was entered.
    final class BlockingPlugin: RequestPlugin, @unchecked Sendable {
        // @unchecked: a constant and semaphores, which are thread-safe.
        enum Hook { case prepare, willSend }
        let hook: Hook
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)

        init(in hook: Hook) { self.hook = hook }

        private func block(in current: Hook) {
            guard current == hook else { return }
            entered.signal()
            _ = proceed.wait(timeout: .now() + 10)
        }

        func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
            block(in: .prepare)
            return request
        }

        func willSend(_ request: URLRequest) {
            block(in: .willSend)
        }
    }

    /// Cancelled while a plugin prepares it: the request is not sent afterwards.
    func test_givenARequestCancelledWhileAPluginPreparesIt_whenThePluginReturns_thenItIsNeverSent() throws {
        let transport = RecordingTransport.answering(200, body: "{}")
        let blocking = BlockingPlugin(in: .prepare)
        let recorder = RecordingPlugin()
        let client = try makeClient(transport) { $0.plugins = [blocking, recorder] }
        client.pause()
        let promise = client.request(Ping())
        let resumer = DispatchQueue(label: "resumer")
        resumer.async { client.resume() }   // the held attempt leaves the gate off the test thread
        XCTAssertEqual(blocking.entered.wait(timeout: .now() + 5), .success, "prepare never ran")
        promise.cancel()
        XCTAssertTrue(promise.isCancelled)
        blocking.proceed.signal()
        // Barriers: the attempt was prepared either on `resumer` or on the gate's queue.
        resumer.sync {}
        client.core.gate.queue.sync {}
        XCTAssertEqual(transport.sendCount, 0, "a cancelled request was sent")
        XCTAssertFalse(recorder.events.contains("willSend"), "willSend ran for a request never sent")
    }

    /// Cancelled after the last check before sending (here: while `willSend` runs): the request
    /// still goes out, is cancelled at once, and the plugins that heard `willSend` hear the
    /// cancellation too, as for a request cancelled in flight. (They heard nothing before.)
    func test_givenARequestCancelledDuringWillSend_whenItIsSentAnyway_thenThePluginsHearTheCancellation() throws {
        let transport = RecordingTransport(.manual)
        let blocking = BlockingPlugin(in: .willSend)
        let recorder = RecordingPlugin()
        let client = try makeClient(transport) { $0.plugins = [recorder, blocking] }
        client.pause()
        let promise = client.request(Ping())
        let resumer = DispatchQueue(label: "resumer")
        resumer.async { client.resume() }
        XCTAssertEqual(blocking.entered.wait(timeout: .now() + 5), .success, "willSend never ran")
        promise.cancel()
        blocking.proceed.signal()
        resumer.sync {}
        client.core.gate.queue.sync {}
        XCTAssertTrue(promise.isCancelled)
        XCTAssertEqual(transport.sendCount, 1)
        XCTAssertEqual(transport.cancelledIndices, [0], "the task sent after the cancellation was not cancelled")
        XCTAssertEqual(recorder.events.filter { !$0.hasPrefix("prepare") }, ["willSend", "didReceive cancelled"])
    }

    /// The deadline passes while a plugin prepares the request: it times out without being sent.
    func test_givenTheDeadlinePassesWhileAPluginPreparesIt_whenThePluginReturns_thenTimedOutAndNeverSent() throws {
        let transport = RecordingTransport.answering(200, body: "{}")
        let scheduler = ManualScheduler()
        let blocking = BlockingPlugin(in: .prepare)
        let client = try makeClient(transport) {
            $0.plugins = [blocking]
            $0.scheduler = scheduler
            $0.timeout = 10
        }
        client.pause()
        let promise = client.request(Ping())
        DispatchQueue.global().async { client.resume() }   // the held attempt leaves the gate off the test thread
        XCTAssertEqual(blocking.entered.wait(timeout: .now() + 5), .success, "prepare never ran")
        scheduler.advance(by: 10)
        blocking.proceed.signal()
        XCTAssertEqual(error(of: promise)?.shortName, "timedOut")
        XCTAssertEqual(transport.sendCount, 0, "a timed-out request was sent")
    }

    func test_givenNoRetryPolicy_whenRetryableStatus_thenRunsOnce() throws {
        let transport = RecordingTransport.answering(503)
        let client = try makeClient(transport)
        XCTAssertEqual(error(of: client.request(Ping()))?.shortName, "serverError(503)")
        XCTAssertEqual(transport.sendCount, 1)
    }

    func test_givenRequestWaitingToRetry_whenCancelled_thenNeverRetried() throws {
        let transport = RecordingTransport.answering(503)
        let scheduler = ManualScheduler()
        let client = try makeClient(transport) { $0.scheduler = scheduler }
        let promise = client.request(Ping(retryPolicy: RetryPolicy(
            maximumRetryCount: 3, delayBeforeRetry: .seconds(2), jitter: 0)))
        XCTAssertTrue(scheduler.waitForScheduled(2), "the retry wait was never scheduled")
        XCTAssertEqual(scheduler.requestedDelays.last, 2)
        promise.cancel()
        scheduler.advance(by: 100)
        XCTAssertTrue(promise.isCancelled)
        XCTAssertEqual(transport.sendCount, 1)
        XCTAssertEqual(scheduler.pendingCount, 0)
    }

    func test_givenAttemptTimesOut_whenPolicyRetriesTimeouts_thenNextAttemptGetsAFreshDeadline() throws {
        let transport = RecordingTransport(.manual)
        let scheduler = ManualScheduler()
        let client = try makeClient(transport) { $0.scheduler = scheduler }
        let promise = client.request(Ping(
            timeout: 5, retryPolicy: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1), jitter: 0)))
        func waitForSends(_ count: Int) {
            XCTAssertTrue(transport.waitForSends(count), "\(count) sends never happened")
        }
        waitForSends(1)
        scheduler.advance(by: 5)      // attempt 1 times out; the retry waits 1 s
        XCTAssertTrue(promise.isPending)
        scheduler.advance(by: 1)
        waitForSends(2)
        XCTAssertEqual(scheduler.requestedDelays, [5, 1, 5])
        transport.complete(1, with: .success(HTTPResponse(statusCode: 200, body: Data("true".utf8))))
        XCTAssertEqual(try promise.wait(within: 10), JSON.bool(true))
    }

    // MARK: Plugins and credentials

    func test_givenPlugins_whenRequestRetried_thenTheySeeEveryAttemptInOrder() throws {
        let transport = RecordingTransport.statuses([503, 503, 200])
        let plugin = RecordingPlugin(addingHeader: ("X-Plugin", "yes"))
        let client = try makeClient(transport) { $0.plugins = [plugin] }
        _ = try client.request(Ping(retryPolicy: policy(retries: 5))).wait(within: 10)
        let attempt = ["prepare ping", "willSend"]
        XCTAssertEqual(plugin.events,
                       attempt + ["didReceive serverError(503)"] + attempt + ["didReceive serverError(503)"]
                        + attempt + ["didReceive 200"])
        XCTAssertEqual(transport.requests.map { $0.value(forHTTPHeaderField: "X-Plugin") }, ["yes", "yes", "yes"])
    }

    func test_givenAuthenticator_whenRequestLeavesTheGate_thenCredentialAppliedOnlyWhenRequired() throws {
        let transport = RecordingTransport.answering(body: "{}")
        let client = try makeClient(transport) { $0.authenticator = HeaderAuthenticator(token: "t1") }
        _ = try client.request(Ping()).wait(within: 10)
        _ = try client.request(Ping(requiresAuthentication: false)).wait(within: 10)
        XCTAssertEqual(transport.requests.map { $0.value(forHTTPHeaderField: "Authorization") }, ["Bearer t1", nil])
    }

    func test_givenAuthenticationFailure_whenRefreshFails_thenAuthenticationFailedAndNoRetry() throws {
        let transport = RecordingTransport.answering(401, body: #"{"error":{"message":"expired"}}"#)
        let client = try makeClient(transport) { $0.authenticator = HeaderAuthenticator(token: "t1") }
        XCTAssertEqual(error(of: client.request(Ping(retryPolicy: policy(retries: 2))))?.shortName, "authenticationFailed")
        XCTAssertEqual(transport.sendCount, 1)
    }

    func test_givenUnauthorizedWithoutAuthenticator_whenSent_thenPlainClientError() throws {
        let transport = RecordingTransport.answering(401)
        let client = try makeClient(transport)
        XCTAssertEqual(error(of: client.request(Ping()))?.shortName, "clientError(401)")
    }

    func test_givenEndpoint_whenSent_thenTransportContextDescribesIt() throws {
        let transport = RecordingTransport.answering(body: "{}")
        let client = try makeClient(transport) { $0.maximumResponseSize = 1234 }
        _ = try client.request(Ping()).wait(within: 10)
        let context = try XCTUnwrap(transport.contexts.first)
        XCTAssertEqual(context.method, .get)
        XCTAssertEqual(context.endpointPath, "ping")
        XCTAssertEqual(context.sampleData, Data("sample".utf8))
        XCTAssertEqual(context.maximumResponseSize, 1234)
        XCTAssertEqual(transport.requests.first?.url?.absoluteString, "http://127.0.0.1:9/api/ping")
    }

    // MARK: Decoding

    func test_givenResponseKinds_whenDecoded_thenJSONRawAndDecodableAllWork() throws {
        let client = try makeClient(RecordingTransport.answering(body: PipelineTests.userJSON))
        XCTAssertEqual(try client.request(GetUser()).wait(within: 10), User(id: 1, name: "Ada"))
        XCTAssertEqual(try client.request(Ping()).wait(within: 10)["name"].string, "Ada")
        XCTAssertEqual(try client.request(Raw()).wait(within: 10).body, Data(PipelineTests.userJSON.utf8))

        let empty = try makeClient(RecordingTransport.answering(204))
        XCTAssertEqual(try empty.request(Ping()).wait(within: 10), JSON.null)
    }

    /// `EmptyResponse` never reads the body (an empty 204, or a body that is not JSON, both
    /// succeed in every style), but the status is still classified.
    func test_givenEmptyResponseEndpoint_whenAnyBodyArrives_thenItSucceedsButAFailingStatusStillRejects() async throws {
        let noContent = try makeClient(RecordingTransport.answering(204))
        XCTAssertEqual(try noContent.request(Delete()).wait(within: 10), EmptyResponse())
        let notJSON = try makeClient(RecordingTransport.answering(body: "<html>deleted</html>"))
        let sent = try await notJSON.send(Delete())
        XCTAssertEqual(sent, EmptyResponse())
        let completed = expectation(description: "completion")
        notJSON.request(Delete()) { result in
            if case .success(let value) = result, value == EmptyResponse() { completed.fulfill() }
        }
        await fulfillment(of: [completed], timeout: 10)
        let missing = try makeClient(RecordingTransport.answering(404, body: #"{"message":"no such user"}"#))
        let rejection = error(of: missing.request(Delete()))
        XCTAssertEqual(rejection?.shortName, "clientError(404)")
        XCTAssertEqual(rejection?.metadata?.message, "no such user")
        XCTAssertEqual(String(decoding: try JSONEncoder().encode(EmptyResponse()), as: UTF8.self), "{}")
    }

    func test_givenUndecodableBody_whenDecoded_thenDecodingFailedCarriesTheResponse() throws {
        let client = try makeClient(RecordingTransport.answering(body: "not json"))
        guard case .decodingFailed(_, let response)? = error(of: client.request(GetUser())) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertEqual(response.body, Data("not json".utf8))
        XCTAssertEqual(error(of: client.request(Ping()))?.shortName, "decodingFailed")
    }

    func test_givenResponseForEndpoint_whenStatusFails_thenClassifiedButNotDecoded() throws {
        let ok = try makeClient(RecordingTransport.answering(body: "not json"))
        XCTAssertEqual(try ok.response(for: GetUser()).wait(within: 10).body, Data("not json".utf8))
        let failing = try makeClient(RecordingTransport.answering(500, body: "oops"))
        XCTAssertEqual(error(of: failing.response(for: GetUser()))?.shortName, "serverError(500)")
        let odd = try makeClient(RecordingTransport.answering(304))
        XCTAssertEqual(error(of: odd.response(for: GetUser()))?.shortName, "unexpectedStatus(304)")
    }
}
