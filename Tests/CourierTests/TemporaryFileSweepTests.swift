import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Temporary files left by a killed process (a download's body, a staged form) are deleted by a
/// later process once they are older than any request lives; nothing else is touched.
final class TemporaryFileSweepTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates `name` in the test directory, last modified `age` seconds ago.
    @discardableResult
    private func file(_ name: String, age: TimeInterval) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data("left over".utf8).write(to: url)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
        return url
    }

    func test_givenOldLeftoversOfTheClient_thenOnlyThoseAreDeleted() throws {
        let day = PrivateFile.staleAge
        let oldDownload = try file("courier-download-\(UUID().uuidString)", age: day + 60)
        let oldUpload = try file("courier-upload-\(UUID().uuidString)", age: 3 * day)
        let recentDownload = try file("courier-download-\(UUID().uuidString)", age: 60)
        let othersFile = try file("report-\(UUID().uuidString)", age: 3 * day)
        let oldFolder = directory.appendingPathComponent("courier-download-folder")
        try FileManager.default.createDirectory(at: oldFolder, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3 * day)], ofItemAtPath: oldFolder.path)

        let deleted = PrivateFile.sweepStaleTemporaryFiles(in: directory, olderThan: day)

        XCTAssertEqual(Set(deleted.map(\.lastPathComponent)), [oldDownload.lastPathComponent, oldUpload.lastPathComponent])
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldDownload.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: oldUpload.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: recentDownload.path), "a download may still be running")
        XCTAssertTrue(FileManager.default.fileExists(atPath: othersFile.path), "not the client's")
        XCTAssertTrue(FileManager.default.fileExists(atPath: oldFolder.path), "only regular files")
    }

    func test_givenLinksAndOtherUsersFiles_thenNeitherIsDeleted() throws {
        let day = PrivateFile.staleAge
        let target = try file("target-\(UUID().uuidString)", age: 3 * day)
        let link = directory.appendingPathComponent("courier-download-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

        var deleted = PrivateFile.sweepStaleTemporaryFiles(in: directory, olderThan: day)
        XCTAssertEqual(deleted, [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: target.path), "a link's target is never touched")

        // Only root can give a file away; as anyone else there is no other user's file to make.
        let foreign = try file("courier-upload-\(UUID().uuidString)", age: 3 * day)
        guard chown(foreign.path, 65_534, 65_534) == 0 else { throw XCTSkip("needs root to make another user's file") }
        deleted = PrivateFile.sweepStaleTemporaryFiles(in: directory, olderThan: day)
        XCTAssertEqual(deleted, [])
        XCTAssertTrue(FileManager.default.fileExists(atPath: foreign.path), "another user's file, though root could delete it")
    }

    func test_givenARetriedStagedForm_thenEachAttemptMarksItsFileAsUsed() throws {
        /// Records how old the staged file is at each attempt, then ages it by three days; the
        /// first attempt fails with a 503.
        final class AgingTransport: HTTPTransport {
            let ages = SharedValue<[TimeInterval]>([])
            func send(
                _ request: URLRequest, context: TransportContext,
                completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
            ) -> any TransportTask {
                var attempt = 0
                if let file = context.uploadFile,
                   let modified = try? FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date {
                    attempt = ages.withLock { ages -> Int in
                        ages.append(Date().timeIntervalSince(modified))
                        return ages.count
                    }
                    try? FileManager.default.setAttributes(
                        [.modificationDate: Date(timeIntervalSinceNow: -3 * PrivateFile.staleAge)], ofItemAtPath: file.path)
                }
                completion(.success(HTTPResponse(statusCode: attempt == 1 ? 503 : 204, url: request.url)))
                return RecordingTransport.Task {}
            }
        }
        struct Upload: Endpoint {
            typealias Response = EmptyResponse
            var path: String { "forms" }
            var method: HTTPMethod { .post }
            let form: MultipartFormData
            var body: RequestBody { .multipart(form) }
            var retryPolicy: RetryPolicy? {
                RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0, retryableMethods: [.post])
            }
        }
        let part = try writeFile(Data(count: 1_100_000), in: directory, named: "large.bin")   // over the in-memory limit
        var form = MultipartFormData()
        form.append(part, name: "file")
        let transport = AgingTransport()

        _ = try exampleClient(transport).request(Upload(form: form)).wait(within: 5)

        let ages = transport.ages.withLock { $0 }
        XCTAssertEqual(ages.count, 2, "both attempts sent the staged file")
        XCTAssertLessThan(ages.last ?? .infinity, 3600, "the retry marks the staged file as used before sending it")
    }

    func test_givenAMissingDirectory_thenNothingHappens() {
        let missing = directory.appendingPathComponent("missing")
        XCTAssertEqual(PrivateFile.sweepStaleTemporaryFiles(in: missing, olderThan: 0), [])
    }
}
