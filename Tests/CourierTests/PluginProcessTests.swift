import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestPlugin.process(_:for:endpoint:)`: plugins that change an attempt's outcome before the
/// retry decision, decoding and delivery.
final class PluginProcessTests: XCTestCase {
    private struct Profile: Decodable, Sendable { let name: String }

    /// Runs `body` as its `process`, recording the status or error name of every result it gets.
    // @unchecked: `seen` is only read and written while holding `lock`; `body` is Sendable.
    private final class Processor: RequestPlugin, @unchecked Sendable {
        private let lock = NSLock()
        private var _seen: [String] = []
        private var _finished: [String] = []
        let body: @Sendable (Result<HTTPResponse, NetworkError>) -> Result<HTTPResponse, NetworkError>

        init(_ body: @escaping @Sendable (Result<HTTPResponse, NetworkError>) -> Result<HTTPResponse, NetworkError> = { $0 }) {
            self.body = body
        }

        var seen: [String] { lock.withLock { _seen } }
        var finished: [String] { lock.withLock { _finished } }

        func process(
            _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint
        ) -> Result<HTTPResponse, NetworkError> {
            lock.withLock { _seen.append(Self.name(result)) }
            return body(result)
        }

        func didFinish(
            _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint,
            metrics: RequestMetrics
        ) {
            lock.withLock { _finished.append(Self.name(result)) }
        }

        static func name(_ result: Result<HTTPResponse, NetworkError>) -> String {
            switch result {
            case .success(let response): "\(response.statusCode) \(String(decoding: response.body, as: UTF8.self))"
            case .failure(let error): error.shortName
            }
        }
    }

    private func client(
        _ builder: StubbingBuilder, plugins: [any RequestPlugin], configure: (inout NetworkClient.Configuration) -> Void = { _ in }
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = plugins
        configure(&configuration)
        return builder.makeClient(configuration: configuration)
    }

    private static func replacingBody(_ response: HTTPResponse, with json: String) -> HTTPResponse {
        var response = response
        response.body = Data(json.utf8)
        return response
    }

    private static let oneRetry = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0)

    func test_givenAnErrorInsideA200_whenProcessedIntoAClientError_thenTheCallerAndDidFinishGetIt() {
        let processor = Processor { result in
            guard case .success(let response) = result, (try? JSON(data: response.body))?["ok"].bool == false else { return result }
            return .failure(.clientError(statusCode: 422, metadata: ServerMetadata.parse(response), response: response))
        }
        let client = client(
            NetworkClient.stubbing().body(json: #"{"ok":false,"message":"Quota exceeded"}"#), plugins: [processor])
        let error = networkError(settle(client.request(Request<JSON>("quota"))))
        XCTAssertEqual(error?.shortName, "clientError(422)")
        XCTAssertEqual(error?.metadata?.message, "Quota exceeded")
        XCTAssertEqual(processor.finished, ["clientError(422)"])
    }

    func test_givenABodyRewrite_whenProcessed_thenTheRewrittenBodyIsDecoded() throws {
        let unwrap = Processor { result in
            guard case .success(let response) = result, let inner = try? JSON(data: response.body)["data"],
                  let data = try? JSONEncoder().encode(inner) else { return result }
            var unwrapped = response
            unwrapped.body = data
            return .success(unwrapped)
        }
        let client = client(NetworkClient.stubbing().body(json: #"{"data":{"name":"Ada"}}"#), plugins: [unwrap])
        XCTAssertEqual(try client.request(Request<Profile>("me")).wait(within: 5).name, "Ada")
    }

    func test_givenSeveralPlugins_whenProcessed_thenEachGetsWhatTheOneBeforeReturnedInArrayOrder() throws {
        let first = Processor { result in
            guard case .success(let response) = result else { return result }
            return .success(Self.replacingBody(response, with: #"{"name":"first"}"#))
        }
        let second = Processor { result in
            guard case .success(let response) = result, let name = try? JSON(data: response.body)["name"].string else { return result }
            return .success(Self.replacingBody(response, with: #"{"name":"\#(name), second"}"#))
        }
        let client = client(NetworkClient.stubbing().body(json: #"{"name":"server"}"#), plugins: [first, second])
        XCTAssertEqual(try client.request(Request<Profile>("me")).wait(within: 5).name, "first, second")
        XCTAssertEqual(first.seen, [#"200 {"name":"server"}"#])
        XCTAssertEqual(second.seen, [#"200 {"name":"first"}"#])
    }

    func test_givenAnErrorProcessedIntoAResponse_thenItIsDecodedAndNotRetried() throws {
        let recorder = RecordingPlugin()
        let fallback = Processor { result in
            guard case .failure(let error) = result, let response = error.response, response.statusCode == 503 else { return result }
            var cached = Self.replacingBody(response, with: #"{"name":"cached"}"#)
            cached.statusCode = 200
            return .success(cached)
        }
        let client = client(
            NetworkClient.stubbing().sequence([StubResponse(status: 503), .json(#"{"name":"fresh"}"#)]),
            plugins: [recorder, fallback])
        var request = Request<Profile>("me")
        request.retryPolicy = Self.oneRetry
        XCTAssertEqual(try client.request(request).wait(within: 5).name, "cached")
        XCTAssertEqual(recorder.events.filter { $0 == "willSend" }.count, 1, "the processed answer is not retried")
        XCTAssertEqual(recorder.events.last, "didReceive serverError(503)", "didReceive sees the attempt as it arrived")
    }

    func test_givenAResponseProcessedIntoARetryableError_whenTheEndpointRetries_thenTheNextAttemptIsDelivered() throws {
        let busy = Processor { result in
            guard case .success(let response) = result, (try? JSON(data: response.body))?["busy"].bool == true else { return result }
            return .failure(.serverError(statusCode: 503, metadata: nil, response: response))
        }
        let client = client(
            NetworkClient.stubbing().sequence([.json(#"{"busy":true}"#), .json(#"{"name":"Grace"}"#)]), plugins: [busy])
        var request = Request<Profile>("me")
        request.retryPolicy = Self.oneRetry
        XCTAssertEqual(try client.request(request).wait(within: 5).name, "Grace")
        XCTAssertEqual(busy.seen, [#"200 {"busy":true}"#, #"200 {"name":"Grace"}"#], "once per attempt, before the retry decision")
    }

    func test_givenATransportFailure_whenProcessedIntoAResponse_thenTheCallerGetsIt() throws {
        let offline = Processor { result in
            guard case .failure(.transport) = result else { return result }
            return .success(HTTPResponse(statusCode: 200, body: Data(#"{"name":"offline copy"}"#.utf8)))
        }
        let client = client(NetworkClient.stubbing().failure(URLError(.notConnectedToInternet)), plugins: [offline])
        XCTAssertEqual(try client.request(Request<Profile>("me")).wait(within: 5).name, "offline copy")
        XCTAssertEqual(offline.seen, ["transport"])
    }

    func test_givenAnAuthenticationFailure_whenReplayed_thenOnlyTheReplayIsProcessed() throws {
        let processor = Processor()
        let client = client(
            NetworkClient.stubbing().respond { request in
                request.value(forHTTPHeaderField: "Authorization") == "Bearer new"
                    ? .json(#"{"name":"Ada"}"#) : StubResponse(status: 401)
            },
            plugins: [processor]) { $0.authenticator = TokenAuthenticator(token: "old") { _ in Promise.value("new") } }
        XCTAssertEqual(try client.request(Request<Profile>("me")).wait(within: 5).name, "Ada")
        XCTAssertEqual(processor.seen, [#"200 {"name":"Ada"}"#])
    }

    func test_givenTheDeadlinePassesOrTheCallerCancels_thenProcessIsNotCalled() {
        let clock = VirtualClock()
        let processor = Processor { _ in .success(HTTPResponse(statusCode: 200, body: Data("{}".utf8))) }
        let client = client(NetworkClient.stubbing().delay(10).body(json: "{}"), plugins: [processor]) { $0.scheduler = clock }
        var slow = Request<JSON>("slow")
        slow.timeout = 1
        let timedOut = client.request(slow)
        let cancelled = client.request(Request<JSON>("cancelled"))
        XCTAssertTrue(clock.waitUntilPending(dueAt: 1), "the deadline")
        cancelled.cancel()
        clock.advance(by: 1)
        XCTAssertEqual(outcomeName(settle(timedOut)), "timedOut")
        guard case .failure(let error)? = settle(cancelled) else { return XCTFail("expected the cancellation") }
        XCTAssertEqual(error as? PromiseError, .cancelled)
        XCTAssertEqual(processor.seen, [])
        XCTAssertEqual(processor.finished.sorted(), ["cancelled", "timedOut"])
    }

    func test_givenAStreamedResponse_whenProcessed_thenItSeesTheHeadAndTheBodyStillStreams() async throws {
        let processor = Processor()
        let client = client(
            NetworkClient.stubbing().stub(.get, "feed", .streaming([Data("one ".utf8), Data("two".utf8)], every: 0.001)),
            plugins: [processor])
        let streamed = try await client.stream(Request<HTTPResponse>("feed"))
        var body = Data()
        for try await piece in streamed { body.append(piece) }
        XCTAssertEqual(String(decoding: body, as: UTF8.self), "one two")
        XCTAssertEqual(processor.seen, ["200 "], "the head, without the body")
    }

    func test_givenAStreamedResponseProcessedIntoAnError_thenStreamThrowsIt() async {
        let refuse = Processor { result in
            guard case .success(let response) = result else { return result }
            return .failure(.clientError(statusCode: 451, metadata: nil, response: response))
        }
        let client = client(
            NetworkClient.stubbing().stub(.get, "feed", .streaming([Data("never read".utf8)], every: 0.001)),
            plugins: [refuse])
        do {
            _ = try await client.stream(Request<HTTPResponse>("feed"))
            XCTFail("expected the plugin's error")
        } catch {
            XCTAssertEqual((error as? NetworkError)?.shortName, "clientError(451)")
        }
    }
}

/// `process` on downloads whose body a transport wrote to a file.
final class PluginProcessDownloadTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("PluginProcessDownloadTests")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    private struct Rewriter: RequestPlugin {
        let body: @Sendable (HTTPResponse) -> Result<HTTPResponse, NetworkError>
        func process(
            _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint
        ) -> Result<HTTPResponse, NetworkError> {
            guard case .success(let response) = result else { return result }
            return body(response)
        }
    }

    private func download(answering source: URL, with plugin: Rewriter) throws -> (Promise<DownloadedFile>, URL) {
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: source))
        })
        let client = exampleClient(transport) { $0.plugins = [plugin] }
        let destination = scratch.appendingPathComponent("out.txt")
        return (client.download(Request<JSON>("files/report"), to: destination), destination)
    }

    func test_givenADownloadProcessedIntoAnError_thenTheTransportsFileIsDeletedAndTheErrorNamesNoFile() throws {
        let source = try writeFile(Data("unwanted".utf8), in: scratch)
        let (promise, destination) = try download(answering: source, with: Rewriter { response in
            .failure(.clientError(statusCode: 409, metadata: nil, response: response))
        })
        XCTAssertThrowsError(try promise.wait(within: 5)) { error in
            guard case .clientError(409, _, let response)? = error as? NetworkError else { return XCTFail("got \(error)") }
            XCTAssertNil(response.bodyFileURL)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: source.path), "the transport's file is deleted")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func test_givenADownloadProcessedIntoABodyInMemory_thenThatBodyIsSavedAndTheTransportsFileDeleted() throws {
        let source = try writeFile(Data("encrypted".utf8), in: scratch)
        let (promise, destination) = try download(answering: source, with: Rewriter { response in
            var decrypted = response
            decrypted.bodyFileURL = nil
            decrypted.body = Data("plain text".utf8)
            return .success(decrypted)
        })
        let file = try promise.wait(within: 5)
        XCTAssertEqual(file.fileURL, destination)
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "plain text")
        XCTAssertFalse(FileManager.default.fileExists(atPath: source.path), "the transport's file is deleted")
    }

    func test_givenADownloadProcessedWithItsFileKept_thenTheFileIsMovedToTheDestination() throws {
        let source = try writeFile(Data("kept".utf8), in: scratch)
        let (promise, destination) = try download(answering: source, with: Rewriter { response in
            var tagged = response
            tagged.headers["X-Checked"] = "yes"
            return .success(tagged)
        })
        let file = try promise.wait(within: 5)
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "kept")
        XCTAssertEqual(file.response.header("x-checked"), "yes")
        XCTAssertFalse(FileManager.default.fileExists(atPath: source.path), "moved, not copied")
    }
}
