import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Renewing a token before it expires (`Authenticator.requiresRefresh`).
final class ProactiveRefreshTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// An authenticator whose token `token` expires `lifetime` seconds after `start` (`nil`: no
    /// known expiry), on the clock `time`, with the default 60 s margin.
    private func clockedAuthenticator(
        token: String = "t", expiringAfter lifetime: TimeInterval?, time: SharedValue<Date>,
        refresh: @escaping @Sendable (_ expiredToken: String?) -> Promise<TokenCredential> = { _ in
            .value(TokenCredential(token: "u"))
        }
    ) -> TokenAuthenticator {
        TokenAuthenticator(
            credential: TokenCredential(token: token, expiresAt: lifetime.map { start.addingTimeInterval($0) }),
            now: { time.withLock { $0 } }, refresh: refresh)
    }

    // MARK: TokenAuthenticator.requiresRefresh

    func test_givenAnHourLongToken_thenItIsDueOneMarginBeforeItsExpiry() {
        let time = SharedValue(start)
        let auth = clockedAuthenticator(expiringAfter: 3_600, time: time)
        time.withLock { $0 = self.start.addingTimeInterval(3_539) }
        XCTAssertFalse(auth.requiresRefresh)
        time.withLock { $0 = self.start.addingTimeInterval(3_540) }
        XCTAssertTrue(auth.requiresRefresh)
        time.withLock { $0 = self.start.addingTimeInterval(7_200) }
        XCTAssertTrue(auth.requiresRefresh, "an expired token is due too")
    }

    /// A token that lives less than twice the margin is renewed halfway through its life, not
    /// on every request.
    func test_givenAShortLivedToken_thenItIsDueHalfwayThroughItsLife() {
        let time = SharedValue(start)
        let auth = clockedAuthenticator(expiringAfter: 40, time: time)
        XCTAssertFalse(auth.requiresRefresh)
        time.withLock { $0 = self.start.addingTimeInterval(19) }
        XCTAssertFalse(auth.requiresRefresh)
        time.withLock { $0 = self.start.addingTimeInterval(20) }
        XCTAssertTrue(auth.requiresRefresh)
    }

    func test_givenNoExpiryOrNoToken_thenNeverDue() {
        let time = SharedValue(start)
        let auth = clockedAuthenticator(expiringAfter: nil, time: time)
        time.withLock { $0 = .distantFuture }
        XCTAssertFalse(auth.requiresRefresh, "an expiry that is not known is never due")
        auth.setToken(nil, expiresAt: start)
        XCTAssertFalse(auth.requiresRefresh, "no token, nothing to renew")
        auth.setToken("v", expiresAt: start)
        XCTAssertTrue(auth.requiresRefresh)
        auth.setToken("w")
        XCTAssertFalse(auth.requiresRefresh, "setToken(_:) forgets the expiry")
    }

    /// A token set by hand (at sign-out: `nil`) while a refresh runs must not be overwritten by
    /// that refresh's token when it finishes.
    func test_givenARefreshRuns_whenTheTokenIsSetByHand_thenTheRefreshedTokenIsDropped() throws {
        let (work, finish) = Promise<TokenCredential>.pending()
        let auth = TokenAuthenticator(credential: TokenCredential(token: "old")) { _ in work }
        let caller = auth.refresh(failedCredential: "old")
        auth.setToken(nil)
        finish.fulfill(TokenCredential(token: "refreshed"))
        XCTAssertNoThrow(try caller.wait(within: 5))
        XCTAssertNil(auth.token, "signed out stays signed out")
    }

    func test_givenACredential_whenDescribed_thenTheTokenIsRedacted() {
        let credential = TokenCredential(token: "s3cr3t-value", expiresAt: start)
        for text in [credential.description, String(reflecting: credential), "\(credential)"] {
            XCTAssertFalse(text.contains("s3cr3t"), text)
        }
        var dumped = ""
        dump(credential, to: &dumped)
        XCTAssertFalse(dumped.contains("s3cr3t"), dumped)
    }

    // MARK: Through the client

    /// A token server whose old token is about to expire: it rejects the old token, so a
    /// request that left with it would show up as a "Bearer old" in `tokensSeen`.
    private func expiringSetup(
        serverAccepts valid: String = "fresh",
        refresh: @escaping @Sendable (SharedValue<Int>) -> Promise<TokenCredential>
    ) -> (client: NetworkClient, auth: TokenAuthenticator, server: TokenServer, refreshes: SharedValue<Int>) {
        let server = TokenServer(valid: valid)
        let refreshes = SharedValue(0)
        let time = SharedValue(start)
        // An hour-long token, 30 s before it expires: inside the 60 s margin.
        let auth = clockedAuthenticator(token: "old", expiringAfter: 3_600, time: time) { _ in
            refreshes.withLock { $0 += 1 }
            return refresh(refreshes)
        }
        time.withLock { $0 = self.start.addingTimeInterval(3_570) }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 10
        let client = NetworkClient.stubbing().respond { server.respond($0) }.makeClient(configuration: configuration)
        return (client, auth, server, refreshes)
    }

    func test_givenATokenAboutToExpire_when20RequestsStart_thenOneRefreshRunsFirstAndTheOldTokenIsNeverSent() {
        let later = start.addingTimeInterval(7_200)
        let (client, auth, server, refreshes) = expiringSetup { _ in
            after(seconds: 0.02).map { TokenCredential(token: "fresh", expiresAt: later) }
        }
        let promises = (0..<20).map { _ in client.request(StubJSONEndpoint(path: "me")) }
        let results = (try? settle(when(resolved: promises), within: 10)?.get()) ?? []
        XCTAssertEqual(results.map { outcomeName($0) }, Array(repeating: "ok", count: 20))
        XCTAssertEqual(refreshes.withLock { $0 }, 1, "one refresh for all")
        XCTAssertEqual(server.tokensSeen, Array(repeating: "Bearer fresh", count: 20), "each sent once, never with the old token")
        XCTAssertEqual(auth.token, "fresh")
        XCTAssertFalse(auth.requiresRefresh)
        XCTAssertFalse(client.isPaused)
    }

    /// The old token still works for 30 s: a refresh endpoint that is down must neither fail the
    /// request nor cost every later request a refresh of its own.
    func test_givenTheRefreshAheadFails_thenTheRequestGoesOutWithTheOldTokenAndLaterOnesDoNotRefresh() {
        struct RefreshDown: Error {}
        let (client, auth, server, refreshes) = expiringSetup(serverAccepts: "old") { _ in Promise(error: RefreshDown()) }
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "me")))), "ok")
        XCTAssertFalse(client.isPaused, "traffic resumed after the failed refresh")
        XCTAssertFalse(auth.requiresRefresh, "not renewed ahead again after a failure")
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "feed")))), "ok")
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertEqual(server.tokensSeen, ["Bearer old", "Bearer old"])
        auth.setToken("new", expiresAt: start.addingTimeInterval(3_560))   // set by hand, already expired
        XCTAssertTrue(auth.requiresRefresh, "a new token is renewed ahead again")
    }

    /// When the old token is gone for good, the 401 after the failed refresh ahead refreshes
    /// again and the request fails with that refresh's error.
    func test_givenTheRefreshAheadFailsAndTheOldTokenIsRejected_thenTheRequestFailsWithAuthenticationFailed() {
        struct RefreshDown: Error {}
        let (client, _, server, refreshes) = expiringSetup { _ in Promise(error: RefreshDown()) }
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "me")))), "authenticationFailed")
        XCTAssertEqual(refreshes.withLock { $0 }, 2, "one ahead, one after the 401")
        XCTAssertEqual(server.tokensSeen, ["Bearer old"])
        XCTAssertFalse(client.isPaused)
    }

    /// Two clients share one authenticator: a request of the second that leaves while the first
    /// client's refresh runs waits for that same refresh instead of sending the old token.
    func test_givenTwoClientsShareTheAuthenticator_whenOneRefreshesAhead_thenTheOtherWaitsForTheSameRefresh() {
        let (work, finish) = Promise<TokenCredential>.pending()
        let refreshStarted = expectation(description: "refresh started")
        let (first, auth, server, refreshes) = expiringSetup { _ in
            refreshStarted.fulfill()
            return work
        }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 10
        let second = NetworkClient.stubbing().respond { server.respond($0) }.makeClient(configuration: configuration)
        let one = first.request(StubJSONEndpoint(path: "me"))
        wait(for: [refreshStarted], timeout: 5)
        XCTAssertTrue(auth.requiresRefresh, "still due while the refresh runs")
        let two = second.request(StubJSONEndpoint(path: "feed"))
        finish.fulfill(TokenCredential(token: "fresh", expiresAt: start.addingTimeInterval(7_200)))
        XCTAssertEqual(outcomeName(settle(one)), "ok")
        XCTAssertEqual(outcomeName(settle(two)), "ok")
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertEqual(server.tokensSeen, ["Bearer fresh", "Bearer fresh"], "the old token was never sent")
    }

    /// The refresh ahead of sending does not use up the request's replay: a 401 to the renewed
    /// token still refreshes and replays once.
    func test_givenARefreshAhead_whenTheNewTokenIsRejected_thenA401StillRefreshesOnce() {
        let later = start.addingTimeInterval(7_200)
        let (client, _, server, refreshes) = expiringSetup { count in
            // The first refresh issues a token the server does not accept; the second the right one.
            let token = count.withLock { $0 } == 1 ? "revoked" : "fresh"
            return .value(TokenCredential(token: token, expiresAt: later))
        }
        let result = settle(client.request(StubJSONEndpoint(path: "me")))
        XCTAssertEqual(outcomeName(result), "ok")
        XCTAssertEqual(refreshes.withLock { $0 }, 2)
        XCTAssertEqual(server.tokensSeen, ["Bearer revoked", "Bearer fresh"])
    }

    /// A refresh that hands back a token already expired by the device's clock (which is ahead
    /// of the server's) does not loop: the request goes out with it, and the token counts as one
    /// without a known expiry, so later requests do not refresh either.
    func test_givenTheRefreshedTokenHasAlreadyExpired_thenItIsUsedWithoutRenewingItAhead() {
        let alreadyExpired = start.addingTimeInterval(3_500)
        let (client, auth, server, refreshes) = expiringSetup { _ in
            .value(TokenCredential(token: "fresh", expiresAt: alreadyExpired))
        }
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "me")))), "ok")
        XCTAssertFalse(auth.requiresRefresh)
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "feed")))), "ok")
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertEqual(server.tokensSeen, ["Bearer fresh", "Bearer fresh"])
    }

    func test_givenARequestWaitsForTheRefreshAhead_whenCancelled_thenItSettlesCancelledAndIsNeverSent() {
        let (work, finish) = Promise<TokenCredential>.pending()
        let refreshStarted = expectation(description: "refresh started")
        let (client, _, server, _) = expiringSetup { _ in
            refreshStarted.fulfill()
            return work
        }
        let request = client.request(StubJSONEndpoint(path: "me"))
        wait(for: [refreshStarted], timeout: 5)
        request.cancel()
        _ = settle(request)
        XCTAssertTrue(request.isCancelled)
        finish.fulfill(TokenCredential(token: "fresh", expiresAt: start.addingTimeInterval(7_200)))
        let next = settle(client.request(StubJSONEndpoint(path: "me")))
        XCTAssertEqual(outcomeName(next), "ok")
        XCTAssertEqual(server.tokensSeen, ["Bearer fresh"], "the cancelled request never left")
    }

    /// The request's own timeout keeps running while it waits for the refresh ahead: a short
    /// one ends the request with `.timedOut` before the refresh does, and the refresh's later
    /// success does not send it.
    func test_givenAShortTimeout_whenTheRefreshAheadOutlastsIt_thenTheRequestTimesOutWithoutBeingSent() {
        let clock = VirtualClock()
        let server = TokenServer(valid: "fresh")
        let time = SharedValue(start)
        let (work, finish) = Promise<TokenCredential>.pending()
        let refreshStarted = expectation(description: "refresh started")
        let auth = clockedAuthenticator(token: "old", expiringAfter: 3_600, time: time) { _ in
            refreshStarted.fulfill()
            return work
        }
        time.withLock { $0 = self.start.addingTimeInterval(3_570) }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 60
        let client = NetworkClient.stubbing().respond { server.respond($0) }.clock(clock).makeClient(configuration: configuration)

        let request = client.request(StubJSONEndpoint(path: "me", timeout: 5))
        wait(for: [refreshStarted], timeout: 5)
        XCTAssertTrue(clock.waitUntilPending(dueAt: 5), "the request's deadline runs while it waits")
        clock.advance(by: 5)
        XCTAssertEqual(outcomeName(settle(request)), "timedOut")

        finish.fulfill(TokenCredential(token: "fresh", expiresAt: start.addingTimeInterval(7_200)))
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "feed")))), "ok")
        XCTAssertEqual(server.tokensSeen, ["Bearer fresh"], "the timed-out request was never sent")
    }

    /// An endpoint that does not require authentication (the refresh call itself) never waits.
    func test_givenAnEndpointWithoutAuthentication_whenTheTokenIsDue_thenItGoesOutWithoutARefresh() {
        let (client, _, server, refreshes) = expiringSetup { _ in Promise<TokenCredential>.pending().promise }
        let result = settle(client.request(PublicEndpoint()))
        XCTAssertEqual(outcomeName(result), "clientError(401)", "the server's 401 stands: no authentication asked")
        XCTAssertEqual(refreshes.withLock { $0 }, 0)
        XCTAssertEqual(server.tokensSeen, [nil])
    }
}

private struct PublicEndpoint: Endpoint {
    typealias Response = JSON
    var path: String { "login" }
    var requiresAuthentication: Bool { false }
}
