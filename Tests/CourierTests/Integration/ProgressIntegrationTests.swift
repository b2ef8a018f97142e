import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Progress over the network: a 2 MiB upload and a 1 MiB download report steadily and end at
/// their totals.
final class ProgressIntegrationTests: IntegrationTestCase {
    /// Through the client (reports coalesced when they come faster than the queue runs them):
    /// they only grow, and the last one is the whole transfer.
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
    }

    /// The transport itself reports every chunk in both directions (no coalescing there).
    func test_givenURLSessionTransport_whenALargeBodyGoesBothWays_thenItReportsChunksOnTheWay() throws {
        let upload = 2 << 20
        let download = 1 << 20
        let url = try server.baseURL.appendingPathComponent("bytes/\(download)")
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.httpBody = Data(count: upload)
        let reports = ReportLog()
        let finished = DispatchSemaphore(value: 0)
        let context = TransportContext(method: .post, endpointPath: "bytes/\(download)", progress: { reports.add($0) })
        let transport = URLSessionTransport()
        _ = transport.send(request, context: context) { _ in finished.signal() }
        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success)
        let log = reports.all
        XCTAssertEqual(log.last?.bytesReceived, Int64(download))
        XCTAssertEqual(log.last?.bytesSent, Int64(upload))
        XCTAssertTrue(log.contains { ($0.sendFraction ?? 0) > 0 && ($0.sendFraction ?? 1) < 1 }, "no report during the upload")
        XCTAssertTrue(log.contains { ($0.receiveFraction ?? 0) > 0 && ($0.receiveFraction ?? 1) < 1 }, "no report during the download")
    }

    /// A compressed response's Content-Length counts compressed bytes while the chunks arrive
    /// decompressed, so no total is claimed.
    func test_givenACompressedResponse_whenFetched_thenNoTotalIsClaimed() throws {
        let client = try makeClient()
        let queue = DispatchQueue(label: "progress.gzip")
        let reports = ReportLog()
        let response = try value(of: client.request(
            LiveEndpoint<HTTPResponse>(path: "gzip"), progress: ProgressHandler(queue: queue) { reports.add($0) }))
        queue.sync {}
        XCTAssertEqual(response.header("Content-Encoding"), "gzip")
        XCTAssertEqual(reports.all.last?.bytesReceived, Int64(response.body.count))
        XCTAssertEqual(reports.all.map(\.totalBytesToReceive), Array(repeating: nil, count: reports.all.count))
        XCTAssertFalse(reports.all.isEmpty)
    }
}
