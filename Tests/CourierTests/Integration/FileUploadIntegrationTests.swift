import Courier
import Foundation
import Promises
import XCTest

/// File bodies over URLSession against the loopback server: the server receives the file's
/// bytes with one `Content-Length`, progress counts them, and a retry sends the whole file again.
final class FileUploadIntegrationTests: IntegrationTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("FileUploadIT")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    private func file(_ content: Data) throws -> URL {
        try writeFile(content, in: scratch, named: "upload.bin")
    }

    func test_givenAFileBody_whenSent_thenTheServerReceivesItsBytesWithOneContentLength() throws {
        let text = String(repeating: "courier streams files ", count: 2_000)
        let url = try file(Data(text.utf8))
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", method: .post, body: .file(url, contentType: "text/plain"))

        let echo = try value(of: try makeClient().request(endpoint))

        XCTAssertEqual(echo.body, text)
        XCTAssertEqual(echo.header("Content-Length"), String(text.utf8.count), "one Content-Length, the file's size")
        XCTAssertEqual(echo.header("Content-Type"), "text/plain")
    }

    func test_givenAFileBodyBehindASymbolicLink_whenSent_thenTheServerReceivesTheTargetsBytes() throws {
        let text = String(repeating: "behind a link ", count: 5_000)
        let target = try file(Data(text.utf8))
        let link = scratch.appendingPathComponent("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", method: .post, body: .file(link, contentType: "text/plain"))
        let client = try makeClient()

        let echo = try value(of: client.request(endpoint))
        let next = try value(of: client.request(LiveEndpoint<ServerEcho>(path: "anything")))

        XCTAssertEqual(echo.header("Content-Length"), String(text.utf8.count), "not the link's own size")
        XCTAssertEqual(echo.body, text)
        XCTAssertEqual(next.path, "/anything", "the kept-alive connection is intact")
    }

    func test_givenALargeFile_whenSent_thenProgressCountsEveryByteOfIt() throws {
        let size = 2 << 20
        let url = try file(Data(count: size))
        let endpoint = LiveEndpoint<HTTPResponse>(
            path: "bytes/0", method: .put, body: .file(url, contentType: "application/octet-stream"))
        let queue = DispatchQueue(label: "upload.progress")
        let reports = ReportLog()

        _ = try value(of: try makeClient().request(endpoint, progress: ProgressHandler(queue: queue) { reports.add($0) }),
                      within: 20)
        queue.sync {}

        XCTAssertEqual(reports.all.last?.bytesSent, Int64(size))
        XCTAssertEqual(reports.all.last?.totalBytesToSend, Int64(size))
    }

    func test_givenTheFileGrowsWhileTheRequestIsHeld_thenTheServerReceivesTheWholeNewFile() throws {
        let url = try file(Data("before".utf8))
        let client = try makeClient()
        client.pause()
        let promise = client.request(LiveEndpoint<ServerEcho>(path: "anything", method: .put, body: .file(url, contentType: "text/plain")))
        let grown = String(repeating: "after ", count: 500)
        try Data(grown.utf8).write(to: url)
        client.resume()

        let echo = try value(of: promise)

        XCTAssertEqual(echo.body, grown)
        XCTAssertEqual(echo.header("Content-Length"), String(grown.utf8.count))
    }

    func test_givenA307Or308ToAFileUpload_thenTheFileIsSentAgainToTheNewURL() throws {
        let url = try file(Data("payload".utf8))
        for status in [307, 308] {
            let endpoint = LiveEndpoint<ServerEcho>(
                path: "redirect-to", method: .put,
                query: [URLQueryItem(name: "url", value: "/anything/moved"), URLQueryItem(name: "status", value: "\(status)")],
                body: .file(url, contentType: "text/plain"))

            let echo = try value(of: try makeClient().request(endpoint))

            XCTAssertEqual(echo.method, "PUT", "\(status)")
            XCTAssertEqual(echo.path, "/anything/moved", "\(status)")
            XCTAssertEqual(echo.body, "payload", "\(status): FoundationNetworking alone sends it without the file")
        }
    }

    func test_givenARetry_whenTheFirstAttemptFails_thenTheSecondSendsTheWholeFileAgain() throws {
        let content = Data(repeating: 7, count: 100_000)
        let url = try file(content)
        let key = counterKey()
        let endpoint = LiveJSONEndpoint(
            path: "counter/\(key)/statuses", method: .put, query: [URLQueryItem(name: "seq", value: "503,200")],
            body: .file(url, contentType: "application/octet-stream"),
            retryPolicy: RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(10), jitter: 0))

        let json = try value(of: try makeClient().request(endpoint))

        XCTAssertEqual(json["attempt"].int, 2)
        XCTAssertEqual(json["body_length"].int, content.count)
    }
}

/// Multipart forms with file parts over URLSession: an independent parser (Python's email
/// package, in the test server) finds every part with its name, file name, type and bytes.
final class MultipartUploadIntegrationTests: IntegrationTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("MultipartUploadIT")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    func test_givenAFormWithFileParts_whenSent_thenTheServerParsesEveryPartWithItsBytes() throws {
        // Bytes that look like framing ("\r\n--") inside the content must not end the part.
        let binary = Data((0..<300_000).map { [13, 10, 45, 45, UInt8($0 % 256)][$0 % 5] })
        let text = Data(String(repeating: "a line of text\r\n", count: 1_000).utf8)
        let video = try writeFile(binary, in: scratch, named: "clip.mp4")
        let notes = try writeFile(text, in: scratch, named: "notes.txt")
        var form = MultipartFormData()
        form.append("Ada Lovelace", name: "author")
        form.append(video, name: "clip")
        form.append(Data([0, 1, 2]), name: "raw", filename: "raw.bin")
        form.append(notes, name: "notes", filename: "renamed.txt")
        let endpoint = LiveJSONEndpoint(path: "multipart", method: .post, body: .multipart(form))

        let json = try value(of: try makeClient().request(endpoint), within: 20)

        let parts = json["parts"].array ?? []
        XCTAssertEqual(parts.map { $0["name"].string }, ["author", "clip", "raw", "notes"])
        XCTAssertEqual(parts.map { $0["filename"].string }, [nil, "clip.mp4", "raw.bin", "renamed.txt"])
        XCTAssertEqual(parts.map { $0["content_type"].string },
                       [nil, "video/mp4", "application/octet-stream", "text/plain"])
        XCTAssertEqual(parts.map { $0["size"].int }, [12, binary.count, 3, text.count])
        XCTAssertEqual(parts.map { $0["fnv1a"].string },
                       [Data("Ada Lovelace".utf8), binary, Data([0, 1, 2]), text].map { String(fnv1a64($0)) })
    }
}

/// 64-bit FNV-1a, as the test server's `/multipart` route computes it.
private func fnv1a64(_ data: Data) -> UInt64 {
    data.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
}
