import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How long a request rejected with 401 waits for the credential refresh, and how its failure
/// reads (`NetworkError.isCredentialRejected`).
final class RefreshWaitTests: XCTestCase {
    private let response = HTTPResponse(statusCode: 400, headers: [:], body: Data(), url: nil)

    private func status(_ code: Int) -> NetworkError {
        let response = HTTPResponse(statusCode: code, headers: [:], body: Data(), url: nil)
        return code >= 500 ? .serverError(statusCode: code, metadata: nil, response: response)
            : .clientError(statusCode: code, metadata: nil, response: response)
    }

    // MARK: isCredentialRejected

    func test_givenRefusalsOfTheRefresh_whenAskedIfTheCredentialWasRejected_thenTrue() {
        let refusals: [any Error] = [
            status(400), status(401), status(403),
            AuthenticationError.refreshLimitExceeded(3, window: 60), AuthenticationError.unusableToken,
            URLError(.userCancelledAuthentication), URLError(.userAuthenticationRequired),
            NSError(domain: NSURLErrorDomain, code: URLError.Code.userCancelledAuthentication.rawValue),
            NetworkError.authenticationFailed(underlying: status(400)),
        ]
        for cause in refusals {
            XCTAssertTrue(NetworkError.authenticationFailed(underlying: cause).isCredentialRejected, "\(cause)")
        }
    }

    func test_givenARefreshThatDidNotFinish_whenAskedIfTheCredentialWasRejected_thenFalse() {
        struct NoRefreshTokenStored: Error {}
        let decoding = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad"))
        let unfinished: [any Error] = [
            PromiseError.timedOut, PromiseError.cancelled, NetworkError.timedOut, NetworkError.cancelled,
            NetworkError.transport(underlying: URLError(.notConnectedToInternet)), URLError(.timedOut),
            URLError(.serverCertificateUntrusted), status(404), status(405), status(408), status(422), status(429),
            status(500), status(503),
            NetworkError.decodingFailed(underlying: decoding, response: response),
            NetworkError.authenticationFailed(underlying: PromiseError.timedOut), NoRefreshTokenStored(),
        ]
        for cause in unfinished {
            XCTAssertFalse(NetworkError.authenticationFailed(underlying: cause).isCredentialRejected, "\(cause)")
        }
    }

    func test_givenOtherCases_whenAskedIfTheCredentialWasRejected_thenFalse() {
        let others: [NetworkError] = [status(401), status(403), .timedOut, .cancelled, .invalidRequest(reason: "r"),
                                      .transport(underlying: URLError(.userCancelledAuthentication))]
        for error in others { XCTAssertFalse(error.isCredentialRejected, "\(error)") }
    }

    // MARK: The wait, through the client

    private func client(auth: TokenAuthenticator, server: TokenServer, timeout: TimeInterval,
                        clock: VirtualClock? = nil) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = timeout
        var builder = NetworkClient.stubbing().respond { server.respond($0) }
        if let clock { builder = builder.clock(clock) }
        return builder.makeClient(configuration: configuration)
    }

    /// The 401 ended the request's attempt; the wait for the refresh lies between that attempt
    /// and the replay, as a retry's back-off does, so the endpoint's own short timeout does not
    /// end it. The replay gets a fresh deadline.
    func test_givenA401_whenTheRefreshOutlastsTheEndpointsTimeout_thenTheRequestWaitsAndIsReplayed() {
        let clock = VirtualClock()
        let server = TokenServer(valid: "token-1")
        let (release, releaser) = Promise<Void>.pending()
        let refreshStarted = expectation(description: "refresh started")
        let auth = TokenAuthenticator(token: "stale") { _ in
            refreshStarted.fulfill()
            return release.then { server.refresh(delay: 0) }   // the server's new token: token-2
        }
        let client = client(auth: auth, server: server, timeout: 60, clock: clock)
        let request = client.request(StubJSONEndpoint(path: "me", timeout: 5))
        wait(for: [refreshStarted], timeout: 5)
        clock.advance(by: 30)
        XCTAssertTrue(request.isPending, "the endpoint's 5 s timeout ended a request waiting for the refresh")

        releaser.fulfill()
        XCTAssertEqual(outcomeName(settle(request)), "ok")
        XCTAssertEqual(server.tokensSeen, ["Bearer stale", "Bearer token-2"])
    }

    /// The refresh itself is bounded by the client's timeout: the requests waiting for one that
    /// never finishes fail with `authenticationFailed(PromiseError.timedOut)`, which does not
    /// read as a rejected credential, and traffic flows again.
    func test_givenARefreshThatNeverFinishes_whenTheClientsTimeoutPasses_thenWaitersFailAsNotRejected() {
        let server = TokenServer(valid: "token-1")
        // Each refresh gets a promise of its own that never settles (its resolver is kept: a
        // released one would end the refresh sooner). A request held by the first refresh's
        // pause is sent with the stale token after it and starts a second one.
        let resolvers = SharedValue<[Resolver<String>]>([])
        let auth = TokenAuthenticator(token: "stale", refreshLimit: .init(maximumRefreshes: 100)) { _ in
            let (never, resolver) = Promise<String>.pending()
            resolvers.withLock { $0.append(resolver) }
            return never
        }
        let client = client(auth: auth, server: server, timeout: 0.3)
        let requests = (0..<3).map { _ in client.request(StubJSONEndpoint(path: "me", timeout: 30)) }
        for request in requests {
            guard case .authenticationFailed(let underlying)? = networkError(settle(request)) else {
                return XCTFail("got \(String(describing: request.result))")
            }
            XCTAssertEqual(underlying as? PromiseError, .timedOut)
            XCTAssertFalse(networkError(request.result)?.isCredentialRejected ?? true)
        }
        XCTAssertFalse(client.isPaused, "traffic resumed after the refresh gave up")
        XCTAssertFalse(resolvers.withLock { $0.isEmpty })
    }

    /// A refresh the server refuses (OAuth's `invalid_grant`, a 400) reads as a rejected credential.
    func test_givenTheServerRefusesTheRefresh_whenTheWaitersFail_thenTheCredentialReadsRejected() {
        let server = TokenServer(valid: "token-1")
        let tokenService = NetworkClient.stubbing()
            .status(400).body(json: #"{"error":{"code":"invalid_grant","message":"refresh token revoked"}}"#)
            .makeClient()
        let auth = TokenAuthenticator(token: "stale") { _ in
            tokenService.request(StubJSONEndpoint(path: "oauth/token", requiresAuthentication: false))
                .map { $0["access_token"].string ?? "" }
        }
        let client = client(auth: auth, server: server, timeout: 10)
        let error = networkError(settle(client.request(StubJSONEndpoint(path: "me"))))
        guard case .authenticationFailed(let underlying)? = error else { return XCTFail("got \(String(describing: error))") }
        XCTAssertEqual((underlying as? NetworkError)?.statusCode, 400)
        XCTAssertEqual(error?.isCredentialRejected, true)
    }
}
