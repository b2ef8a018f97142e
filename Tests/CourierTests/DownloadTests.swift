import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `NetworkClient.download(_:to:)`: where the body goes, what happens to it on an error status,
/// a late answer, a bad destination, and transports that answer in memory or in a file.
final class DownloadTests: XCTestCase {
    struct File: Endpoint {
        var path = "files/report"
        var timeout: TimeInterval?
        var retryPolicy: RetryPolicy?
    }

    /// A fresh scratch directory, removed after the test.
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("DownloadTests")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    private func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// A file standing for what a streaming transport wrote to disk.
    private func transportFile(_ content: String) throws -> URL {
        try writeFile(Data(content.utf8), in: scratch)
    }

    // MARK: Transports that answer in memory (stubs)

    func test_givenAStubbedBody_whenDownloaded_thenItIsWrittenToTheDestinationAndMissingFoldersAreCreated() throws {
        let body = Data((0..<5_000).map { UInt8($0 % 251) })
        let client = NetworkClient.stubbing().body(body).headers(["ETag": "\"v1\""]).makeClient()
        let destination = scratch.appendingPathComponent("nested/deeper/report.bin")

        let file = try client.download(File(), to: destination).wait(within: 5)

        XCTAssertEqual(file.fileURL, destination)
        XCTAssertEqual(try Data(contentsOf: destination), body)
        XCTAssertEqual(file.response.statusCode, 200)
        XCTAssertEqual(file.response.header("etag"), "\"v1\"")
        XCTAssertTrue(file.response.body.isEmpty, "the body is on disk, not in memory")
        XCTAssertEqual(file.response.bodyFileURL, destination)
    }

    func test_givenAnExistingFile_whenDownloadedOverIt_thenItIsReplaced() throws {
        let destination = scratch.appendingPathComponent("report.txt")
        try Data("old content that is longer".utf8).write(to: destination)
        let client = NetworkClient.stubbing().body(Data("new".utf8)).makeClient()

        _ = try client.download(File(), to: destination).wait(within: 5)

        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "new")
    }

    func test_givenAnErrorStatus_whenDownloaded_thenItRejectsWithTheMetadataAndLeavesTheOldFileAlone() throws {
        let client = NetworkClient.stubbing().status(404)
            .body(json: #"{"metadata":{"status":"404","desc":"no such report"}}"#).makeClient()
        let destination = scratch.appendingPathComponent("report.txt")
        try Data("last week's report".utf8).write(to: destination)

        XCTAssertThrowsError(try client.download(File(), to: destination).wait(within: 5)) { error in
            guard case .clientError(404, let metadata, _)? = error as? NetworkError else {
                return XCTFail("expected clientError(404), got \(error)")
            }
            XCTAssertEqual(metadata?.message, "no such report")
        }
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "last week's report")
    }

    func test_givenAnInMemoryBodyOverTheSizeLimit_whenDownloaded_thenItFailsAsTooLarge() throws {
        let client = NetworkClient.stubbing().body(Data(count: 2_048)).makeClient(
            configuration: { var configuration = NetworkClient.Configuration(baseURL: URL(string: "https://a.example")!)
                configuration.maximumResponseSize = 1_024
                return configuration }())
        let destination = scratch.appendingPathComponent("big.bin")

        XCTAssertThrowsError(try client.download(File(), to: destination).wait(within: 5)) { error in
            XCTAssertEqual((error as? NetworkError)?.description.contains("larger than 1024 bytes"), true, "\(error)")
        }
        XCTAssertFalse(exists(destination))
    }

    // MARK: Bad destinations

    func test_givenADestinationThatIsNotAFile_whenDownloaded_thenItIsRefusedBeforeSending() throws {
        let transport = RecordingTransport.answering(body: "x")
        let client = exampleClient(transport)
        let folder = scratch.appendingPathComponent("folder", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let existingFolderWithoutSlash = URL(fileURLWithPath: folder.path, isDirectory: false)

        for destination in [URL(string: "https://elsewhere.example/file")!, folder, existingFolderWithoutSlash] {
            XCTAssertThrowsError(try client.download(File(), to: destination).wait(within: 5), "\(destination)") { error in
                guard case .invalidRequest(let reason)? = error as? NetworkError else {
                    return XCTFail("expected invalidRequest, got \(error)")
                }
                XCTAssertTrue(reason.contains("destination"), reason)
            }
        }
        XCTAssertEqual(transport.sendCount, 0, "nothing may be sent for a destination that cannot be written")
    }

    func test_givenADestinationThatCannotBeCreated_whenDownloaded_thenDecodingFailedCarriesTheFileSystemError() throws {
        let blocker = scratch.appendingPathComponent("plain-file")
        try Data("I am a file, not a folder".utf8).write(to: blocker)
        let source = try transportFile("payload")
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: source))
        })

        XCTAssertThrowsError(
            try exampleClient(transport).download(File(), to: blocker.appendingPathComponent("inside.txt")).wait(within: 5)
        ) { error in
            guard case .decodingFailed(_, let response)? = error as? NetworkError else {
                return XCTFail("expected decodingFailed, got \(error)")
            }
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertNil(response.bodyFileURL, "the error does not point at a deleted file")
        }
        XCTAssertFalse(exists(source), "the transport's file is deleted when it cannot be saved")
    }

    // MARK: Transports that write the body to a file

    func test_givenATransportThatWritesAFile_whenDownloaded_thenTheFileIsMovedAndTheTransportWasAskedForIt() throws {
        let source = try transportFile("streamed body")
        let transport = RecordingTransport(.async { request in
            .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: source))
        })
        let destination = scratch.appendingPathComponent("out.txt")

        let file = try exampleClient(transport).download(File(), to: destination).wait(within: 5)

        XCTAssertEqual(try String(contentsOf: file.fileURL, encoding: .utf8), "streamed body")
        XCTAssertFalse(exists(source), "moved, not copied")
        XCTAssertEqual(transport.contexts.map(\.writesBodyToFile), [true])
    }

    func test_givenAnOrdinaryRequest_thenTheTransportIsNotAskedForAFile() throws {
        let transport = RecordingTransport.answering(body: "{}")
        _ = try exampleClient(transport).request(File()).wait(within: 5)
        XCTAssertEqual(transport.contexts.map(\.writesBodyToFile), [false])
    }

    /// A download the client's validator rejects leaves neither the transport's file nor a
    /// destination file behind, and its error does not point at the deleted file.
    func test_givenTheValidatorRejectsADownload_thenTheTransportsFileIsDeleted() throws {
        struct Unwanted: Error {}
        let source = try transportFile("not what we wanted")
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: source))
        })
        let sawFile = SharedValue(false)
        let client = exampleClient(transport) { configuration in
            configuration.responseValidator = { response, _ in
                sawFile.withLock { $0 = response.bodyFileURL == source }
                throw Unwanted()
            }
        }
        let destination = scratch.appendingPathComponent("out.txt")

        XCTAssertThrowsError(try client.download(File(), to: destination).wait(within: 5)) { error in
            guard case .decodingFailed(let underlying, let response)? = error as? NetworkError else {
                return XCTFail("expected decodingFailed, got \(error)")
            }
            XCTAssertTrue(underlying is Unwanted)
            XCTAssertNil(response.bodyFileURL)
        }
        XCTAssertTrue(sawFile.withLock { $0 }, "the validator saw the file")
        XCTAssertFalse(exists(source), "the transport's file is deleted")
        XCTAssertFalse(exists(destination))
    }

    /// The documented validator throws a `NetworkError` built from the response it got, whose
    /// `bodyFileURL` names the file that is then deleted: the error must not keep that name.
    func test_givenTheValidatorThrowsANetworkErrorForADownload_thenItsResponseNamesNoFile() throws {
        let source = try transportFile(#"{"metadata":{"status":"E42"}}"#)
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: source))
        })
        let client = exampleClient(transport) { configuration in
            configuration.responseValidator = { response, _ in
                throw NetworkError.clientError(statusCode: 422, metadata: nil, response: response)
            }
        }
        XCTAssertThrowsError(try client.download(File(), to: scratch.appendingPathComponent("out.txt")).wait(within: 5)) { error in
            guard case .clientError(422, _, let response)? = error as? NetworkError else {
                return XCTFail("expected clientError(422), got \(error)")
            }
            XCTAssertNil(response.bodyFileURL)
        }
        XCTAssertFalse(exists(source))
    }

    func test_givenAnErrorBodyInAFile_whenDownloaded_thenTheMetadataIsReadFromItAndTheFileDeleted() throws {
        let source = try transportFile(#"{"error":{"code":"E_DOWN","message":"maintenance"}}"#)
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 503, url: request.url, bodyFileURL: source))
        })
        let destination = scratch.appendingPathComponent("out.txt")

        XCTAssertThrowsError(try exampleClient(transport).download(File(), to: destination).wait(within: 5)) { error in
            guard case .serverError(503, let metadata, let response)? = error as? NetworkError else {
                return XCTFail("expected serverError(503), got \(error)")
            }
            XCTAssertEqual(metadata?.status, "E_DOWN")
            XCTAssertEqual(metadata?.message, "maintenance")
            XCTAssertNil(response.bodyFileURL)
            XCTAssertFalse(response.body.isEmpty)
        }
        XCTAssertFalse(exists(source))
        XCTAssertFalse(exists(destination))
    }

    func test_givenRetries_whenTheFirstDownloadFails_thenEachFailedAttemptsFileIsDeletedAndTheLastIsSaved() throws {
        let failed = try transportFile(#"{"message":"busy"}"#)
        let good = try transportFile("finally")
        let transport = RecordingTransport(.async { request in
            // Answers by attempt: the first 503, the second 200.
            let first = FileManager.default.fileExists(atPath: failed.path)
            return .success(HTTPResponse(statusCode: first ? 503 : 200, url: request.url, bodyFileURL: first ? failed : good))
        })
        var endpoint = File()
        endpoint.retryPolicy = RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(1), jitter: 0)
        let destination = scratch.appendingPathComponent("out.txt")

        let file = try exampleClient(transport).download(endpoint, to: destination).wait(within: 5)

        XCTAssertEqual(transport.sendCount, 2)
        XCTAssertEqual(try String(contentsOf: file.fileURL, encoding: .utf8), "finally")
        XCTAssertFalse(exists(failed))
        XCTAssertFalse(exists(good))
    }

    func test_givenAFileInAnOrdinaryRequestsAnswer_thenItIsReadIntoMemoryAndDeleted() throws {
        let source = try transportFile(#"{"name":"from a file"}"#)
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: source))
        })

        let json = try exampleClient(transport).request(File()).wait(within: 5)

        XCTAssertEqual(json["name"].string, "from a file")
        XCTAssertFalse(exists(source))
    }

    func test_givenAFileOverTheLimitInAnOrdinaryRequestsAnswer_thenItFailsAsTooLarge() throws {
        let source = try transportFile(String(repeating: "x", count: 100))
        let transport = RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: 200, url: request.url, bodyFileURL: source))
        })
        let client = exampleClient(transport) { $0.maximumResponseSize = 10 }

        XCTAssertThrowsError(try client.request(File()).wait(within: 5)) { error in
            XCTAssertEqual((error as? NetworkError)?.description.contains("larger than 10 bytes"), true, "\(error)")
        }
        XCTAssertFalse(exists(source))
    }

    func test_givenACancelledDownload_whenTheTransportAnswersLateWithAFile_thenTheFileIsDeleted() throws {
        let transport = RecordingTransport(.manual)
        let destination = scratch.appendingPathComponent("out.txt")
        let promise = exampleClient(transport).download(File(), to: destination)
        XCTAssertTrue(transport.waitForSends(1))

        promise.cancel()
        XCTAssertThrowsError(try promise.wait(within: 5))
        let late = try transportFile("too late")
        transport.complete(0, with: .success(HTTPResponse(statusCode: 200, bodyFileURL: late)))

        XCTAssertFalse(exists(late), "a late answer's file is nobody's: deleted")
        XCTAssertFalse(exists(destination))
    }

    func test_givenAnAccepted401WithAnAuthenticator_whenTheFileIsReplayed_thenTheFirstFileIsDeleted() throws {
        let first = try transportFile("denied")
        let second = try transportFile("granted")
        let transport = RecordingTransport(.async { request in
            let denied = request.value(forHTTPHeaderField: "Authorization") == "Bearer old"
            return .success(HTTPResponse(statusCode: denied ? 401 : 200, url: request.url, bodyFileURL: denied ? first : second))
        })
        struct Accepting401: Endpoint {
            var path: String { "files/a" }
            var acceptedStatusCodes: StatusCodeSet { .successful.union([401]) }
        }
        let authenticator = TokenAuthenticator(token: "old") { _ in Promise.value("new") }
        let destination = scratch.appendingPathComponent("out.txt")

        let client = exampleClient(transport) { $0.authenticator = authenticator }

        let file = try client.download(Accepting401(), to: destination).wait(within: 5)

        XCTAssertEqual(try String(contentsOf: file.fileURL, encoding: .utf8), "granted")
        XCTAssertFalse(exists(first), "the refused attempt's file is deleted")
    }

    func test_givenAnAccepted401ThatStaysRefused_whenTheReplayFails_thenTheErrorCarriesTheBodyAndNoFile() throws {
        let transport = RecordingTransport(.async { request in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("DownloadTests-401-\(UUID().uuidString)")
            try? Data(#"{"message":"token revoked"}"#.utf8).write(to: file)
            return .success(HTTPResponse(statusCode: 401, url: request.url, bodyFileURL: file))
        })
        struct Accepting401: Endpoint {
            var path: String { "files/a" }
            var acceptedStatusCodes: StatusCodeSet { .successful.union([401]) }
        }
        let authenticator = TokenAuthenticator(token: "old") { _ in Promise.value("new") }
        let client = exampleClient(transport) { $0.authenticator = authenticator }
        let destination = scratch.appendingPathComponent("out.txt")

        XCTAssertThrowsError(try client.download(Accepting401(), to: destination).wait(within: 5)) { error in
            guard case .clientError(401, let metadata, let response)? = error as? NetworkError else {
                return XCTFail("expected clientError(401), got \(error)")
            }
            XCTAssertEqual(metadata?.message, "token revoked", "read from the file before it was deleted")
            XCTAssertNil(response.bodyFileURL)
        }
        XCTAssertEqual(transport.sendCount, 2, "refreshed once and replayed once")
        XCTAssertFalse(exists(destination))
    }

    // MARK: Completion style

    func test_givenTheCompletionStyle_whenDownloaded_thenTheHandlerRunsOnTheCallbackQueueWithTheFile() throws {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "downloads.callbacks")
        queue.setSpecific(key: key, value: "callbacks")
        var configuration = NetworkClient.Configuration(baseURL: URL(string: "https://a.example")!)
        configuration.callbackQueue = queue
        let client = NetworkClient.stubbing().body(Data("done".utf8)).makeClient(configuration: configuration)
        let destination = scratch.appendingPathComponent("out.txt")
        let finished = expectation(description: "completion")
        let seen = SharedValue<(String?, Result<DownloadedFile, NetworkError>?)>((nil, nil))

        client.download(File(), to: destination) { result in
            seen.withLock { $0 = (DispatchQueue.getSpecific(key: key), result) }
            finished.fulfill()
        }

        wait(for: [finished], timeout: 5)
        let (label, result) = seen.withLock { $0 }
        XCTAssertEqual(label, "callbacks")
        XCTAssertEqual(try result?.get().fileURL, destination)
        XCTAssertEqual(try String(contentsOf: destination, encoding: .utf8), "done")
    }

    func test_givenTheCompletionStyleAndABadDestination_thenTheHandlerHearsInvalidRequest() throws {
        let client = NetworkClient.stubbing().makeClient()
        let finished = expectation(description: "completion")
        let seen = SharedValue<NetworkError?>(nil)

        client.download(File(), to: URL(string: "ftp://host/file")!) { result in
            if case .failure(let error) = result { seen.withLock { $0 = error } }
            finished.fulfill()
        }

        wait(for: [finished], timeout: 5)
        guard case .invalidRequest? = seen.withLock({ $0 }) else {
            return XCTFail("expected invalidRequest, got \(String(describing: seen.withLock { $0 }))")
        }
    }

    // MARK: Descriptions

    func test_givenAResponseWithItsBodyInAFile_whenDescribed_thenItSaysSoInsteadOfAByteCount() {
        let response = HTTPResponse(statusCode: 200, url: URL(string: "https://a.example/f")!,
                                    bodyFileURL: URL(fileURLWithPath: "/tmp/f"))
        XCTAssertTrue(response.description.contains("(body in a file)"), response.description)
        XCTAssertFalse(HTTPResponse(statusCode: 200).description.contains("file"))
    }
}
