import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RetryPolicyTests: XCTestCase {
    private let policy = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .seconds(1))

    private func status(_ code: Int, headers: [String: String] = [:]) -> NetworkError {
        let response = HTTPResponse(statusCode: code, headers: headers)
        return NetworkError.classify(response, parser: { _ in nil }) ?? .invalidRequest(reason: "2xx in test")
    }

    // MARK: shouldRetry

    func test_givenDefaultPolicy_whenErrorsOfEachKind_thenOnlyTransientOnesRetried() {
        let table: [(NetworkError, Bool)] = [
            (.transport(underlying: URLError(.networkConnectionLost)), true), (.timedOut, true),
            (status(408), true), (status(429), true), (status(502), true), (status(503), true), (status(504), true),
            (status(400), false), (status(401), false), (status(403), false), (status(404), false), (status(409), false),
            (status(422), false), (status(500), false), (status(501), false), (status(302), false),
            (.cancelled, false), (.invalidRequest(reason: "x"), false),
            (.decodingFailed(underlying: URLError(.cannotDecodeContentData), response: HTTPResponse(statusCode: 200)), false),
            (.authenticationFailed(underlying: URLError(.userAuthenticationRequired)), false),
        ]
        for (error, expected) in table {
            XCTAssertEqual(policy.shouldRetry(error, method: .get), expected, "\(error)")
        }
    }

    func test_givenDefaultPolicy_whenMethodsCompared_thenOnlyIdempotentRetried() {
        let table: [(HTTPMethod, Bool)] = [(.get, true), (.head, true), (.options, true), (.trace, true), (.put, true),
                                           (.delete, true), (.post, false), (.patch, false), (.connect, false)]
        for (method, expected) in table {
            XCTAssertEqual(policy.shouldRetry(.timedOut, method: method), expected, method.rawValue)
        }
    }

    func test_givenCustomSets_whenChecked_thenTheyReplaceTheDefaults() {
        let custom = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1),
                                 retryableStatusCodes: [500, 409], retryableMethods: [.post])
        XCTAssertTrue(custom.shouldRetry(status(500), method: .post))
        XCTAssertTrue(custom.shouldRetry(status(409), method: .post))
        XCTAssertFalse(custom.shouldRetry(status(503), method: .post))
        XCTAssertFalse(custom.shouldRetry(status(500), method: .get))
        XCTAssertFalse(custom.shouldRetry(.cancelled, method: .post))
    }

    func test_givenACustomRule_whenChecked_thenItReplacesTheStatusRulesButNotTheMethodRuleOrCancellation() {
        let temporary = NetworkError.serverError(
            statusCode: 500, metadata: ServerMetadata(status: "TEMPORARY", message: nil, body: nil),
            response: HTTPResponse(statusCode: 500))
        let custom = RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .seconds(1)) { error in
            error.metadata?.status == "TEMPORARY" || error.shortName == "cancelled"
        }
        XCTAssertTrue(custom.shouldRetry(temporary, method: .get))
        XCTAssertFalse(custom.shouldRetry(status(503), method: .get), "the built-in 503 rule was not replaced")
        XCTAssertFalse(custom.shouldRetry(temporary, method: .post), "the method rule must still apply")
        XCTAssertFalse(custom.shouldRetry(.cancelled, method: .get), "a cancellation must never be retried")
        XCTAssertFalse(policy.shouldRetry(temporary, method: .get), "the default policy does not retry a 500")
    }

    /// End to end through a stubbed client: a 500 that the rule accepts is retried.
    func test_givenACustomRule_whenAStubbedRequestFailsWithAMatchingError_thenItIsRetriedUntilItSucceeds() throws {
        let client = NetworkClient.stubbing().sequence([
            .json(#"{"metadata":{"status":"TEMPORARY","desc":"warming up"}}"#, status: 500),
            .json(#"{"ok":true}"#),
        ]).makeClient()
        let rule = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0) {
            $0.metadata?.status == "TEMPORARY"
        }
        let result = settle(client.request(StubJSONEndpoint(path: "warm", retryPolicy: rule)), within: 10)
        XCTAssertEqual(try result?.get()["ok"].bool, true)
    }

    // MARK: The client's policy

    /// Sends `endpoint` through a client whose policy allows two retries, to a stub that answers
    /// 503 once and then 200: the outcome, and how many attempts the stub saw.
    private func clientPolicyRun(_ endpoint: StubJSONEndpoint) -> (outcome: String, attempts: Int) {
        let attempts = SharedValue(0)
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.retryPolicy = RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(1), jitter: 0)
        let client = NetworkClient.stubbing().respond { _ in
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            return attempt == 1 ? StubResponse(status: 503) : .json(#"{"ok":true}"#)
        }.makeClient(configuration: configuration)
        let outcome = outcomeName(settle(client.request(endpoint), within: 10))
        return (outcome, attempts.withLock { $0 })
    }

    func test_givenAClientPolicy_whenAnEndpointHasNone_thenTheClientsPolicyRetriesIt() {
        let run = clientPolicyRun(StubJSONEndpoint(path: "feed"))
        XCTAssertEqual(run.outcome, "ok")
        XCTAssertEqual(run.attempts, 2)
    }

    func test_givenAClientPolicy_whenAnEndpointSaysNone_thenItIsNotRetried() {
        let run = clientPolicyRun(StubJSONEndpoint(path: "feed", retryPolicy: RetryPolicy.none))
        XCTAssertEqual(run.outcome, "serverError(503)")
        XCTAssertEqual(run.attempts, 1)
    }

    func test_givenAClientPolicy_whenAPostFails_thenTheDefaultMethodRuleStillHoldsItBack() {
        var post = StubJSONEndpoint(path: "orders")
        post.method = .post
        let run = clientPolicyRun(post)
        XCTAssertEqual(run.outcome, "serverError(503)")
        XCTAssertEqual(run.attempts, 1)
    }

    func test_givenNoRetriesAllowed_whenChecked_thenNeverRetries() {
        XCTAssertFalse(RetryPolicy.none.shouldRetry(.timedOut, method: .get))
        XCTAssertEqual(RetryPolicy(maximumRetryCount: -4, delayBeforeRetry: .seconds(1)).maximumRetryCount, 0)
        XCTAssertEqual(RetryPolicy.default.maximumRetryCount, 3)
        XCTAssertTrue(RetryPolicy.default.shouldRetry(status(503), method: .get))
    }

    // MARK: delay

    private func delay(_ policy: RetryPolicy, _ retry: Int, after error: NetworkError = .timedOut,
                       now: Date = Date(timeIntervalSince1970: 1_000_000),
                       random: (ClosedRange<Double>) -> Double = { _ in 1 }) -> TimeInterval {
        policy.delay(beforeRetry: retry, after: error, now: now, random: random)
    }

    func test_givenBackoff_whenRetriesProceed_thenWaitGrowsExponentiallyUpToCap() {
        let capped = RetryPolicy(maximumRetryCount: 9, delayBeforeRetry: .milliseconds(500), maximumDelay: 5, jitter: 0)
        let waits = (1...7).map { delay(capped, $0) }
        XCTAssertEqual(waits, [0.5, 1, 2, 4, 5, 5, 5])
        let constant = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .seconds(2), backoffMultiplier: 1, jitter: 0)
        XCTAssertEqual((1...3).map { delay(constant, $0) }, [2, 2, 2])
        XCTAssertEqual(delay(capped, 10_000), 5)
    }

    func test_givenJitter_whenDelayComputed_thenSpreadWithinBoundsAndCapped() {
        let jittery = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .seconds(2), maximumDelay: 30, jitter: 0.25)
        XCTAssertEqual(delay(jittery, 1, random: { $0.lowerBound }), 1.5, accuracy: 1e-9)
        XCTAssertEqual(delay(jittery, 1, random: { $0.upperBound }), 2.5, accuracy: 1e-9)
        let samples = (0..<200).map { _ in jittery.delay(beforeRetry: 2, after: .timedOut) }
        XCTAssertTrue(samples.allSatisfy { (3...5).contains($0) }, "\(samples)")
        XCTAssertGreaterThan(Set(samples).count, 1)
        let nearCap = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .seconds(10), maximumDelay: 10, jitter: 0.5)
        XCTAssertEqual(delay(nearCap, 1, random: { $0.upperBound }), 10)
    }

    func test_givenRetryAfterSeconds_whenDelayComputed_thenHonouredAndCapped() {
        let limited = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .seconds(1), maximumDelay: 60)
        XCTAssertEqual(delay(limited, 1, after: status(429, headers: ["Retry-After": "7"])), 7)
        XCTAssertEqual(delay(limited, 3, after: status(503, headers: ["retry-after": " 0 "])), 0)
        XCTAssertEqual(delay(limited, 1, after: status(503, headers: ["Retry-After": "3600"])), 60)
    }

    func test_givenRetryAfterHTTPDate_whenDelayComputed_thenSecondsUntilThatDate() {
        let now = Date(timeIntervalSince1970: 1_445_412_470) // Wed, 21 Oct 2015 07:27:50 GMT
        let table: [(String, TimeInterval)] = [
            ("Wed, 21 Oct 2015 07:28:00 GMT", 10),
            ("Wednesday, 21-Oct-15 07:28:05 GMT", 15),
            ("Wed Oct 21 07:28:20 2015", 30),
            ("Wed, 21 Oct 2015 07:00:00 GMT", 0),
        ]
        for (header, expected) in table {
            let error = status(503, headers: ["Retry-After": header])
            XCTAssertEqual(delay(policy, 1, after: error, now: now), expected, accuracy: 0.001, header)
        }
    }

    func test_givenUnparseableRetryAfter_whenDelayComputed_thenBackoffUsed() {
        // The last one trapped inside DateFormatter before HTTP dates were parsed by hand (fuzzing).
        for header in ["soon", "-5", "1.5", "", "Wed, 21\u{0730}" + String(repeating: "\u{0}", count: 38) + " G"] {
            let error = status(503, headers: ["Retry-After": header])
            XCTAssertEqual(delay(policy, 2, after: error), 2, header)
        }
    }

    // MARK: URLError codes

    private struct CustomTransportFailure: Error {}

    private func transport(_ code: URLError.Code) -> NetworkError { .transport(underlying: URLError(code)) }

    func test_givenTheDefaultCodes_whenURLErrorsOfEachKind_thenOnlyThoseAnotherTryMayNotMeetAreRetried() {
        let retried: [URLError.Code] = [
            .networkConnectionLost, .cannotConnectToHost, .notConnectedToInternet, .cannotFindHost, .dnsLookupFailed,
            .badServerResponse, .secureConnectionFailed, .timedOut, .serverCertificateHasBadDate, .unknown,
        ]
        let repeated: [URLError.Code] = [
            .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .clientCertificateRejected, .badURL,
            .unsupportedURL, .httpTooManyRedirects, .cannotDecodeContentData, .dataLengthExceedsMaximum,
            .userAuthenticationRequired, .cannotParseResponse, .fileDoesNotExist,
        ]
        for code in retried { XCTAssertTrue(policy.shouldRetry(transport(code), method: .get), "\(code.rawValue)") }
        for code in repeated { XCTAssertFalse(policy.shouldRetry(transport(code), method: .get), "\(code.rawValue)") }
        XCTAssertEqual(policy.retryableURLErrorCodes, RetryPolicy.defaultRetryableURLErrorCodes)
    }

    func test_givenAnNSErrorInTheURLDomain_whenChecked_thenItsCodeDecidesLikeAURLErrors() {
        let untrusted = NSError(domain: NSURLErrorDomain, code: URLError.Code.serverCertificateUntrusted.rawValue)
        let lost = NSError(domain: NSURLErrorDomain, code: URLError.Code.networkConnectionLost.rawValue)
        XCTAssertFalse(policy.shouldRetry(.transport(underlying: untrusted), method: .get))
        XCTAssertTrue(policy.shouldRetry(.transport(underlying: lost), method: .get))
        XCTAssertEqual(RetryPolicy.urlErrorCode(of: CustomTransportFailure()), nil)
    }

    func test_givenATransportErrorThatIsNoURLError_whenChecked_thenItIsRetried() {
        XCTAssertTrue(policy.shouldRetry(.transport(underlying: CustomTransportFailure()), method: .get))
        XCTAssertTrue(policy.shouldRetry(.transport(underlying: CocoaError(.fileReadNoSuchFile)), method: .get))
    }

    func test_givenOwnCodes_whenChecked_thenOnlyThoseURLErrorsAreRetried() {
        let own = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1), retryableURLErrorCodes: [.cannotParseResponse])
        XCTAssertTrue(own.shouldRetry(transport(.cannotParseResponse), method: .get))
        XCTAssertFalse(own.shouldRetry(transport(.networkConnectionLost), method: .get))
        XCTAssertTrue(own.shouldRetry(.timedOut, method: .get), "a time-out is not a URLError code's to decide")
        let never = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1), retryableURLErrorCodes: [])
        XCTAssertFalse(never.shouldRetry(transport(.networkConnectionLost), method: .get))
        XCTAssertTrue(never.shouldRetry(.transport(underlying: CustomTransportFailure()), method: .get))
    }

    func test_givenAStubbedUntrustedCertificate_whenTheEndpointRetries_thenOneAttemptFailsWithIt() {
        let plugin = RecordingPlugin()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = [plugin]
        configuration.retryPolicy = RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0)
        let untrusted = NetworkClient.stubbing()
            .sequence([.failure(URLError(.serverCertificateUntrusted)), .json("{}")]).makeClient(configuration: configuration)
        guard case .transport(let underlying)? = networkError(settle(untrusted.request(Request<JSON>("secure")))) else {
            return XCTFail("expected the transport error")
        }
        XCTAssertEqual((underlying as? URLError)?.code, .serverCertificateUntrusted)
        XCTAssertEqual(plugin.events.filter { $0 == "willSend" }.count, 1)

        let dropped = NetworkClient.stubbing()
            .sequence([.failure(URLError(.networkConnectionLost)), .json("{}")]).makeClient(configuration: configuration)
        XCTAssertEqual(outcomeName(settle(dropped.request(Request<JSON>("flaky")))), "ok")
    }

    func test_givenIntervalUnits_whenConverted_thenSeconds() {
        XCTAssertEqual(RetryPolicy.seconds(.milliseconds(250), cap: 9), 0.25)
        XCTAssertEqual(RetryPolicy.seconds(.microseconds(5), cap: 9), 0.000_005, accuracy: 1e-12)
        XCTAssertEqual(RetryPolicy.seconds(.nanoseconds(7), cap: 9), 0.000_000_007, accuracy: 1e-15)
        XCTAssertEqual(RetryPolicy.seconds(.never, cap: 9), 9)
        let never = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .never, maximumDelay: 4, jitter: 0)
        XCTAssertEqual(delay(never, 1), 4)
        let zero = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(0))
        XCTAssertEqual(delay(zero, 5), 0)
    }

    func test_givenOutOfRangeSettings_whenCreated_thenSanitised() {
        let odd = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1), backoffMultiplier: .nan,
                              maximumDelay: -1, jitter: 7)
        XCTAssertEqual(odd.backoffMultiplier, 1)
        XCTAssertEqual(odd.maximumDelay, 0)
        XCTAssertEqual(odd.jitter, 1)
        XCTAssertEqual(delay(odd, 3), 0)
    }
}
