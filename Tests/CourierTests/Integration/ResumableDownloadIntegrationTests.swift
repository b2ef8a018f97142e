@testable import Courier
import Foundation
import Promises
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download that the connection cuts short is resumed by its retry: the retry asks for the
/// rest (`Range`, `If-Range`) and appends a matching `206` to what was saved, against the
/// loopback server's `/resumable` route, which drops the connection where a test says.
final class ResumableDownloadIntegrationTests: IntegrationTestCase {
    var scratch: URL!
    let size = 200_000
    private let retries = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(10), jitter: 0)

    override func setUpWithError() throws {
        scratch = try makeScratchFolder("ResumableIT")
    }

    override func tearDownWithError() throws {
        removeScratchFolder(scratch)
    }

    /// The bytes `/resumable` serves: 0, 1, …, 255, 0, 1, …
    func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8($0 % 256) })
    }

    /// The transport's own files (`courier-download-…` in the temporary directory) that exist now.
    func transportFiles() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)) ?? []
        return Set(names.filter { $0.hasPrefix("courier-download-") })
    }

    /// What the server saw for `key`, request by request: the Range and If-Range headers and the status.
    func log(_ key: String) throws -> [(range: String?, ifRange: String?, status: Int)] {
        let entries = (try JSONSerialization.jsonObject(with: server.fetch("/resumable/\(key)/log").body) as? [[String: Any]]) ?? []
        return entries.map { ($0["range"] as? String, $0["if_range"] as? String, $0["status"] as? Int ?? 0) }
    }

    /// `/resumable/<key>` with `size` and the query `parameters` (`"cuts=7,9&validator=date"`).
    func endpoint(_ key: String, _ parameters: String, retry: RetryPolicy? = nil) -> LiveJSONEndpoint {
        LiveJSONEndpoint(path: "resumable/\(key)", query: query(parameters), timeout: 20, retryPolicy: retry ?? retries)
    }

    func query(_ parameters: String) -> [URLQueryItem] {
        [URLQueryItem(name: "size", value: String(size))] + parameters.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            return URLQueryItem(name: parts[0], value: parts.count > 1 ? parts[1] : nil)
        }
    }

    /// Downloads `endpoint` with `client` (a default client when `nil`) into `name` in the
    /// scratch folder, and checks that the file holds the whole body.
    @discardableResult
    private func downloadWhole(
        _ endpoint: some Endpoint, named name: String, with client: NetworkClient? = nil, _ message: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> DownloadedFile {
        let destination = scratch.appendingPathComponent(name)
        let downloaded = try value(of: (client ?? makeClient()).download(endpoint, to: destination), within: 30)
        XCTAssertEqual(try Data(contentsOf: destination), pattern(size), message, file: file, line: line)
        return downloaded
    }

    func test_givenTheConnectionDropsMidBody_whenRetried_thenTheRetryAsksForTheRestAndTheFileIsWhole() throws {
        let key = counterKey()
        let before = transportFiles()

        let file = try downloadWhole(endpoint(key, "cuts=70000"), named: "whole.bin")

        XCTAssertEqual(file.response.statusCode, 206, "the response that ended the download")
        XCTAssertEqual(file.response.header("Content-Range"), "bytes 70000-199999/200000")
        let seen = try log(key)
        XCTAssertEqual(seen.map(\.status), [200, 206])
        XCTAssertEqual(seen.map(\.range), [nil, "bytes=70000-"])
        XCTAssertEqual(seen.map(\.ifRange), [nil, "\"v1-\(key)\""])
        XCTAssertEqual(transportFiles().subtracting(before), [], "the saved start became the destination")
    }

    /// The client's retry policy, for an endpoint without one, resumes a download just as the
    /// endpoint's own would.
    func test_givenOnlyTheClientHasARetryPolicy_whenTheConnectionDrops_thenTheRetryResumes() throws {
        let key = counterKey()
        let client = try makeClient { $0.retryPolicy = self.retries }
        let bare = LiveJSONEndpoint(path: "resumable/\(key)", query: query("cuts=70000"), timeout: 20, retryPolicy: nil)

        try downloadWhole(bare, named: "client-policy.bin", with: client)

        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
    }

    func test_givenTheConnectionDropsTwice_thenEachRetryResumesWhereTheLastStopped() throws {
        let key = counterKey()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("twice.bin")
        let reports = ReportLog()
        let queue = DispatchQueue(label: "resumable.progress")

        _ = try value(of: client.download(endpoint(key, "cuts=50000,120000"), to: destination,
                                          progress: ProgressHandler(queue: queue) { reports.add($0) }), within: 30)
        queue.sync {}

        XCTAssertEqual(try Data(contentsOf: destination), pattern(size))
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=50000-", "bytes=120000-"])
        XCTAssertEqual(reports.all.last?.bytesReceived, Int64(size), "progress counts the saved start too")
        XCTAssertEqual(reports.all.last?.totalBytesToReceive, Int64(size), "and the whole body's length")
    }

    func test_givenTheBodyStallsUntilTheDeadline_whenRetried_thenTheRetryResumes() throws {
        let key = counterKey()
        // The timed-out attempt's transfer ends (cancelled) well within the retry's delay.
        let patient = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(2), jitter: 0)
        var stalling = endpoint(key, "cuts=70000&hold=1", retry: patient)
        stalling.timeout = 3

        try downloadWhole(stalling, named: "stalled.bin")

        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
    }

    func test_givenAnIdleTimeout_whenTheBodyStalls_thenTheAttemptEndsLongBeforeItsDeadlineAndTheRetryResumes() throws {
        let key = counterKey()
        // The stalled attempt's transfer ends (cancelled) well within the retry's delay.
        let patient = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(2), jitter: 0)
        var stalling = Request(endpoint(key, "cuts=70000&hold=1", retry: patient))   // a 20 s deadline
        stalling.idleTimeout = 1
        let started = Date()

        try downloadWhole(stalling, named: "idle.bin")

        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the idle watch ended the stalled attempt, not its deadline")
    }

    func test_givenTheDeadlinePassesWhileTheRetryIsPrepared_thenTheNextRetryStillResumes() throws {
        let key = counterKey()
        let deadlines = HeldDeadlines(timeout: 20)
        let client = try makeClient {
            $0.scheduler = deadlines
            // The second attempt's deadline passes inside its `prepare` (a slow plugin or
            // authenticator): that attempt is never sent, and the third one resumes.
            $0.plugins = [DeadlineInPrepare(deadlines: deadlines, onCall: 2)]
        }

        try downloadWhole(endpoint(key, "cuts=70000"), named: "prepared.bin", with: client)

        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"], "the third attempt asked for the rest")
    }

    func test_givenAnErrorAnswerToTheResumingRetry_whenRetriedAgain_thenThatRetryStillResumes() throws {
        let key = counterKey()
        let before = transportFiles()

        // Cut at 70 000, then a 503 to the first resuming retry: the next retry asks for the rest again.
        try downloadWhole(endpoint(key, "cuts=70000&fail=2:503"), named: "after503.bin")

        XCTAssertEqual(try log(key).map(\.status), [200, 503, 206])
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-", "bytes=70000-"])
        XCTAssertEqual(transportFiles().subtracting(before), [])
    }

    func test_givenA401ToTheResumingRetry_whenTheCredentialIsRefreshed_thenTheReplayResumes() throws {
        let key = counterKey()
        let refreshed = SharedValue(0)
        let client = try makeClient {
            $0.authenticator = TokenAuthenticator(token: "expired") { _ in
                refreshed.withLock { $0 += 1 }
                return Promise.value("fresh")
            }
        }

        try downloadWhole(endpoint(key, "cuts=70000&fail=2:401"), named: "replayed.bin", with: client)

        XCTAssertEqual(refreshed.withLock { $0 }, 1)
        XCTAssertEqual(try log(key).map(\.status), [200, 401, 206])
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-", "bytes=70000-"], "the replay asked for the rest")
    }

    func test_givenAnErrorAnswerToTheResumingRetry_whenNoRetryIsLeft_thenTheSavedStartIsDeleted() throws {
        let key = counterKey()
        let before = transportFiles()
        let once = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(10), jitter: 0)
        let destination = scratch.appendingPathComponent("gave-up.bin")

        let error = failure(of: try makeClient().download(endpoint(key, "cuts=70000&fail=2:404", retry: once), to: destination), within: 30)

        XCTAssertEqual(error.map(errorKind), "clientError(404)")
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=70000-"])
        XCTAssertEqual(transportFiles().subtracting(before), [], "nothing is left behind")
    }

    func test_givenALastModifiedDateBeforeTheResponseDate_thenItIsTheValidator() throws {
        let key = counterKey()

        try downloadWhole(endpoint(key, "cuts=30000&validator=date"), named: "dated.bin")

        let seen = try log(key)
        XCTAssertEqual(seen.map(\.status), [200, 206])
        XCTAssertEqual(seen.map(\.ifRange), [nil, "Sun, 06 Nov 1994 08:49:37 GMT"])
    }

    func test_givenNoStrongValidator_whenRetried_thenTheDownloadStartsOverWithoutARange() throws {
        for validator in ["weak", "none"] {
            let key = counterKey() + validator

            try downloadWhole(endpoint(key, "cuts=40000&validator=\(validator)"), named: "\(validator).bin", validator)

            XCTAssertEqual(try log(key).map(\.range), [nil, nil], "\(validator): an ETag W/… may not be used in If-Range")
        }
    }

    func test_givenTheBodyChangedOnTheServer_whenResumed_thenTheServerSendsItWholeAndThatIsSaved() throws {
        let key = counterKey()

        let file = try downloadWhole(endpoint(key, "cuts=60000&changes=1"), named: "changed.bin",
                                     "the new body alone, not appended to the old start")

        XCTAssertEqual(file.response.statusCode, 200)
        let seen = try log(key)
        XCTAssertEqual(seen.map(\.status), [200, 200])
        XCTAssertEqual(seen.map(\.range), [nil, "bytes=60000-"], "asked for the rest, but only of the same body")
    }

    func test_givenAServerThatAnswersTheResumeWrongly_thenThatAttemptFailsAndTheNextStartsOver() throws {
        for misbehaviour in ["short", "offset", "416"] {
            let key = counterKey() + misbehaviour

            let file = try downloadWhole(endpoint(key, "cuts=70000&misbehave=\(misbehaviour)"), named: "\(misbehaviour).bin",
                                         "\(misbehaviour): never stitched from wrong parts")

            XCTAssertEqual(file.response.statusCode, 200, misbehaviour)
            let seen = try log(key)
            XCTAssertEqual(seen.map(\.range), [nil, "bytes=70000-", nil], "\(misbehaviour): the third attempt starts over")
            XCTAssertEqual(seen.map(\.status), [200, misbehaviour == "416" ? 416 : 206, 200], misbehaviour)
        }
    }

    func test_givenTheBodyChangedOnce_whenTheRestartedBodyIsCutToo_thenItIsResumedInTurn() throws {
        let key = counterKey()

        try downloadWhole(endpoint(key, "cuts=60000,120000&changes=once"), named: "restarted.bin")

        let seen = try log(key)
        XCTAssertEqual(seen.map(\.status), [200, 200, 206])
        XCTAssertEqual(seen.map(\.range), [nil, "bytes=60000-", "bytes=120000-"])
        XCTAssertEqual(seen.map(\.ifRange), [nil, "\"v1-\(key)\"", "\"v2-\(key)\""])
    }

    func test_givenAnEndpointThatDoesNotAccept206_thenTheRetryStartsOver() throws {
        struct Only200: Endpoint {
            typealias Response = JSON
            let path: String
            let query: [URLQueryItem]
            var timeout: TimeInterval? { 20 }
            var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(10), jitter: 0) }
            var acceptedStatusCodes: StatusCodeSet { [200] }
        }
        let key = counterKey()

        try downloadWhole(Only200(path: "resumable/\(key)", query: query("cuts=50000")), named: "only200.bin")

        XCTAssertEqual(try log(key).map(\.range), [nil, nil])
    }

    func test_givenNoRetry_whenTheConnectionDrops_thenItFailsAndNothingIsLeft() throws {
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("dropped.bin")

        let error = failure(of: client.download(endpoint(key, "cuts=70000", retry: RetryPolicy.none), to: destination), within: 30)

        XCTAssertEqual(error.map(errorKind), "transport")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
        XCTAssertEqual(transportFiles().subtracting(before), [], "the saved start is deleted when no retry follows")
    }

    func test_givenEveryAttemptDrops_whenTheRetriesRunOut_thenNothingIsLeft() throws {
        let key = counterKey()
        let before = transportFiles()
        let client = try makeClient()
        let destination = scratch.appendingPathComponent("exhausted.bin")

        let error = failure(of: client.download(endpoint(key, "cuts=10000,20000,30000,40000"), to: destination), within: 30)

        XCTAssertEqual(error.map(errorKind), "transport")
        XCTAssertEqual(try log(key).map(\.range), [nil, "bytes=10000-", "bytes=20000-", "bytes=30000-"])
        XCTAssertEqual(transportFiles().subtracting(before), [])
    }

    func test_givenACancelWhileWaitingToRetry_thenTheSavedStartIsDeleted() throws {
        let key = counterKey()
        let before = transportFiles()
        let failed = expectation(description: "the first attempt failed")
        let client = try makeClient { $0.plugins = [AttemptFailureSignal { failed.fulfill() }] }
        let destination = scratch.appendingPathComponent("cancelled.bin")
        let slow = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(60), jitter: 0)

        let download = client.download(endpoint(key, "cuts=70000", retry: slow), to: destination)
        wait(for: [failed], timeout: 20)
        XCTAssertEqual(transportFiles().subtracting(before).count, 1, "the saved start waits for the retry")
        download.cancel()

        XCTAssertEqual(failure(of: download).map(errorKind), "PromiseError.cancelled")
        XCTAssertTrue(eventually { self.transportFiles().subtracting(before).isEmpty }, "the saved start is deleted")
        XCTAssertEqual(try log(key).count, 1, "no retry went out")
    }
}

/// Calls `action` when an attempt fails.
private struct AttemptFailureSignal: RequestPlugin {
    let action: @Sendable () -> Void

    func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {
        if case .failure = result { action() }
    }
}

/// Runs every scheduled work in real time except request deadlines (work of `timeout` seconds),
/// which it holds until a test fires the newest one.
private final class HeldDeadlines: RequestScheduler {
    private let timeout: TimeInterval
    private let real = DispatchScheduler()
    private let held = SharedValue<[(id: UUID, work: @Sendable () -> Void)]>([])

    init(timeout: TimeInterval) { self.timeout = timeout }

    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        guard delay == timeout else { return real.schedule(after: delay, work) }
        let id = UUID()
        held.withLock { $0.append((id, work)) }
        return ScheduledWork { [held] in held.withLock { $0.removeAll { $0.id == id } } }
    }

    /// Runs the newest deadline still scheduled, on this thread.
    func fireNewest() {
        held.withLock { $0.popLast()?.work }?()
    }
}

/// Fires the held deadline from inside its `onCall`th `prepare`.
private struct DeadlineInPrepare: RequestPlugin {
    let deadlines: HeldDeadlines
    let onCall: Int
    private let calls = SharedValue(0)

    init(deadlines: HeldDeadlines, onCall: Int) {
        self.deadlines = deadlines
        self.onCall = onCall
    }

    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        if call == onCall { deadlines.fireNewest() }
        return request
    }
}
