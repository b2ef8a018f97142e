import Courier
import Foundation
import Promises
import XCTest

/// Downloads over URLSession against the loopback server: the body goes to disk through a
/// download task, error bodies still carry metadata, and cancellation and timeouts leave nothing.
final class DownloadIntegrationTests: IntegrationTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("DownloadIT")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    /// The transport's own files (`courier-download-…` in the temporary directory) that exist now.
    private func transportFiles() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
        return Set(names.filter { $0.hasPrefix("courier-download-") })
    }

    /// The bytes `/bytes/<n>` serves: 0, 1, …, 255, 0, 1, …
    private func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8($0 % 256) })
    }

    func test_givenOneMebibyte_whenDownloaded_thenTheFileHoldsItAndTheSizeLimitForMemoryDoesNotApply() throws {
        let size = 1 << 20
        let client = try makeClient { $0.maximumResponseSize = 1_024 }   // far below the body: downloads stream to disk
        let destination = scratch.appendingPathComponent("sub/one.bin")
        let queue = DispatchQueue(label: "download.progress")
        let reports = ReportLog()
        let progress = ProgressHandler(queue: queue) { reports.add($0) }

        let file = try value(of: client.download(LiveJSONEndpoint(path: "bytes/\(size)"), to: destination, progress: progress),
                             within: 20)
        queue.sync {}

        XCTAssertEqual(file.fileURL, destination)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(file.response.statusCode, 200)
        XCTAssertEqual(file.response.header("content-type"), "application/octet-stream")
        XCTAssertTrue(file.response.body.isEmpty)
        XCTAssertEqual(reports.all.last?.bytesReceived, Int64(size), "progress counts the bytes written")
        XCTAssertEqual(reports.all.last?.totalBytesToReceive, Int64(size))
    }

    func test_givenAnErrorStatus_whenDownloaded_thenTheMetadataArrivesAndNoFileIsLeft() throws {
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("missing.bin")

        let error = failure(of: client.download(LiveJSONEndpoint(path: "status/404"), to: destination))

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "clientError(404)")
        XCTAssertNotNil((error as? NetworkError)?.metadata?.message, "the error body was read from the downloaded file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertTrue(transportFiles().isSubset(of: before), "the transport's file of the 404 body is deleted")
    }

    func test_givenASlowBody_whenTheDeadlinePasses_thenTheDownloadTimesOutAndWritesNothing() throws {
        let before = transportFiles()
        let client = try makeClient()
        var endpoint = LiveJSONEndpoint(path: "drip")
        endpoint.query = [URLQueryItem(name: "length", value: "1000000")]
        endpoint.timeout = 0.5
        let destination = scratch.appendingPathComponent("slow.bin")

        let error = failure(of: client.download(endpoint, to: destination))

        XCTAssertEqual(errorKind(error ?? PromiseError.cancelled), "timedOut")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertTrue(waitUntilTransportFiles(areWithin: before), "the partly written body is deleted")
    }

    func test_givenADownloadInFlight_whenCancelled_thenItSettlesCancelledAndWritesNothing() throws {
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("cancelled.bin")
        let started = expectation(description: "bytes arriving")
        started.assertForOverFulfill = false
        let promise = client.download(
            LiveJSONEndpoint(path: "drip"), to: destination,
            progress: ProgressHandler { report in if report.bytesReceived > 0 { started.fulfill() } })
        wait(for: [started], timeout: 10)
        XCTAssertFalse(transportFiles().isSubset(of: before), "the body is being written to a file of the transport's")

        promise.cancel()

        XCTAssertEqual(errorKind(failure(of: promise) ?? NetworkError.timedOut), "PromiseError.cancelled")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        // Already gone when the promise settles, not a moment later: a program that exits then
        // leaves nothing behind.
        XCTAssertTrue(transportFiles().isSubset(of: before), "the partly written body is deleted before the caller hears")
    }

    func test_givenTheTransportsDelegateQueueIsBusy_whenADownloadIsCancelled_thenItsFileIsDeletedBeforeTheCallerHears() throws {
        // A challenge handler that blocks holds the transport's delegate queue, where the
        // transport itself would delete the file once the cancelled task ends: the file can only
        // be gone in time if the cancellation deletes it.
        let queueHeld = DispatchSemaphore(value: 0)
        let releaseQueue = DispatchSemaphore(value: 0)
        let transport = URLSessionTransport(challengeHandler: { _ in
            queueHeld.signal()
            _ = releaseQueue.wait(timeout: .now() + 10)
            return .cancel
        })
        defer { releaseQueue.signal() }
        let client = NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: transport)
        let before = transportFiles()
        let started = DispatchSemaphore(value: 0)
        let download = client.download(
            LiveJSONEndpoint(path: "drip"), to: scratch.appendingPathComponent("held.bin"),
            progress: ProgressHandler { report in if report.bytesReceived > 0 { started.signal() } })
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        let challenged = client.request(LiveJSONEndpoint(path: "basic-auth/reporter/s3cret", timeout: 20))
        XCTAssertEqual(queueHeld.wait(timeout: .now() + 10), .success, "the delegate queue is held")
        XCTAssertFalse(transportFiles().isSubset(of: before), "the body is being written to a file of the transport's")

        download.cancel()

        XCTAssertEqual(errorKind(failure(of: download) ?? NetworkError.timedOut), "PromiseError.cancelled")
        XCTAssertTrue(transportFiles().isSubset(of: before), "deleted by the cancellation, not later by the transport")
        releaseQueue.signal()
        challenged.cancel()
    }

    /// Whether the transport's files shrink back to `before` within a few seconds: the promise
    /// settles at once, and the transport deletes its file when URLSession ends the cancelled task.
    private func waitUntilTransportFiles(areWithin before: Set<String>) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !transportFiles().isSubset(of: before) {
            if Date() > deadline { return false }
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(20))
        }
        return true
    }

    func test_givenARedirect_whenDownloaded_thenTheFinalBodyIsSavedWithItsURL() throws {
        let client = try makeClient()
        var endpoint = LiveJSONEndpoint(path: "redirect-to")
        endpoint.query = [URLQueryItem(name: "url", value: "/bytes/300")]
        let destination = scratch.appendingPathComponent("redirected.bin")

        let file = try value(of: client.download(endpoint, to: destination))

        XCTAssertEqual(try Data(contentsOf: destination), pattern(300))
        XCTAssertEqual(file.response.url?.path, "/bytes/300")
    }
}
