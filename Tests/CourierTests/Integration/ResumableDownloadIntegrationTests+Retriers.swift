@testable import Courier
import Foundation
import Promises
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request retrier on a download the server cuts short: the part the attempt saved waits in the
/// request while the retrier decides, and its retry resumes it.
extension ResumableDownloadIntegrationTests {
    func test_givenNoPolicyButARetrier_whenTheConnectionDropsMidBody_thenTheRetriersRetryResumes() throws {
        let key = counterKey()
        let retrier = RequestRetrierTests.ScriptedRetrier(holds: true)
        let client = try makeClient { $0.requestRetriers = [retrier] }
        let bare = LiveJSONEndpoint(path: "resumable/\(key)", query: query("cuts=70000"), timeout: 20, retryPolicy: nil)
        let destination = scratch.appendingPathComponent("retrier.bin")

        let download = client.download(bare, to: destination)
        XCTAssertEqual(retrier.asked.wait(timeout: .now() + 20), .success)
        XCTAssertEqual(retrier.errors, ["transport"])
        retrier.answerAll(.retry)
        _ = try value(of: download, within: 30)

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"], "the retry asked only for the rest")
    }

    func test_givenOnlyTheEndpointsOwnRetrier_whenTheConnectionDropsMidBody_thenItsRetryResumes() throws {
        let key = counterKey()
        let client = try makeClient()
        var own = Request(LiveJSONEndpoint(path: "resumable/\(key)", query: query("cuts=70000"), timeout: 20, retryPolicy: nil))
        own.requestRetriers = [RequestRetrierTests.ScriptedRetrier { _, context in context.retrierRetryCount == 0 ? .retry : .doNotRetry }]
        let destination = scratch.appendingPathComponent("own-retrier.bin")

        _ = try value(of: client.download(own, to: destination), within: 30)

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"], "the retry asked only for the rest")
    }

    func test_givenARetrierThatDeclines_whenTheConnectionDropsMidBody_thenTheSavedPartIsDeleted() throws {
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient { $0.requestRetriers = [RequestRetrierTests.ScriptedRetrier { _, _ in .doNotRetry }] }
        let bare = LiveJSONEndpoint(path: "resumable/\(key)", query: query("cuts=70000"), timeout: 20, retryPolicy: nil)

        let error = failure(of: client.download(bare, to: scratch.appendingPathComponent("declined.bin")), within: 30)
        XCTAssertEqual(error.map(errorKind), "transport")
        XCTAssertTrue(eventually { self.transportFiles().subtracting(before).isEmpty }, "no saved part is left behind")
    }
}
