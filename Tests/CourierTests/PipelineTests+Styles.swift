import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The three delivery styles share one pipeline: same results, same errors, same cancellation.
final class PipelineStyleTests: XCTestCase {
    typealias User = PipelineTests.User
    typealias GetUser = PipelineTests.GetUser

    private func makeClient(
        _ transport: RecordingTransport, callbackQueue: DispatchQueue? = nil
    ) throws -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        if let callbackQueue { configuration.callbackQueue = callbackQueue }
        return NetworkClient(configuration: configuration, transport: transport)
    }

    /// A serial queue whose specific value for the returned key is "mine".
    private func markedQueue() -> (DispatchQueue, DispatchSpecificKey<String>) {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "test.callbacks")
        queue.setSpecific(key: key, value: "mine")
        return (queue, key)
    }

    /// The outcome of each style, as "ok <value>" or the error's case name.
    private func outcomes(_ client: NetworkClient) async throws -> [String] {
        func describe(_ result: Result<User, NetworkError>) -> String {
            switch result {
            case .success(let user): "ok \(user.name)"
            case .failure(let error): error.shortName
            }
        }
        let promised: Result<User, NetworkError> = await {
            do { return .success(try await client.request(GetUser()).value) } catch {
                return .failure(error as? NetworkError ?? .transport(underlying: error))
            }
        }()
        let awaited: Result<User, NetworkError> = await {
            do { return .success(try await client.send(GetUser())) } catch {
                return .failure(error as? NetworkError ?? .transport(underlying: error))
            }
        }()
        let completed = await withCheckedContinuation { continuation in
            client.request(GetUser()) { continuation.resume(returning: $0) }
        }
        return [describe(promised), describe(awaited), describe(completed)]
    }

    func test_givenEachOutcome_whenDeliveredByEachStyle_thenAllThreeAgree() async throws {
        let cases: [(RecordingTransport, String)] = [
            (.answering(body: PipelineTests.userJSON), "ok Ada"),
            (.answering(404), "clientError(404)"),
            (.answering(502), "serverError(502)"),
            (.answering(body: "{}"), "decodingFailed"),
            (RecordingTransport(.immediate { _ in .failure(URLError(.cannotConnectToHost)) }), "transport"),
            (RecordingTransport(.immediate { _ in .failure(URLError(.timedOut)) }), "timedOut"),
        ]
        for (transport, expected) in cases {
            let results = try await outcomes(try makeClient(transport))
            XCTAssertEqual(results, [expected, expected, expected])
        }
    }

    func test_givenACompletionHandlersTypedResult_whenAResolverSettlesFromIt_thenThePromiseKeepsTheNetworkError() throws {
        let failing = try makeClient(.answering(404))
        let bridged = Promise<User> { seal in failing.request(GetUser()) { seal.resolve($0) } }
        XCTAssertEqual(outcomeName(settle(bridged)), "clientError(404)")
        let succeeding = try makeClient(.answering(body: PipelineTests.userJSON))
        let passed = Promise<User> { seal in succeeding.request(GetUser(), completion: seal.resolve) }
        XCTAssertEqual(try settle(passed)?.get(), User(id: 1, name: "Ada"))
    }

    func test_givenCustomCallbackQueue_whenCompleted_thenCompletionRunsOnIt() throws {
        let (queue, key) = markedQueue()
        let client = try makeClient(.answering(body: PipelineTests.userJSON), callbackQueue: queue)
        let done = expectation(description: "completion")
        client.request(GetUser()) { result in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "mine")
            XCTAssertEqual(try? result.get(), User(id: 1, name: "Ada"))
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    func test_givenACallbackQueueForOneCall_whenCompleted_thenThatCallRunsOnItAndOthersOnTheClients() throws {
        let (clientQueue, clientKey) = markedQueue()
        let callKey = DispatchSpecificKey<String>()
        let callQueue = DispatchQueue(label: "test.call")
        callQueue.setSpecific(key: callKey, value: "call")
        let client = try makeClient(.answering(body: PipelineTests.userJSON), callbackQueue: clientQueue)
        let done = expectation(description: "completions")
        done.expectedFulfillmentCount = 3
        client.request(GetUser(), callbackQueue: callQueue) { result in
            XCTAssertEqual(DispatchQueue.getSpecific(key: callKey), "call")
            XCTAssertNil(DispatchQueue.getSpecific(key: clientKey))
            XCTAssertEqual(try? result.get(), User(id: 1, name: "Ada"))
            done.fulfill()
        }
        client.request(GetUser(), callbackQueue: nil) { _ in
            XCTAssertEqual(DispatchQueue.getSpecific(key: clientKey), "mine", "nil means the client's queue")
            done.fulfill()
        }
        client.request(GetUser()) { _ in
            XCTAssertEqual(DispatchQueue.getSpecific(key: clientKey), "mine")
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    func test_givenACallbackQueueForOneCall_whenTheRequestCannotBeBuilt_thenTheHandlerRunsOnIt() throws {
        let (queue, key) = markedQueue()
        let client = try makeClient(.answering(body: PipelineTests.userJSON))
        let done = expectation(description: "completion")
        client.request(StubJSONEndpoint(path: "x", headers: ["Bad Name": "v"]), callbackQueue: queue) { result in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "mine")
            guard case .failure(.invalidRequest) = result else { return XCTFail("got \(result)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    func test_givenACallbackQueueForOneCall_whenProgressNamesNoQueue_thenReportsRunThereBeforeTheCompletion() throws {
        let (queue, key) = markedQueue()
        let client = NetworkClient.stubbing().body(json: #"{"id":1,"name":"Ada"}"#).makeClient()
        let events = SharedValue<[String]>([])
        let done = expectation(description: "completion")
        let progress = ProgressHandler { _ in
            events.withLock { $0.append(DispatchQueue.getSpecific(key: key) == "mine" ? "report" : "report elsewhere") }
        }
        client.request(GetUser(), callbackQueue: queue, progress: progress) { _ in
            events.withLock { $0.append(DispatchQueue.getSpecific(key: key) == "mine" ? "completion" : "completion elsewhere") }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(events.withLock { $0 }, ["report", "completion"])
    }

    func test_givenDefaultCallbackQueue_whenCompleted_thenNotTheMainThread() throws {
        let client = try makeClient(.answering(404))
        XCTAssertEqual(client.configuration.callbackQueue.label, "courier.callbacks")
        let done = expectation(description: "completion")
        client.request(GetUser()) { result in
            XCTAssertFalse(Thread.isMainThread)
            if case .failure(.clientError(404, _, _)) = result {} else { XCTFail("got \(result)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }

    func test_givenInFlightRequest_whenCompletionTaskCancelled_thenCancelledAndTransportTaskCancelled() throws {
        let transport = RecordingTransport(.manual)
        let (queue, _) = markedQueue()
        let client = try makeClient(transport, callbackQueue: queue)
        let cancelled = expectation(description: "cancelled")
        let calls = SharedValue(0)
        let task = client.request(GetUser()) { result in
            calls.withLock { $0 += 1 }
            if case .failure(.cancelled) = result { cancelled.fulfill() } else { XCTFail("got \(result)") }
        }
        XCTAssertTrue(transport.waitForSends(1), "the request never reached the transport")
        task.cancel()
        wait(for: [cancelled], timeout: 5)
        XCTAssertEqual(transport.cancelledIndices, [0])
        task.cancel()  // a second cancel does nothing
        transport.complete(0, with: .success(HTTPResponse(statusCode: 200, body: Data(PipelineTests.userJSON.utf8))))
        // Anything the late completion delivered would be queued on the callback queue by now.
        queue.sync {}
        XCTAssertEqual(calls.withLock { $0 }, 1, "the handler ran again")
        XCTAssertEqual(transport.cancelledIndices, [0], "the second cancel reached the transport")
    }

    func test_givenInFlightRequest_whenAwaitingTaskCancelled_thenSendThrowsNetworkCancelled() async throws {
        let transport = RecordingTransport(.manual)
        let client = try makeClient(transport)
        let task = Task { try await client.send(GetUser()) }
        let sent = await transport.sends(1)
        XCTAssertTrue(sent, "the request never reached the transport")
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected a cancellation")
        } catch {
            XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled")
        }
        XCTAssertEqual(transport.cancelledIndices, [0])
    }

    func test_givenChainedPromise_whenLastLinkCancelled_thenRequestIsCancelled() throws {
        let transport = RecordingTransport(.manual)
        let client = try makeClient(transport)
        let chained = client.request(GetUser()).map { $0.name }
        XCTAssertTrue(transport.waitForSends(1), "the request never reached the transport")
        chained.cancel()
        XCTAssertEqual(transport.cancelledIndices, [0])
    }

    func test_givenInvalidEndpoint_whenRequestedInEachStyle_thenInvalidRequestEverywhere() async throws {
        struct Escape: Endpoint { var path: String { "../secret" } }
        let transport = RecordingTransport.answering(body: "{}")
        let client = try makeClient(transport)
        do {
            _ = try await client.send(Escape())
            XCTFail("expected invalidRequest")
        } catch {
            XCTAssertEqual((error as? NetworkError)?.shortName, "invalidRequest")
        }
        let result = await withCheckedContinuation { continuation in
            client.request(Escape()) { continuation.resume(returning: $0) }
        }
        if case .failure(.invalidRequest) = result {} else { XCTFail("got \(result)") }
        XCTAssertEqual(transport.sendCount, 0)
    }

    // MARK: Completion style without a promise

    /// A transport that drops its completion without calling it (a bug a custom transport can have).
    private struct ForgetfulTransport: HTTPTransport {
        private struct NothingToCancel: TransportTask {
            func cancel() {}
        }

        func send(
            _ request: URLRequest, context: TransportContext,
            completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
        ) -> any TransportTask {
            NothingToCancel()
        }
    }

    func test_givenATransportThatDropsItsCompletionAndNoDeadline_whenCompletionStyle_thenTheHandlerStillRuns() throws {
        let configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        let client = NetworkClient(configuration: configuration, transport: ForgetfulTransport())
        let done = expectation(description: "completion")
        let task = client.request(StubJSONEndpoint(path: "x", timeout: .infinity)) { result in
            guard case .failure(.transport(let underlying)) = result,
                  underlying as? PromiseError == .resolverReleased else { return XCTFail("got \(result)") }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        withExtendedLifetime(task) {}  // a task kept by the caller does not keep the request waiting
    }

    /// The promise's cancel hook holds the request weakly, as the other styles do: a strong
    /// hook kept the request alive from its own promise, so it never reached the `deinit` that
    /// rejects it, and the promise stayed pending for ever.
    func test_givenATransportThatDropsItsCompletionAndNoDeadline_whenPromiseStyle_thenThePromiseStillRejects() throws {
        let configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        let client = NetworkClient(configuration: configuration, transport: ForgetfulTransport())
        let promise = client.request(StubJSONEndpoint(path: "x", timeout: .infinity))
        guard case .transport(let underlying)? = networkError(settle(promise)) else {
            return XCTFail("got \(String(describing: promise.result))")
        }
        XCTAssertEqual(underlying as? PromiseError, .resolverReleased)
    }

    func test_givenATransportThatDropsItsCompletionAndNoDeadline_whenSending_thenTheTaskStillResumes() async throws {
        let configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9")))
        let client = NetworkClient(configuration: configuration, transport: ForgetfulTransport())
        // This is the hang the test guards against: bound it, so that a regression fails
        // instead of stopping the suite.
        let outcome = SharedValue<String?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Task {
            do {
                _ = try await client.send(StubJSONEndpoint(path: "x", timeout: .infinity))
                outcome.withLock { $0 = "succeeded" }
            } catch NetworkError.transport(let underlying) where underlying as? PromiseError == .resolverReleased {
                outcome.withLock { $0 = "resolverReleased" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
            finished.signal()
        }
        // Waited for on a global queue, so no thread of the cooperative pool is blocked.
        let resumed = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: finished.wait(timeout: .now() + 5) == .success) }
        }
        XCTAssertTrue(resumed, "send never resumed")
        XCTAssertEqual(outcome.withLock { $0 }, "resolverReleased")
    }

    func test_givenTheCompletionStyle_whenTheRequestCannotBeBuilt_thenTheHandlerRunsOnTheCallbackQueue() throws {
        let (queue, key) = markedQueue()
        let client = try makeClient(.answering(body: PipelineTests.userJSON), callbackQueue: queue)
        let done = expectation(description: "completion")
        let task = client.request(StubJSONEndpoint(path: "x", headers: ["Bad Name": "v"])) { result in
            XCTAssertEqual(DispatchQueue.getSpecific(key: key), "mine")
            guard case .failure(.invalidRequest) = result else { return XCTFail("got \(result)") }
            done.fulfill()
        }
        task.cancel()  // nothing to cancel: the handler still reports why the request never left
        wait(for: [done], timeout: 5)
    }

    // MARK: Async style without a promise

    func test_givenAnAlreadyCancelledTask_whenSending_thenCancelledAndNothingIsSent() async throws {
        let transport = RecordingTransport(.manual)
        let client = try makeClient(transport)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(GetUser())
        }
        do {
            _ = try await task.value
            XCTFail("expected a cancellation")
        } catch {
            XCTAssertEqual((error as? NetworkError)?.shortName, "cancelled")
        }
        XCTAssertEqual(transport.sendCount, 0)
    }

    func test_givenARequestThatCannotBeBuilt_whenSending_thenInvalidRequest() async throws {
        let client = try makeClient(.answering(body: PipelineTests.userJSON))
        do {
            _ = try await client.send(StubJSONEndpoint(path: "x", headers: ["Bad Name": "v"]))
            XCTFail("expected invalidRequest")
        } catch {
            XCTAssertEqual((error as? NetworkError)?.shortName, "invalidRequest")
        }
    }

    func test_givenManyConcurrentSendsCancelledAtRandom_whenSettled_thenEachEndsOnceAsSentOrCancelled() async throws {
        let client = try makeClient(.answering(body: PipelineTests.userJSON))
        let outcomes = await withTaskGroup(of: (Int, String).self) { group -> [Int: String] in
            for index in 0..<2_000 {
                let task = Task { () -> String in
                    do {
                        return "ok \(try await client.send(GetUser()).name)"
                    } catch {
                        return (error as? NetworkError)?.shortName ?? "\(error)"
                    }
                }
                if index.isMultiple(of: 3) { task.cancel() }
                group.addTask { (index, await task.value) }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        XCTAssertEqual(outcomes.count, 2_000)
        for (index, outcome) in outcomes {
            if index.isMultiple(of: 3) {
                // Cancelled at some point of its life: either it finished first or it was cancelled.
                XCTAssertTrue(["ok Ada", "cancelled"].contains(outcome), "request \(index): \(outcome)")
            } else {
                XCTAssertEqual(outcome, "ok Ada", "request \(index) was never cancelled")
            }
        }
    }
}
