import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestBody.file`: the request streams the file, states its length, and every attempt reads
/// it from the start; a file that cannot be sent is refused before sending.
final class FileBodyTests: XCTestCase {
    struct Upload: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "uploads" }
        var method: HTTPMethod { .put }
        let file: URL
        var retryPolicy: RetryPolicy?
        var body: RequestBody { .file(file, contentType: "video/mp4") }
    }

    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("FileBodyTests")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    private func file(_ content: Data) throws -> URL {
        try writeFile(content, in: scratch)
    }

    func test_givenAFileBody_whenBuilt_thenTheRequestStreamsItWithItsLengthAndType() throws {
        let content = Data((0..<70_000).map { UInt8($0 % 253) })
        let request = try exampleClient(RecordingTransport.answering()).makeURLRequest(for: Upload(file: try file(content)))

        XCTAssertNil(request.httpBody, "a file body is never loaded into memory")
        XCTAssertEqual(request.httpBodyStream.map(readAll), content)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Length"), "70000")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "video/mp4")
        XCTAssertEqual(request.httpMethod, "PUT")
    }

    func test_givenAFileThatCannotBeSent_whenRequested_thenItIsRefusedBeforeSending() throws {
        let transport = RecordingTransport.answering()
        let client = exampleClient(transport)
        let missing = scratch.appendingPathComponent("missing.bin")
        let remote = URL(string: "https://elsewhere.example/video.mp4")!

        for body in [missing, scratch!, remote] {
            XCTAssertThrowsError(try client.request(Upload(file: body)).wait(within: 5), "\(body)") { error in
                guard case .invalidRequest(let reason)? = error as? NetworkError else {
                    return XCTFail("expected invalidRequest, got \(error)")
                }
                XCTAssertTrue(reason.contains("file"), reason)
            }
        }
        XCTAssertEqual(transport.sendCount, 0)
    }

    func test_givenRetries_whenEachAttemptReadsTheBody_thenEveryAttemptGetsTheWholeFile() throws {
        let content = Data("the whole file, every time".utf8)
        let url = try file(content)
        let reads = SharedValue<[Data]>([])
        let transport = RecordingTransport(.immediate { request in
            let read = request.httpBodyStream.map(readAll) ?? Data()
            let attempt = reads.withLock { reads -> Int in
                reads.append(read)
                return reads.count
            }
            return .success(HTTPResponse(statusCode: attempt < 3 ? 503 : 204, url: request.url))
        })
        let endpoint = Upload(
            file: url, retryPolicy: RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0))

        _ = try exampleClient(transport).request(endpoint).wait(within: 5)

        XCTAssertEqual(reads.withLock { $0 }, [content, content, content])
        // The transport gets the file with its links resolved (on macOS the temporary folder is one).
        let resolved = url.resolvingSymlinksInPath()
        XCTAssertEqual(transport.contexts.map(\.uploadFile), [resolved, resolved, resolved])
    }

    func test_givenAnEndpointContentLength_thenTheFilesSizeWinsButItsContentTypeStands() throws {
        struct Declared: Endpoint {
            let file: URL
            var path: String { "uploads" }
            var method: HTTPMethod { .post }
            var headers: [String: String] { ["content-length": "3", "Content-Type": "text/plain"] }
            var body: RequestBody { .file(file, contentType: "video/mp4") }
        }
        let request = try exampleClient(RecordingTransport.answering()).makeURLRequest(for: Declared(file: try file(Data("abc".utf8))))
        let request2 = try exampleClient(RecordingTransport.answering()).makeURLRequest(for: Declared(file: try file(Data("abcdef".utf8))))
        XCTAssertEqual(request2.value(forHTTPHeaderField: "Content-Length"), "6", "a wrong length would hang or corrupt the connection")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "text/plain")
        XCTAssertEqual(request.allHTTPHeaderFields?.keys.filter { $0.lowercased() == "content-length" }.count, 1)
    }

    func test_givenAFileBody_whenPrintedAsCurl_thenCurlReadsTheSameFile() throws {
        let url = try file(Data("abc".utf8))
        let command = try exampleClient(RecordingTransport.answering()).curlCommand(for: Upload(file: url))
        XCTAssertTrue(command.contains("--data-binary @'\(url.path)'"), command)
        XCTAssertTrue(command.contains("-X 'PUT'"), command)
        XCTAssertFalse(command.contains("Content-Length"), "curl sizes the file itself: \(command)")
    }

    func test_givenTheFileChangesBeforeTheAttempt_thenTheAttemptSendsItsCurrentSizeAndContent() throws {
        let url = try file(Data("short".utf8))
        let transport = RecordingTransport.answering(204)
        let client = exampleClient(transport)
        client.pause()   // built now, sent at resume
        let promise = client.request(Upload(file: url))
        try Data("a good deal longer".utf8).write(to: url)
        client.resume()

        _ = try promise.wait(within: 5)

        let sent = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Content-Length"), "18")
        XCTAssertEqual(sent.httpBodyStream.map(readAll), Data("a good deal longer".utf8))
    }

    func test_givenTheFileIsDeletedBeforeARetry_thenTheRequestFailsAsInvalidWithoutSendingAgain() throws {
        let url = try file(Data("once".utf8))
        let transport = RecordingTransport(.immediate { request in
            try? FileManager.default.removeItem(at: url)
            return .success(HTTPResponse(statusCode: 503, url: request.url))
        })
        let endpoint = Upload(
            file: url, retryPolicy: RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0))

        XCTAssertThrowsError(try exampleClient(transport).request(endpoint).wait(within: 5)) { error in
            guard case .invalidRequest(let reason)? = error as? NetworkError else {
                return XCTFail("expected invalidRequest, got \(error)")
            }
            XCTAssertTrue(reason.contains(url.path), reason)
        }
        XCTAssertEqual(transport.sendCount, 1, "a missing file is not retried")
    }

    func test_givenAPluginThatReplacesTheBody_thenTheTransportIsNotToldToSendTheFile() throws {
        struct Compressing: RequestPlugin {
            func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
                var compressed = request
                compressed.httpBodyStream = nil
                compressed.httpBody = Data("gzipped".utf8)
                return compressed
            }
        }
        let transport = RecordingTransport.answering(204)
        var configuration = NetworkClient.Configuration(baseURL: URL(string: "https://api.example.com")!)
        configuration.plugins = [Compressing()]
        let client = NetworkClient(configuration: configuration, transport: transport)
        let url = try file(Data("plain".utf8))

        _ = try client.request(Upload(file: url)).wait(within: 5)
        _ = try exampleClient(transport).request(Upload(file: url)).wait(within: 5)

        XCTAssertEqual(transport.contexts.map(\.uploadFile), [nil, url.resolvingSymlinksInPath()], "with the plugin, then without")
        XCTAssertEqual(transport.requests.first?.httpBody, Data("gzipped".utf8))
    }
}
