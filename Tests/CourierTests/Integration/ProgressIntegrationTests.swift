import Courier
import Foundation
import Promises
import XCTest

/// Progress over the network: a 2 MiB upload and a 1 MiB download report steadily and end at
/// their totals.
final class ProgressIntegrationTests: IntegrationTestCase {
    func test_givenALargeUploadAndDownload_whenSent_thenReportsGrowSteadilyToTheTotals() throws {
        let client = try makeClient()
        let upload = 2 << 20
        let download = 1 << 20
        let endpoint = LiveEndpoint<HTTPResponse>(
            path: "bytes/\(download)", method: .post,
            body: .data(Data(count: upload), contentType: "application/octet-stream"))
        let queue = DispatchQueue(label: "progress.integration")
        let reports = ReportLog()
        let response = try value(of: client.request(endpoint, progress: ProgressHandler(queue: queue) { reports.add($0) }))
        queue.sync {}
        let log = reports.all
        XCTAssertEqual(response.body.count, download)
        XCTAssertEqual(log.last, TransferProgress(
            bytesSent: Int64(upload), totalBytesToSend: Int64(upload),
            bytesReceived: Int64(download), totalBytesToReceive: Int64(download)))
        XCTAssertEqual(log.map(\.bytesSent), log.map(\.bytesSent).sorted(), "bytes sent went backwards")
        XCTAssertEqual(log.map(\.bytesReceived), log.map(\.bytesReceived).sorted(), "bytes received went backwards")
        XCTAssertTrue(log.contains { ($0.sendFraction ?? 0) > 0 && ($0.sendFraction ?? 1) < 1 }, "no report during the upload")
        XCTAssertTrue(log.contains { ($0.receiveFraction ?? 0) > 0 && ($0.receiveFraction ?? 1) < 1 }, "no report during the download")
    }

    /// A thread-safe list of reports.
    private final class ReportLog: @unchecked Sendable {
        // @unchecked: `reports` is only touched while `lock` is held.
        private let lock = NSLock()
        private var reports: [TransferProgress] = []
        var all: [TransferProgress] { lock.withLock { reports } }
        func add(_ report: TransferProgress) { lock.withLock { reports.append(report) } }
    }
}
