import Courier
import Foundation
import Promises
import XCTest

/// Retries against a real server, counted by the server itself (`/counter/<key>`), and plugins
/// seeing every attempt.
final class RetryIntegrationTests: IntegrationTestCase {
    /// A fast policy: no jitter, 10 ms between attempts.
    private func policy(retries: Int, statuses: Set<Int> = [408, 429, 502, 503, 504]) -> RetryPolicy {
        RetryPolicy(maximumRetryCount: retries, delayBeforeRetry: .milliseconds(10), jitter: 0,
                    retryableStatusCodes: statuses)
    }

    private func sequence(_ key: String, _ seq: String, method: HTTPMethod = .get, retries: Int,
                          extraQuery: [URLQueryItem] = []) -> LiveJSONEndpoint {
        LiveJSONEndpoint(path: "counter/\(key)/statuses", method: method,
                     query: [URLQueryItem(name: "seq", value: seq)] + extraQuery, retryPolicy: policy(retries: retries))
    }

    func test_givenTwo503sThen200_whenRetryingThreeTimes_thenItSucceedsOnTheThirdAttempt() throws {
        let key = counterKey()
        let plugin = AttemptRecorder()
        let client = try makeClient { $0.plugins = [plugin] }
        let json = try value(of: client.request(sequence(key, "503,503,200", retries: 3)))
        XCTAssertEqual(json["attempt"].int, 3)
        XCTAssertEqual(try count(for: key), 3)
        XCTAssertEqual(plugin.sent.count, 3, "willSend must see every attempt")
        XCTAssertEqual(plugin.receivedStatusCodes, [503, 503, 200], "didReceive must see every attempt")
    }

    func test_givenOnly503s_whenRetriesRunOut_thenTheLastServerErrorIsDelivered() throws {
        let key = counterKey()
        let client = try makeClient()
        let error = failure(of: client.request(sequence(key, "503", retries: 2)))
        XCTAssertEqual(error.map(errorKind), "serverError(503)")
        XCTAssertEqual(try count(for: key), 3, "one attempt plus two retries")
    }

    func test_givenA404_thenItIsNotRetried() throws {
        let key = counterKey()
        let client = try makeClient()
        let error = failure(of: client.request(sequence(key, "404,200", retries: 3)))
        XCTAssertEqual(error.map(errorKind), "clientError(404)")
        XCTAssertEqual(try count(for: key), 1)
    }

    func test_givenAPost_thenA503IsNotRetried() throws {
        let key = counterKey()
        let client = try makeClient()
        let error = failure(of: client.request(sequence(key, "503,200", method: .post, retries: 3)))
        XCTAssertEqual(error.map(errorKind), "serverError(503)")
        XCTAssertEqual(try count(for: key), 1, "POST is not idempotent, so it is not retried by default")
    }

    func test_givenA429WithRetryAfterZero_thenItIsRetriedPromptly() throws {
        let key = counterKey()
        let client = try makeClient()
        let start = Date()
        var endpoint = sequence(key, "429,200", retries: 1, extraQuery: [.init(name: "retry_after", value: "0")])
        // A backoff far longer than any stall: only the header can make the retry prompt.
        endpoint.retryPolicy = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(25), maximumDelay: 30, jitter: 0)
        XCTAssertEqual(try value(of: client.request(endpoint), within: 40)["attempt"].int, 2)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "Retry-After: 0 wins over the 25 s backoff")
    }

    func test_givenNoRetryPolicy_thenA503IsDeliveredAfterOneAttempt() throws {
        let key = counterKey()
        let client = try makeClient()
        let endpoint = LiveJSONEndpoint(path: "counter/\(key)/statuses", query: [.init(name: "seq", value: "503,200")])
        XCTAssertEqual(failure(of: client.request(endpoint)).map(errorKind), "serverError(503)")
        XCTAssertEqual(try count(for: key), 1)
    }

    func test_givenARefusedConnection_thenItIsRetriedAndFailsWithTheTransportsError() throws {
        let unused = try TestServer.start()
        let base = unused.baseURL
        unused.stop()
        let plugin = AttemptRecorder()
        let client = NetworkClient(configuration: {
            var configuration = NetworkClient.Configuration(baseURL: base)
            configuration.plugins = [plugin]
            return configuration
        }())
        let error = failure(of: client.request(LiveJSONEndpoint(path: "anything", retryPolicy: policy(retries: 2))))
        guard case .transport(let underlying)? = error as? NetworkError else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual(RetryPolicy.defaultRetryableURLErrorCodes.contains((underlying as? URLError)?.code ?? .unknown), true,
                       "FoundationNetworking's error is one the default codes retry: \(underlying)")
        XCTAssertEqual(plugin.sent.count, 3, "one attempt plus two retries")
    }

    func test_givenARedirectLoop_thenItIsNotRetried() throws {
        let plugin = AttemptRecorder()
        let client = try makeClient { $0.plugins = [plugin] }
        let error = failure(of: client.request(LiveJSONEndpoint(path: "redirect-loop/302", retryPolicy: policy(retries: 3))))
        guard case .transport(let underlying)? = error as? NetworkError else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual((underlying as? URLError)?.code, .httpTooManyRedirects)
        XCTAssertEqual(plugin.sent.count, 1, "another try would meet the same loop")
    }

    func test_givenARequestWaitingToRetry_whenCancelled_thenNoFurtherAttemptIsMade() throws {
        let key = counterKey()
        let plugin = AttemptRecorder()
        // The back-off runs on a clock the test moves, so "no further attempt" is checked after
        // the retry would have been due, not merely before it.
        let scheduler = ManualScheduler()
        let client = try makeClient {
            $0.plugins = [plugin]
            $0.scheduler = scheduler
        }
        let endpoint = LiveJSONEndpoint(path: "counter/\(key)/statuses", query: [.init(name: "seq", value: "503,200")],
                                        retryPolicy: RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .seconds(2),
                                                                 jitter: 0))
        let promise = client.request(endpoint)
        // Wait for the first answer to be classified and its back-off scheduled, then cancel.
        XCTAssertTrue(plugin.waitForReceive())
        XCTAssertTrue(scheduler.waitForScheduled(2), "the back-off was never scheduled")
        XCTAssertEqual(scheduler.requestedDelays.last, 2)
        promise.cancel()
        XCTAssertEqual(failure(of: promise, within: 2).map(errorKind), "PromiseError.cancelled")
        scheduler.advance(by: 100)
        XCTAssertEqual(try count(for: key), 1)
        XCTAssertEqual(plugin.sent.count, 1)
        XCTAssertEqual(plugin.received.count, 1)
    }

    func test_givenAPluginThatAddsAHeader_thenTheServerReceivesIt() throws {
        let plugin = AttemptRecorder(extraHeaders: ["X-Plugin": "seen"])
        let client = try makeClient { $0.plugins = [plugin] }
        let echo = try value(of: client.request(LiveEndpoint<ServerEcho>(path: "anything")))
        XCTAssertEqual(echo.header("X-Plugin"), "seen")
        XCTAssertEqual(plugin.sent.first?.value(forHTTPHeaderField: "X-Plugin"), "seen")
    }
}
