import Courier
import Foundation
import Promises
import XCTest

/// Traffic control and per-attempt behaviour against a real server: a paused client holds requests
/// (the server never sees them) until it resumes, each retry gets a fresh deadline, HEAD works, and
/// the logging plugin never prints a credential.
final class TrafficIntegrationTests: IntegrationTestCase {
    private func counted(_ key: String, requiresAuthentication: Bool = true) -> LiveJSONEndpoint {
        LiveJSONEndpoint(path: "counter/\(key)/statuses", query: [.init(name: "seq", value: "200")],
                         requiresAuthentication: requiresAuthentication)
    }

    func test_givenAPausedClient_whenARequestIsIssued_thenTheServerSeesItOnlyAfterResume() throws {
        let key = counterKey()
        let client = try makeClient()
        client.pause()
        XCTAssertTrue(client.isPaused)
        let held = client.request(counted(key))
        // A request on the bypass lane makes a full round trip while the other one is held.
        let bypass = try value(of: client.request(counted(key, requiresAuthentication: false)))
        XCTAssertEqual(bypass["attempt"].int, 1, "the held request must not have reached the server")
        XCTAssertTrue(held.isPending)
        XCTAssertEqual(try count(for: key), 1)

        client.resume()
        XCTAssertFalse(client.isPaused)
        XCTAssertEqual(try value(of: held)["attempt"].int, 2)
        XCTAssertEqual(try count(for: key), 2)
    }

    func test_givenAHeldRequest_whenCancelled_thenItNeverReachesTheServer() throws {
        let key = counterKey()
        let client = try makeClient()
        client.pause()
        let held = client.request(counted(key))
        held.cancel()
        XCTAssertEqual(failure(of: held, within: 2).map(errorKind), "PromiseError.cancelled")
        client.resume()
        // A later request is counted first: the cancelled one never went out.
        XCTAssertEqual(try value(of: client.request(counted(key)))["attempt"].int, 1)
    }

    func test_givenATimedOutFirstAttempt_whenRetried_thenTheRetryGetsAFreshDeadline() throws {
        let key = counterKey()
        let client = try makeClient()
        let endpoint = LiveJSONEndpoint(
            path: "counter/\(key)/statuses", query: [.init(name: "seq", value: "200@20,200")], timeout: 0.5,
            retryPolicy: RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(10), jitter: 0))
        let start = Date()
        XCTAssertEqual(try value(of: client.request(endpoint), within: 30)["attempt"].int, 2)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "the first attempt must end at its 0.5 s deadline, not after 20 s")
    }

    func test_givenAHeadRequest_thenTheStatusArrivesWithoutABody() throws {
        let client = try makeClient()
        let response = try value(of: client.response(for: LiveJSONEndpoint(path: "anything", method: .head)))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertTrue(response.body.isEmpty)
    }

    func test_givenTheLoggingPlugin_thenItLogsStatusButNeverTheCredential() throws {
        let lines = LineSink()
        let client = try makeClient { $0.plugins = [LoggingPlugin { lines.append($0) }] }
        let endpoint = LiveJSONEndpoint(path: "status/503", headers: ["Authorization": "Bearer top-secret-token"])
        XCTAssertEqual(failure(of: client.request(endpoint)).map(errorKind), "serverError(503)")
        let log = lines.all.joined(separator: "\n")
        XCTAssertTrue(log.contains("503"), log)
        XCTAssertTrue(log.contains("/status/503"), log)
        XCTAssertFalse(log.contains("top-secret-token"), "a credential leaked into the log:\n\(log)")
    }
}

/// Collects log lines from any thread.
// @unchecked Sendable: `lines` is only read and written while holding `lock`.
private final class LineSink: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    var all: [String] { lock.withLock { lines } }
}
