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
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("FileBodyTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func file(_ content: Data) throws -> URL {
        let url = scratch.appendingPathComponent("body-\(UUID().uuidString).bin")
        try content.write(to: url)
        return url
    }

    private func client(_ transport: any HTTPTransport) -> NetworkClient {
        NetworkClient(configuration: .init(baseURL: URL(string: "https://api.example.com")!), transport: transport)
    }

    func test_givenAFileBody_whenBuilt_thenTheRequestStreamsItWithItsLengthAndType() throws {
        let content = Data((0..<70_000).map { UInt8($0 % 253) })
        let request = try client(RecordingTransport.answering()).makeURLRequest(for: Upload(file: try file(content)))

        XCTAssertNil(request.httpBody, "a file body is never loaded into memory")
        XCTAssertEqual(request.httpBodyStream.map(Self.readAll), content)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Length"), "70000")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "video/mp4")
        XCTAssertEqual(request.httpMethod, "PUT")
    }

    func test_givenAFileThatCannotBeSent_whenRequested_thenItIsRefusedBeforeSending() throws {
        let transport = RecordingTransport.answering()
        let client = client(transport)
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
        let reads = Protected<[Data]>([])
        let transport = RecordingTransport(.immediate { request in
            let read = request.httpBodyStream.map(Self.readAll) ?? Data()
            let attempt = reads.withLock { reads -> Int in
                reads.append(read)
                return reads.count
            }
            return .success(HTTPResponse(statusCode: attempt < 3 ? 503 : 204, url: request.url))
        })
        let endpoint = Upload(
            file: url, retryPolicy: RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0))

        _ = try client(transport).request(endpoint).wait(within: 5)

        XCTAssertEqual(reads.withLock { $0 }, [content, content, content])
        XCTAssertEqual(transport.contexts.map(\.uploadFile), [url, url, url])
    }

    func test_givenAnEndpointContentLength_thenItWinsAsOtherEndpointHeadersDo() throws {
        struct Declared: Endpoint {
            let file: URL
            var path: String { "uploads" }
            var method: HTTPMethod { .post }
            var headers: [String: String] { ["content-length": "3", "Content-Type": "text/plain"] }
            var body: RequestBody { .file(file, contentType: "video/mp4") }
        }
        let request = try client(RecordingTransport.answering()).makeURLRequest(for: Declared(file: try file(Data("abc".utf8))))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Length"), "3")
        XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "text/plain")
        XCTAssertEqual(request.allHTTPHeaderFields?.keys.filter { $0.lowercased() == "content-length" }.count, 1)
    }

    func test_givenAFileBody_whenPrintedAsCurl_thenCurlReadsTheSameFile() throws {
        let url = try file(Data("abc".utf8))
        let command = try client(RecordingTransport.answering()).curlCommand(for: Upload(file: url))
        XCTAssertTrue(command.contains("--data-binary @'\(url.path)'"), command)
        XCTAssertTrue(command.contains("-X 'PUT'"), command)
        XCTAssertTrue(command.contains("Content-Length: 3"), command)
    }

    /// Everything `stream` holds.
    private static func readAll(_ stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
