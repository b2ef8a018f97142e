import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `TokenAuthenticator` built with an `async` refresh closure instead of a promise.
final class AsyncRefreshTests: XCTestCase {
    private func client(auth: TokenAuthenticator, accepting valid: String, seen: SharedValue<[String?]>) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.timeout = 10
        return NetworkClient.stubbing().respond { request in
            let header = request.value(forHTTPHeaderField: "Authorization")
            seen.withLock { $0.append(header) }
            return header == "Bearer \(valid)" ? .json(#"{"ok":true}"#) : .json("{}", status: 401)
        }.makeClient(configuration: configuration)
    }

    func test_givenAnAsyncRefresh_when20RequestsAll401_thenItRunsOnceWithTheExpiredTokenAndAllSucceed() {
        let expiredTokens = SharedValue<[String?]>([])
        let auth = TokenAuthenticator(token: "stale") { expired in
            expiredTokens.withLock { $0.append(expired) }
            await Task.yield()
            return "fresh"
        }
        let seen = SharedValue<[String?]>([])
        let client = client(auth: auth, accepting: "fresh", seen: seen)
        let promises = (0..<20).map { _ in client.request(StubJSONEndpoint(path: "me")) }
        let outcomes = ((try? settle(when(resolved: promises), within: 10)?.get()) ?? []).map { outcomeName($0) }
        XCTAssertEqual(outcomes, Array(repeating: "ok", count: 20))
        XCTAssertEqual(expiredTokens.withLock { $0 }, ["stale"], "one refresh, told which token was rejected")
        XCTAssertEqual(auth.token, "fresh")
        XCTAssertEqual(seen.withLock { $0 }.filter { $0 == "Bearer fresh" }.count, 20)
        XCTAssertFalse(client.isPaused)
    }

    func test_givenAnAsyncRefreshThatThrows_whenARequest401s_thenItFailsWithAuthenticationFailedCarryingTheError() {
        struct RefreshDown: Error {}
        let auth = TokenAuthenticator(token: "stale") { (_: String?) async throws -> String in throw RefreshDown() }
        let client = client(auth: auth, accepting: "fresh", seen: SharedValue([]))
        guard case .authenticationFailed(let underlying)? = networkError(settle(client.request(StubJSONEndpoint(path: "me")))) else {
            return XCTFail("expected authenticationFailed")
        }
        XCTAssertTrue(underlying is RefreshDown, "\(underlying)")
        XCTAssertEqual(auth.token, "stale")
        XCTAssertFalse(client.isPaused, "traffic resumed after the failed refresh")
    }

    func test_givenEveryCallerOfAnAsyncRefreshGivesUp_thenItsTaskIsCancelled() throws {
        let cancelled = DispatchSemaphore(value: 0)
        let rounds = SharedValue(0)
        let auth = TokenAuthenticator(token: "old") { _ in
            let round = rounds.withLock { count -> Int in
                count += 1
                return count
            }
            if round == 2 { return "new" }
            // The first refresh never ends by itself: only its task's cancellation ends it.
            let parked = SharedValue<CheckedContinuation<String, any Error>?>(nil)
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    parked.withLock { $0 = continuation }
                    if Task.isCancelled { parked.withLock { $0.take() }?.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                cancelled.signal()
                parked.withLock { $0.take() }?.resume(throwing: CancellationError())
            }
        }
        let first = auth.refresh(failedCredential: "old")
        let second = auth.refresh(failedCredential: "old")
        first.cancel()
        second.cancel()
        XCTAssertEqual(cancelled.wait(timeout: .now() + 5), .success, "the abandoned refresh's task was not cancelled")
        XCTAssertTrue(isCancelled(settle(first)))
        XCTAssertNoThrow(try auth.refresh(failedCredential: "old").wait(within: 5))
        XCTAssertEqual(rounds.withLock { $0 }, 2)
        XCTAssertEqual(auth.token, "new")
    }

    func test_givenAnAsyncCredentialRefresh_whenTheTokenIsAboutToExpire_thenItIsRenewedBeforeTheRequestLeaves() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let time = SharedValue(start)
        let refreshes = SharedValue(0)
        let auth = TokenAuthenticator(
            credential: TokenCredential(token: "old", expiresAt: start.addingTimeInterval(3_600)), now: { time.withLock { $0 } }
        ) { _ in
            refreshes.withLock { $0 += 1 }
            return TokenCredential(token: "fresh", expiresAt: start.addingTimeInterval(7_200))
        }
        // An hour-long token 30 s before it expires: inside the default 60 s margin.
        time.withLock { $0 = start.addingTimeInterval(3_570) }
        XCTAssertTrue(auth.requiresRefresh)
        let seen = SharedValue<[String?]>([])
        let client = client(auth: auth, accepting: "fresh", seen: seen)
        XCTAssertEqual(outcomeName(settle(client.request(StubJSONEndpoint(path: "me")))), "ok")
        XCTAssertEqual(seen.withLock { $0 }, ["Bearer fresh"], "sent once, never with the old token")
        XCTAssertEqual(refreshes.withLock { $0 }, 1)
        XCTAssertFalse(auth.requiresRefresh)
    }
}
