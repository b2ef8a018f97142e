@testable import Courier
import Foundation
import Promises
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request adapters on a download that resumes a kept part: while an adapter works, the part
/// waits in the request, so a pause keeps it, a retry after the deadline resumes it, and a
/// failed adapter leaves it kept.
extension ResumableDownloadIntegrationTests {
    /// A resumption holding the first 70 000 bytes of `/resumable/<key>`, from a download the
    /// server cut there, and the endpoint that was cut.
    private func keptPart(_ key: String, into destination: URL) throws -> (DownloadResumption, LiveJSONEndpoint) {
        let resumption = DownloadResumption()
        let cut = endpoint(key, "cuts=70000", retry: RetryPolicy.none)
        _ = failure(of: try makeClient().download(cut, to: destination, resumption: resumption), within: 30)
        XCTAssertEqual(resumption.keptBytes, 70_000)
        return (resumption, cut)
    }

    func test_givenAKeptPart_whenPausedWhileARequestAdapterWorks_thenThePartIsKeptAndTheNextDownloadResumesIt() throws {
        let key = counterKey()
        let held = RequestAdapterTests.HeaderAdapter(holds: true)
        let holding = try makeClient { $0.requestAdapters = [held] }
        let destination = scratch.appendingPathComponent("adapted.bin")
        let (resumption, cut) = try keptPart(key, into: destination)

        // The part is claimed, the attempt leaves the gate, and the adapter holds it: a pause
        // cancels the download and must get the part back, not lose it.
        let download = holding.download(cut, to: destination, resumption: resumption)
        XCTAssertEqual(held.called.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(held.seen.first?.value(forHTTPHeaderField: "Range"), "bytes=70000-", "the adapter sees the resuming request")
        XCTAssertEqual(try value(of: resumption.pause(), within: 20), 70_000)
        XCTAssertEqual(failure(of: download).map(errorKind), "cancelled")
        XCTAssertTrue(held.waitForCancels(1))
        XCTAssertEqual(held.cancelCount, 1)

        _ = try value(of: try makeClient().download(cut, to: destination, resumption: resumption), within: 30)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"], "the held attempt sent nothing")
    }

    func test_givenAKeptPart_whenTheDeadlinePassesWhileAnAdapterWorks_thenTheRetryResumesThePart() throws {
        let key = counterKey()
        let first = RequestAdapterTests.HeaderAdapter(holdCalls: 1)   // the first attempt's adapter never answers
        let client = try makeClient { $0.requestAdapters = [first] }
        let destination = scratch.appendingPathComponent("adapted-retry.bin")
        let (resumption, cut) = try keptPart(key, into: destination)

        let retried = LiveJSONEndpoint(
            path: cut.path, query: cut.query, timeout: 1,
            retryPolicy: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(10), jitter: 0))
        _ = try value(of: client.download(retried, to: destination, resumption: resumption), within: 30)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(first.cancelCount, 1, "the deadline cancelled the first adaptation")
        XCTAssertEqual(first.seen.map { $0.value(forHTTPHeaderField: "Range") }, ["bytes=70000-", "bytes=70000-"])
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"], "the retry resumed the part")
    }

    func test_givenAKeptPart_whenAnAdapterFails_thenNothingIsSentAndThePartIsStillKept() throws {
        let key = counterKey()
        let client = try makeClient { $0.requestAdapters = [RequestAdapterTests.Refusing(error: RequestAdapterTests.KeychainLocked())] }
        let destination = scratch.appendingPathComponent("adapted-refused.bin")
        let (resumption, cut) = try keptPart(key, into: destination)

        XCTAssertEqual(failure(of: client.download(cut, to: destination, resumption: resumption)).map(errorKind), "authenticationFailed")
        XCTAssertEqual(resumption.keptBytes, 70_000)
        XCTAssertEqual(try log(key).map(\.range), [nil], "nothing sent")
        XCTAssertTrue(eventually { !resumption.isInUse })
    }
}
