import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Progress reports: what they say, where and when they run, and that none arrives after the
/// request settled.
final class ProgressTests: XCTestCase {
    private struct Upload: Endpoint {
        var path: String { "uploads" }
        var method: HTTPMethod { .post }
        var body: RequestBody { .data(Data(count: 3000), contentType: "application/octet-stream") }
    }

    /// Reports once before answering and once after, to show where the relay draws the line.
    private struct ReportingTransport: HTTPTransport {
        struct Task: TransportTask { func cancel() {} }
        let early = TransferProgress(bytesSent: 10, totalBytesToSend: 20)
        let late = TransferProgress(bytesSent: 20, totalBytesToSend: 20, bytesReceived: 2, totalBytesToReceive: 2)

        func send(
            _ request: URLRequest, context: TransportContext,
            completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
        ) -> any TransportTask {
            context.progress?(early)
            completion(.success(HTTPResponse(statusCode: 200, body: Data("{}".utf8), url: request.url)))
            context.progress?(late)
            return Task()
        }
    }

    private struct RetriedUpload: Endpoint {
        var retryPolicy: RetryPolicy?
        var path: String { "uploads" }
        var method: HTTPMethod { .put }
        var body: RequestBody { .data(Data(count: 100), contentType: "application/octet-stream") }
    }

    private func baseURL() throws -> URL { try XCTUnwrap(URL(string: "https://api.example.test")) }

    func test_givenACompletionHandlerAndProgress_whenAStubAnswers_thenOneFullReportRunsBeforeTheCompletion() throws {
        let callbacks = DispatchQueue(label: "progress.callbacks")
        let onCallbacks = DispatchSpecificKey<Bool>()
        callbacks.setSpecific(key: onCallbacks, value: true)
        var configuration = NetworkClient.Configuration(baseURL: try baseURL())
        configuration.callbackQueue = callbacks
        let client = NetworkClient.stubbing().body(json: #"{"id":7}"#).makeClient(configuration: configuration)
        let events = Recorder()
        let finished = expectation(description: "completion")
        client.request(Upload(), progress: ProgressHandler { progress in
            let where_ = DispatchQueue.getSpecific(key: onCallbacks) == true ? "" : " (off the callback queue)"
            events.record("progress \(progress)\(where_)")
        }) { result in
            events.record((try? result.get()["id"].int).map { "completion \($0)" } ?? "completion failed")
            finished.fulfill()
        }
        wait(for: [finished], timeout: 10)
        XCTAssertEqual(events.values, [
            "progress sent 3000 of 3000 bytes, received 8 of 8 bytes",
            "completion 7",
        ])
    }

    func test_givenAFileBody_whenAStubAnswers_thenTheReportCountsTheFilesBytesAsSent() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("progress-\(UUID().uuidString).bin")
        try Data(count: 5000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let client = NetworkClient.stubbing().body(json: "{}").makeClient()
        let reports = Recorder()
        let queue = DispatchQueue(label: "progress.reports")
        let upload = Request<JSON>.post("uploads", body: .file(file, contentType: "application/octet-stream"))
        XCTAssertEqual(outcomeName(settle(client.request(upload, progress: ProgressHandler(queue: queue) { reports.record("\($0)") }))), "ok")
        queue.sync {}
        XCTAssertEqual(reports.values, ["sent 5000 of 5000 bytes, received 2 of 2 bytes"])
    }

    func test_givenAStreamingStub_whenTheRequestDoesNotStream_thenEachPieceIsReportedAsItWouldArrive() throws {
        let clock = VirtualClock()
        var configuration = NetworkClient.Configuration(baseURL: try baseURL())
        configuration.scheduler = clock
        let client = NetworkClient.stubbing()
            .sequence([.streaming([Data("{}".utf8), Data("  ".utf8)], every: 1)])
            .makeClient(configuration: configuration)
        let reports = Recorder()
        let queue = DispatchQueue(label: "progress.reports")
        let promise = client.request(Request<JSON>("joined"), progress: ProgressHandler(queue: queue) { reports.record("\($0)") })
        for second in 1...2 {
            XCTAssertTrue(clock.waitUntilPending(dueAt: Double(second)), "piece \(second)")
            clock.advance(by: 1)
            // A report waiting on the queue would be replaced by a newer one: let it run first.
            XCTAssertTrue(eventually { reports.values.count == second }, "report \(second)")
        }
        XCTAssertEqual(outcomeName(settle(promise)), "ok")
        XCTAssertEqual(reports.values, ["sent 0 of 0 bytes, received 2 of 4 bytes", "sent 0 of 0 bytes, received 4 of 4 bytes"])
    }

    func test_givenAStubFailure_whenProgressIsRequested_thenNoReportArrives() throws {
        let client = NetworkClient.stubbing().failure(URLError(.notConnectedToInternet)).makeClient()
        let reports = Recorder()
        let queue = DispatchQueue(label: "progress.reports")
        let result = settle(client.request(Upload(), progress: ProgressHandler(queue: queue) { reports.record("\($0)") }))
        XCTAssertEqual(networkError(result)?.shortName, "transport")
        queue.sync {}
        XCTAssertEqual(reports.values, [])
    }

    /// Every style: a report made before the transport answers arrives; one made after the
    /// request settled never does.
    func test_givenATransportReportingAfterItAnswered_whenTheRequestSettled_thenTheLateReportIsDropped() async throws {
        let transport = ReportingTransport()
        let client = NetworkClient(configuration: .init(baseURL: try baseURL()), transport: transport)
        let queue = DispatchQueue(label: "progress.reports")
        let reports = SharedValue<[TransferProgress]>([])
        let handler = ProgressHandler(queue: queue) { progress in reports.withLock { $0.append(progress) } }

        _ = try await client.request(Upload(), progress: handler).value
        _ = try await client.send(Upload(), progress: handler)
        let completed = expectation(description: "completion")
        client.request(Upload(), progress: handler) { _ in completed.fulfill() }
        await fulfillment(of: [completed], timeout: 10)

        queue.sync {}
        XCTAssertEqual(reports.withLock { $0 }, Array(repeating: transport.early, count: 3))
    }

    /// A retried request reports from zero for its new attempt; what the first attempt's
    /// transport reports after that attempt ended never reaches the handler.
    func test_givenARetriedRequest_whenTheFirstAttemptReportsLate_thenOnlyTheCurrentAttemptsReportsArrive() throws {
        let transport = RecordingTransport(.manual)
        let client = NetworkClient(configuration: .init(baseURL: try baseURL()), transport: transport)
        let queue = DispatchQueue(label: "progress.reports")
        let reports = SharedValue<[Int64]>([])
        let retry = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0)
        let endpoint = RetriedUpload(retryPolicy: retry)
        let promise = client.request(endpoint, progress: ProgressHandler(queue: queue) { progress in
            reports.withLock { $0.append(progress.bytesSent) }
        })
        XCTAssertTrue(transport.waitForSends(1))
        let first = try XCTUnwrap(transport.contexts.first?.progress)
        first(TransferProgress(bytesSent: 10, totalBytesToSend: 100))
        queue.sync {}
        transport.complete(0, with: .success(HTTPResponse(statusCode: 503)))
        XCTAssertTrue(transport.waitForSends(2))
        let second = try XCTUnwrap(transport.contexts.last?.progress)
        first(TransferProgress(bytesSent: 90, totalBytesToSend: 100))  // late, from the abandoned attempt
        queue.sync {}
        second(TransferProgress(bytesSent: 5, totalBytesToSend: 100))
        queue.sync {}
        transport.complete(1, with: .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8))))
        _ = try promise.wait(within: 10)
        queue.sync {}
        XCTAssertEqual(reports.withLock { $0 }, [10, 5])
    }

    /// `send(_:progress:)` returns only after its reports ran on a serial handler queue.
    /// An attempt's start is announced outside the request's lock, so a retry that began
    /// meanwhile can announce its own first; the older announcement must not silence it.
    func test_givenARetryAnnouncedFirst_whenTheOlderAttemptsStartArrivesLate_thenTheRetrysReportsStillArrive() {
        let queue = DispatchQueue(label: "progress.relay")
        let received = SharedValue<[Int64]>([])
        let relay = ProgressRelay(ProgressHandler(queue: queue) { progress in
            received.withLock { $0.append(progress.bytesSent) }
        }, defaultQueue: queue)

        relay.begin(attempt: 2)
        relay.begin(attempt: 1)
        relay.reporter(forAttempt: 2)(TransferProgress(bytesSent: 7))
        relay.reporter(forAttempt: 1)(TransferProgress(bytesSent: 1))
        queue.sync {}

        XCTAssertEqual(received.withLock { $0 }, [7], "the retry's report arrives, the overtaken attempt's does not")
    }

    func test_givenSendWithProgress_whenItReturns_thenEveryReportHasRun() async throws {
        let client = NetworkClient.stubbing().body(json: "{}").makeClient()
        let queue = DispatchQueue(label: "progress.send")
        let reports = SharedValue<Int>(0)
        for _ in 0..<20 {
            _ = try await client.send(Upload(), progress: ProgressHandler(queue: queue) { _ in
                reports.withLock { $0 += 1 }
            })
        }
        XCTAssertEqual(reports.withLock { $0 }, 20)
    }

    /// Reports that come faster than the handler's queue runs them are coalesced: the handler
    /// sees fewer reports, in order, ending with the newest.
    func test_givenABurstOfReportsWhileTheQueueIsBusy_thenOnlyTheNewestWaitingOneRuns() throws {
        let transport = RecordingTransport(.manual)
        let client = NetworkClient(configuration: .init(baseURL: try baseURL()), transport: transport)
        let queue = DispatchQueue(label: "progress.burst")
        let reports = SharedValue<[Int64]>([])
        let promise = client.request(Upload(), progress: ProgressHandler(queue: queue) { progress in
            reports.withLock { $0.append(progress.bytesReceived) }
        })
        XCTAssertTrue(transport.waitForSends(1))
        let report = try XCTUnwrap(transport.contexts.first?.progress)
        queue.suspend()
        for received in 1...1_000 { report(TransferProgress(bytesReceived: Int64(received))) }
        queue.resume()
        queue.sync {}
        transport.complete(0, with: .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8))))
        _ = try promise.wait(within: 10)
        XCTAssertEqual(reports.withLock { $0 }, [1_000])
    }

    func test_givenNoProgressHandler_thenTheTransportIsAskedForNoReports() throws {
        let transport = RecordingTransport.answering(body: "{}")
        let client = NetworkClient(configuration: .init(baseURL: try baseURL()), transport: transport)
        _ = try client.request(Upload()).wait(within: 10)
        _ = try client.request(Upload(), progress: ProgressHandler { _ in }).wait(within: 10)
        XCTAssertEqual(transport.contexts.map { $0.progress == nil }, [true, false])
    }

    func test_givenReports_thenTheFractionsAreBoundedAndUnknownTotalsGiveNil() {
        XCTAssertEqual(TransferProgress(bytesSent: 5, totalBytesToSend: 10).sendFraction, 0.5)
        XCTAssertEqual(TransferProgress(bytesSent: 0, totalBytesToSend: 0).sendFraction, 1, "no body counts as sent")
        XCTAssertEqual(TransferProgress(bytesReceived: 12, totalBytesToReceive: 10).receiveFraction, 1, "capped at 1")
        XCTAssertNil(TransferProgress(bytesReceived: 12).receiveFraction)
        XCTAssertNil(TransferProgress(bytesSent: 1, totalBytesToSend: -1).sendFraction)
        XCTAssertEqual(TransferProgress(bytesReceived: 3).description, "sent 0 bytes, received 3 bytes")
    }

    /// A thread-safe list of strings.
    private final class Recorder: Sendable {
        private let box = SharedValue<[String]>([])
        var values: [String] { box.withLock { $0 } }
        func record(_ value: String) { box.withLock { $0.append(value) } }
    }
}
