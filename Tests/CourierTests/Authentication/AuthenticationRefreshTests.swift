import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stub "server" that accepts exactly one token at a time, and counts refreshes.
final class TokenServer: @unchecked Sendable {
    // @unchecked: every field is touched only under `lock`.
    private let lock = NSLock()
    private var valid: String
    private var refreshes = 0
    private var seen: [String?] = []

    init(valid: String) { self.valid = valid }

    var refreshCount: Int { lock.withLock { refreshes } }
    /// The Authorization header of every request the server saw, in order.
    var tokensSeen: [String?] { lock.withLock { seen } }

    func respond(_ request: URLRequest) -> StubResponse {
        let header = request.value(forHTTPHeaderField: "Authorization")
        return lock.withLock {
            seen.append(header)
            return header == "Bearer \(valid)"
                ? .json(#"{"ok":true}"#)
                : .json(#"{"metadata":{"status":"401","desc":"token expired"}}"#, status: 401)
        }
    }

    /// Issues a new token after `delay` seconds (the refresh endpoint).
    func refresh(delay: TimeInterval = 0.05) -> Promise<String> {
        let token = lock.withLock { () -> String in
            refreshes += 1
            valid = "token-\(refreshes + 1)"
            return valid
        }
        return after(seconds: delay).map { token }
    }
}

final class AuthenticationRefreshTests: XCTestCase {
    private func client(server: TokenServer, auth: TokenAuthenticator, recorder: StubRecorder? = nil) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 10
        var builder = NetworkClient.stubbing().respond { server.respond($0) }
        if let recorder { builder = builder.recording(into: recorder) }
        return builder.makeClient(configuration: configuration)
    }

    func test_given50ConcurrentRequestsWithAnExpiredToken_whenTheyAll401_thenOneRefreshRunsAndAllSucceed() {
        let server = TokenServer(valid: "token-1")
        let auth = TokenAuthenticator(token: "stale") { _ in server.refresh() }
        let client = client(server: server, auth: auth)
        let promises = (0..<50).map { _ in client.request(StubJSONEndpoint(path: "me")) }
        let results = settle(when(resolved: promises), within: 10)
        let outcomes = (try? results?.get())?.map { outcomeName($0) } ?? []
        XCTAssertEqual(outcomes, Array(repeating: "ok", count: 50))
        XCTAssertEqual(server.refreshCount, 1, "exactly one refresh")
        XCTAssertEqual(auth.token, "token-2")
        XCTAssertFalse(client.isPaused, "traffic resumed after the refresh")
        let seen = server.tokensSeen
        // Each request leaves once with the new token, and at most once with the stale one (only
        // those that left before the refresh paused traffic). The order of the two kinds is not
        // checked: a request that passed the gate before the pause may be recorded after a
        // replay when its thread stalls, which is correct.
        XCTAssertEqual(seen.filter { $0 == "Bearer token-2" }.count, 50)
        XCTAssertEqual(seen.filter { $0 == "Bearer stale" }.count, seen.count - 50)
        XCTAssertLessThanOrEqual(seen.count, 100)
    }

    func test_givenARefreshInFlight_whenNewRequestsAreIssued_thenTheyAreHeldAndLeaveWithTheNewToken() {
        let server = TokenServer(valid: "token-1")
        let gate = Promise<Void>.pending()
        let refreshStarted = expectation(description: "refresh started (traffic is paused before it starts)")
        let auth = TokenAuthenticator(token: "stale") { _ in
            refreshStarted.fulfill()
            return gate.promise.then { server.refresh(delay: 0) }
        }
        let recorder = StubRecorder()
        let client = client(server: server, auth: auth, recorder: recorder)
        let first = client.request(StubJSONEndpoint(path: "me"))
        wait(for: [refreshStarted], timeout: 5)
        XCTAssertTrue(client.isPaused)
        let later = (0..<5).map { _ in client.request(StubJSONEndpoint(path: "feed")) }
        XCTAssertEqual(recorder.count, 1, "requests issued during the refresh must be held")
        gate.resolver.fulfill()
        let results = (try? settle(when(resolved: [first] + later), within: 10)?.get()) ?? []
        XCTAssertEqual(results.map { outcomeName($0) }, Array(repeating: "ok", count: 6))
        let held = recorder.requests.filter { $0.url?.path == "/feed" }
        XCTAssertEqual(held.map { $0.value(forHTTPHeaderField: "Authorization") }, Array(repeating: "Bearer token-2", count: 5))
    }

    func test_givenTheRefreshFails_whenRequestsWait_thenAllFailWithAuthenticationFailedAndTrafficResumes() {
        struct RefreshDown: Error {}
        let attempts = SharedValue(0)
        let auth = TokenAuthenticator(token: "stale", refreshLimit: .init(maximumRefreshes: 1_000)) { _ in
            attempts.withLock { $0 += 1 }
            return Promise(error: RefreshDown())
        }
        // Every 401 arrives one virtual second after its request was sent, so all ten requests of
        // a round are in flight when the first 401 starts the refresh; the clock decides, not the
        // thread scheduler.
        let clock = VirtualClock()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 10
        let client = NetworkClient.stubbing()
            .respond { _ in .json(#"{"metadata":{"status":"401","desc":"token expired"}}"#, status: 401, delay: 1) }
            .clock(clock)
            .makeClient(configuration: configuration)
        // Many rounds: the 401s that arrive while the refresh runs, or just after it failed, were
        // sent before it failed, so they share its failure instead of starting refreshes of their
        // own. Exactly one refresh per round.
        for round in 1...20 {
            let requests = (0..<10).map { _ in client.request(StubJSONEndpoint(path: "me")) }
            // Ten deadlines and ten answers; a request still held by the previous round's pause
            // is released when it ends, and only then sent.
            XCTAssertTrue(clock.waitUntilPending(atLeast: 20), "round \(round): the requests were not all sent")
            clock.advance(by: 1)
            let outcomes = (try? settle(when(resolved: requests), within: 10)?.get()) ?? []
            XCTAssertEqual(outcomes.count, 10)
            for outcome in outcomes {
                guard case .authenticationFailed(let underlying)? = networkError(outcome) else { return XCTFail("\(outcome)") }
                XCTAssertTrue(underlying is RefreshDown, "\(underlying)")
            }
            XCTAssertEqual(attempts.withLock { $0 }, round, "refreshes multiplied within round \(round)")
        }
        // Traffic resumes after the failed refresh: a new request is sent (its answer is scheduled).
        let after = client.request(StubJSONEndpoint(path: "me"))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2), "the gate stayed paused")
        clock.advance(by: 1)
        guard case .authenticationFailed? = networkError(settle(after, within: 10)) else { return XCTFail("expected authenticationFailed") }
        let open = client.request(StubJSONEndpoint(path: "public", requiresAuthentication: false))
        XCTAssertTrue(clock.waitUntilPending(atLeast: 2))
        clock.advance(by: 1)
        XCTAssertEqual(outcomeName(settle(open)), "clientError(401)")
    }

    /// A transport that answers inside its own `send` (before `send` returns: a custom transport
    /// may, and this test's does every time): the refresh generation the request left in must
    /// still be recorded. (It was not: a request sent after a failed refresh then shared that old
    /// failure instead of starting a new refresh, and the client never refreshed again.)
    func test_givenAnAnswerInsideSend_whenARefreshFailedEarlier_thenALaterRequestStartsANewRefresh() throws {
        struct RefreshDown: Error {}
        let server = TokenServer(valid: "token-1")
        let attempts = SharedValue(0)
        let auth = TokenAuthenticator(token: "stale") { _ in
            let attempt = attempts.withLock { count -> Int in count += 1; return count }
            return attempt == 1 ? Promise(error: RefreshDown()) : .value("token-1")
        }
        let transport = RecordingTransport(.immediate { request in
            let stub = server.respond(request)
            return .success(HTTPResponse(statusCode: stub.status, headers: stub.headers, body: stub.body, url: request.url))
        })
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 10
        let client = NetworkClient(configuration: configuration, transport: transport)
        guard case .authenticationFailed(let underlying)? = networkError(settle(client.request(StubJSONEndpoint(path: "me")))) else {
            return XCTFail("the first refresh was meant to fail")
        }
        XCTAssertTrue(underlying is RefreshDown, "\(underlying)")
        let later = settle(client.request(StubJSONEndpoint(path: "me")))
        XCTAssertEqual(outcomeName(later), "ok", "a request sent after the failed refresh must refresh again")
        XCTAssertEqual(attempts.withLock { $0 }, 2)
        XCTAssertEqual(server.tokensSeen, ["Bearer stale", "Bearer stale", "Bearer token-1"])
    }

    /// An authenticator whose refresh always rotates the key (it does not check whether the
    /// failed key is still current, as ``TokenAuthenticator`` does), and whose first look-up of
    /// the current key by the client (a request for the bare base URL) can be held after it has
    /// read the key.
    final class RotatingKeyAuthenticator: Authenticator, @unchecked Sendable {
        // @unchecked: `key` and `refreshes` are touched only under `lock`; the semaphores are thread-safe.
        private let lock = NSLock()
        private var key = "k0"
        private var refreshes = 0
        private var holdsNextLookUp = true
        let lookUpHeld = DispatchSemaphore(value: 0)
        let releaseLookUp = DispatchSemaphore(value: 0)
        let baseURL: URL

        init(baseURL: URL) { self.baseURL = baseURL }

        var refreshCount: Int { lock.withLock { refreshes } }
        var currentKey: String { lock.withLock { key } }

        func apply(to request: URLRequest) -> URLRequest {
            var request = request
            let (key, hold) = lock.withLock { () -> (String, Bool) in
                let hold = holdsNextLookUp && request.url == baseURL
                if hold { holdsNextLookUp = false }
                return (self.key, hold)
            }
            if hold {
                lookUpHeld.signal()
                releaseLookUp.wait()
            }
            request.setValue(key, forHTTPHeaderField: "X-Key")
            return request
        }

        func credentialIdentifier(of request: URLRequest) -> String? {
            request.value(forHTTPHeaderField: "X-Key")
        }

        func refresh(failedCredential: String?) -> Promise<Void> {
            lock.withLock {
                refreshes += 1
                key = "k\(refreshes)"
            }
            return .value(())
        }
    }

    /// The client reads the current credential outside its lock; a refresh that ended between
    /// that read and the decision used to start a second refresh for the same failed key.
    func test_givenARefreshEndsWhileA401IsBeingHandled_whenTheKeyWasReadBeforeIt_thenNoSecondRefresh() throws {
        let base = StubbingBuilder.defaultBaseURL
        let auth = RotatingKeyAuthenticator(baseURL: base)
        let transport = RecordingTransport(.async { request in
            // The server takes only the key issued last, and never the first one.
            let key = auth.currentKey
            let accepted = key != "k0" && request.value(forHTTPHeaderField: "X-Key") == key
            return .success(HTTPResponse(statusCode: accepted ? 200 : 401, body: Data("{}".utf8), url: request.url))
        })
        var configuration = NetworkClient.Configuration(baseURL: base)
        configuration.authenticator = auth
        configuration.timeout = 10
        let client = NetworkClient(configuration: configuration, transport: transport)

        let first = client.request(StubJSONEndpoint(path: "first"))
        // The first 401's handler has read the key "k0" and is held before deciding.
        XCTAssertEqual(auth.lookUpHeld.wait(timeout: .now() + 10), .success)
        // A second request with "k0" fails too, refreshes ("k0" → "k1") and succeeds meanwhile.
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "second")))), "ok")
        XCTAssertEqual(auth.refreshCount, 1)
        auth.releaseLookUp.signal()
        XCTAssertEqual(outcomeName(settle(first)), "ok")
        XCTAssertEqual(auth.refreshCount, 1, "the first request's stale read of the key must not start a second refresh")
        XCTAssertEqual(transport.requests.map { $0.value(forHTTPHeaderField: "X-Key") }, ["k0", "k0", "k1", "k1"])
    }

    func test_givenAReplayedRequestGets401Again_whenHandled_thenItIsNotRefreshedAgain() {
        let server = TokenServer(valid: "never-issued")
        let refreshes = SharedValue(0)
        let auth = TokenAuthenticator(token: "stale") { _ in
            refreshes.withLock { $0 += 1 }
            return .value("also-rejected")
        }
        let client = client(server: server, auth: auth)
        let result = settle(client.request(StubJSONEndpoint(path: "me")))
        XCTAssertEqual(outcomeName(result), "clientError(401)")
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertEqual(server.tokensSeen, ["Bearer stale", "Bearer also-rejected"])
    }

    func test_givenAServerThatRejectsEveryToken_whenManyRequestsFail_thenTheLoopGuardStopsRefreshing() {
        let server = TokenServer(valid: "never-issued")
        let refreshes = SharedValue(0)
        let auth = TokenAuthenticator(token: "t0", refreshLimit: .init(maximumRefreshes: 2, window: 60)) { _ in
            .value("t\(refreshes.withLock { $0 += 1; return $0 })")
        }
        let client = client(server: server, auth: auth)
        var outcomes: [String] = []
        for _ in 0..<4 {
            let result = settle(client.request(StubJSONEndpoint(path: "me")))
            if case .authenticationFailed(let underlying)? = networkError(result), underlying is AuthenticationError {
                outcomes.append("guard")
            } else {
                outcomes.append(outcomeName(result))
            }
        }
        XCTAssertEqual(outcomes, ["clientError(401)", "clientError(401)", "guard", "guard"])
        XCTAssertEqual(refreshes.withLock { $0 }, 2)
    }

    func test_givenARequestThatCarriedAnAlreadyReplacedToken_when401_thenItIsReplayedWithoutARefresh() throws {
        let server = TokenServer(valid: "token-1")
        let auth = TokenAuthenticator(token: "stale") { _ in server.refresh() }
        let recorder = StubRecorder()
        let client = client(server: server, auth: auth, recorder: recorder)
        client.pause()
        let held = client.request(StubJSONEndpoint(path: "me"))   // will leave with whatever token is current
        auth.setToken("token-1")                                  // the manual style: replace, then resume
        client.resume()
        XCTAssertEqual(outcomeName(settle(held)), "ok")
        XCTAssertEqual(server.refreshCount, 0)
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "Authorization") }, ["Bearer token-1"])
    }

    func test_givenABareTokenScheme_whenSent_thenTheHeaderCarriesJustTheToken() {
        let recorder = StubRecorder()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        let auth = TokenAuthenticator(token: "abc123", headerField: "x-auth-token", scheme: nil) { _ in .value("new") }
        configuration.authenticator = auth
        let client = NetworkClient.stubbing().recording(into: recorder).makeClient(configuration: configuration)
        _ = settle(client.request(StubJSONEndpoint(path: "me")))
        _ = settle(client.request(StubJSONEndpoint(path: "login", requiresAuthentication: false)))
        XCTAssertEqual(recorder.requests.map { $0.value(forHTTPHeaderField: "x-auth-token") }, ["abc123", nil])
        XCTAssertEqual(auth.credentialIdentifier(of: recorder.requests[0]), "abc123")
        XCTAssertFalse(String(describing: auth).contains("abc123"), "the description leaks the token")
        var dumped = ""
        dump(auth, to: &dumped)
        dump(HTTPResponse(statusCode: 200, headers: ["Set-Cookie": "session=abc123"]), to: &dumped)
        XCTAssertFalse(dumped.contains("abc123"), "dump() leaks a credential: \(dumped)")
        XCTAssertTrue(dumped.contains("x-auth-token"))
    }

    func test_givenAPausedClient_whenAnUnauthenticatedRequestIsIssued_thenItBypassesThePause() {
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().body(json: "{}").recording(into: recorder).makeClient()
        client.pause()
        let held = client.request(StubJSONEndpoint(path: "me"))
        // The gate is FIFO: had `held` not been held, it would have reached the transport first.
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "token", requiresAuthentication: false)))), "ok")
        XCTAssertEqual(recorder.requests.map { $0.url?.path }, ["/token"])
        XCTAssertTrue(held.isPending)
        client.resume()
        XCTAssertEqual(outcomeName(settle(held)), "ok")
        XCTAssertEqual(recorder.requests.map { $0.url?.path }, ["/token", "/me"])
    }
    func test_givenASlow401FromARequestSentWithoutAToken_whenATokenExistsByThen_thenItIsReplayedWithoutASecondRefresh() {
        let refreshes = SharedValue(0)
        let auth = TokenAuthenticator(token: nil) { _ in
            refreshes.withLock { $0 += 1 }
            return .value("fresh-token-1")
        }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 10
        // Both requests leave without a token; on the virtual clock the "fast" 401 arrives after
        // one second and the "slow" one after two, so the slow 401 certainly arrives after the
        // refresh that the fast one started has finished.
        let clock = VirtualClock()
        let client = NetworkClient.stubbing()
            .respond { request in
                if request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh-token-1" { return .json("{}") }
                let slow = request.url?.path == "/slow"
                return .json(#"{"message":"no token"}"#, status: 401, delay: slow ? 2 : 1)
            }
            .clock(clock)
            .makeClient(configuration: configuration)
        let fast = client.request(StubJSONEndpoint(path: "fast"))
        let slow = client.request(StubJSONEndpoint(path: "slow"))
        // Two deadlines and two answers.
        XCTAssertTrue(clock.waitUntilPending(atLeast: 4), "the requests were not both sent")
        clock.advance(by: 1)
        XCTAssertEqual(outcomeName(settle(fast)), "ok")
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertTrue(slow.isPending, "the slow 401 arrived before its time")
        clock.advance(by: 1)
        XCTAssertEqual(outcomeName(settle(slow)), "ok")
        XCTAssertEqual(refreshes.withLock { $0 }, 1, "the slow 401 carried no token while one existed: replay, not refresh")
    }
}
