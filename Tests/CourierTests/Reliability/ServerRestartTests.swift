import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 7, faults: the local server dies with requests in flight and comes back on the same
/// port. Requests that were in flight fail with `.transport`; idempotent requests with a retry
/// policy keep retrying through the outage and succeed once the server is back; a POST is never
/// replayed.
final class ServerRestartTests: XCTestCase {
    /// Retries every ~200 ms (up to 1 s apart) for about ten seconds: long enough to span a restart.
    private let patientPolicy = RetryPolicy(maximumRetryCount: 12, delayBeforeRetry: .milliseconds(200),
                                            backoffMultiplier: 1.5, maximumDelay: 1, jitter: 0.1)

    /// How many requests the server has received so far (the `/stats` request included).
    private func requestsSeen(by server: TestServer) -> Int {
        ((try? server.fetch("/stats", timeout: 2))?.jsonObject["requests"] as? Int) ?? 0
    }

    /// How many attempts `recorder` saw fail (no HTTP response, or an error status).
    private func failures(in recorder: AttemptRecorder) -> Int {
        recorder.received.filter { if case .failure = $0 { true } else { false } }.count
    }

    func test_givenRequestsInFlight_whenTheServerDiesAndRestartsOnTheSamePort_thenInFlightFailWithTransportAndRetriedGetsSucceed() throws {
        let first = try TestServer.start()
        let port = first.port
        let recorder = AttemptRecorder()
        var configuration = NetworkClient.Configuration(baseURL: first.baseURL)
        configuration.timeout = 30
        configuration.plugins = [recorder]
        // URLSession allows six connections per host by default; every request here needs its own.
        let session = URLSessionConfiguration.ephemeral
        session.httpMaximumConnectionsPerHost = 32
        let client = NetworkClient(configuration: configuration, transport: URLSessionTransport(configuration: session))

        // In flight when the server dies: the server sleeps before answering each (ten seconds for
        // those that must fail, five for those that are retried and answered by the new server).
        let plainGets = (0..<3).map { i in
            client.request(LiveEndpoint<ServerEcho>(path: "delay/10", query: [.init(name: "plain", value: "\(i)")]))
        }
        let posts = (0..<2).map { i in
            client.request(LiveEndpoint<ServerEcho>(path: "delay/10", method: .post,
                                                    query: [.init(name: "post", value: "\(i)")],
                                                    body: .json(["n": i]), retryPolicy: patientPolicy))
        }
        let retriedGets = (0..<3).map { i in
            client.request(LiveEndpoint<ServerEcho>(path: "delay/5", query: [.init(name: "retried", value: "\(i)")],
                                                    retryPolicy: patientPolicy))
        }
        let inFlight = plainGets.count + posts.count + retriedGets.count
        // Wait until the server holds every one of them (each /stats poll counts itself too).
        var polls = 0
        let arrived = eventually(within: 10) {
            polls += 1
            return requestsSeen(by: first) >= inFlight + polls
        }
        XCTAssertTrue(arrived, "the requests never reached the server")

        first.stop()

        // Every in-flight attempt fails at the transport level.
        XCTAssertTrue(eventually(within: 10) { failures(in: recorder) >= inFlight },
                      "in-flight attempts did not fail when the server died: \(recorder.receivedStatusCodes)")
        for promise in plainGets + posts {
            let result = settle(promise, within: 10)
            XCTAssertEqual(networkError(result).map(errorKind), "transport", "got \(String(describing: result))")
        }
        // While the server is down, a new request without retries is refused at once.
        let refused = networkError(settle(client.request(LiveJSONEndpoint(path: "anything/down")), within: 10))
        XCTAssertEqual(refused.map(errorKind), "transport")
        // New idempotent requests with a retry policy issued during the outage.
        let duringOutage = (0..<5).map { i in
            client.request(LiveEndpoint<ServerEcho>(path: "anything/outage/\(i)", retryPolicy: patientPolicy))
        }
        XCTAssertTrue(eventually(within: 10) { failures(in: recorder) >= inFlight + 1 + duringOutage.count },
                      "requests issued during the outage did not hit the closed port")

        let second = try TestServer.start(port: port)
        defer { second.stop() }
        XCTAssertEqual(second.port, port)

        for (i, promise) in retriedGets.enumerated() {
            let echo = try XCTUnwrap(try settle(promise, within: 20)?.get())
            XCTAssertEqual(echo.method, "GET")
            XCTAssertEqual(echo.query["retried"].string, "\(i)")
        }
        for (i, promise) in duringOutage.enumerated() {
            let echo = try XCTUnwrap(try settle(promise, within: 20)?.get())
            XCTAssertEqual(echo.path, "/anything/outage/\(i)")
        }
        let sentPosts = recorder.sent.filter { $0.httpMethod == "POST" }.count
        XCTAssertEqual(sentPosts, posts.count, "a POST was replayed after the connection died")
        let retriedAttempts = recorder.sent.filter { $0.url?.query?.contains("retried=") == true }.count
        XCTAssertGreaterThan(retriedAttempts, retriedGets.count, "the retried GETs were never retried")
        print("Faults: \(inFlight) in flight when the server died; \(recorder.sent.count) attempts in all; "
              + "\(retriedAttempts) attempts for \(retriedGets.count) retried GETs")
    }
}
