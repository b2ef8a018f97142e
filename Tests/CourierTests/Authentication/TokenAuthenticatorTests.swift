@testable import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class TokenAuthenticatorTests: XCTestCase {
    /// `.infinity` is a natural way to say "at most N refreshes, ever": describing the error it
    /// leads to must not trap (it did, converting the window to `Int`).
    func test_givenAnUnboundedOrOddWindow_whenDescribed_thenReadableAndNoTrap() {
        for window in [TimeInterval.infinity, -.infinity, .nan, 1e300] {
            let error = AuthenticationError.refreshLimitExceeded(3, window: window)
            XCTAssertEqual(error.description, "Gave up refreshing the credential: 3 refreshes, the most allowed")
            let wrapped = NetworkError.authenticationFailed(underlying: error)
            XCTAssertTrue(wrapped.description.contains("3 refreshes"), wrapped.description)
        }
        XCTAssertEqual(AuthenticationError.refreshLimitExceeded(3, window: 60).description,
                       "Gave up refreshing the credential: 3 refreshes within 60 s")
    }

    /// Callers share one refresh, but cancelling one caller's promise (as a client's refresh
    /// timeout does) must not cancel the refresh the others wait for.
    func test_givenTwoCallersShareARefresh_whenOneCancels_thenTheOtherStillGetsTheNewToken() throws {
        let (refreshResult, finishRefresh) = Promise<String>.pending()
        let started = SharedValue(0)
        let auth = TokenAuthenticator(token: "old") { _ in
            started.withLock { $0 += 1 }
            return refreshResult
        }
        let first = auth.refresh(failedCredential: "old")
        let second = auth.refresh(failedCredential: "old")
        second.cancel()
        XCTAssertTrue(second.isCancelled)
        XCTAssertTrue(first.isPending, "cancelling one caller cancelled the shared refresh")
        let third = auth.refresh(failedCredential: "old")   // still joins the running refresh
        finishRefresh.fulfill("new")
        XCTAssertNoThrow(try first.wait(within: 5))
        XCTAssertNoThrow(try third.wait(within: 5))
        XCTAssertEqual(started.withLock { $0 }, 1)
        var request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/me")))
        request = auth.apply(to: request)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Authorization"), "Bearer new")
    }

    /// A refresh whose work succeeded just as its last caller gave up must not install its token
    /// over that of a newer refresh that finished first (a stalled thread made that possible).
    func test_givenAnAbandonedRefreshFinishesAfterANewerOne_thenTheNewerTokenStays() throws {
        let (firstWork, finishFirst) = Promise<String>.pending()
        let calls = SharedValue(0)
        let auth = TokenAuthenticator(token: "old") { _ in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            return call == 1 ? firstWork : .value("newer")
        }
        let firstStalls = DispatchSemaphore(value: 0)
        let releaseFirst = DispatchSemaphore(value: 0)
        let firstDone = DispatchSemaphore(value: 0)
        auth.refreshFinishingHook.withLock { hook in
            hook = { (refresh: Int, isBefore: Bool) in
                guard refresh == 1 else { return }
                if isBefore {
                    firstStalls.signal()
                    _ = releaseFirst.wait(timeout: .now() + 10)
                } else {
                    firstDone.signal()
                }
            }
        }

        let firstCaller = auth.refresh(failedCredential: "old")
        finishFirst.fulfill("older")
        XCTAssertEqual(firstStalls.wait(timeout: .now() + 5), .success, "the first refresh's work settled")
        firstCaller.cancel()   // its only caller gives up: a new refresh may start
        let secondCaller = auth.refresh(failedCredential: "old")
        XCTAssertNoThrow(try secondCaller.wait(within: 5))
        XCTAssertEqual(auth.token, "newer")
        releaseFirst.signal()
        XCTAssertEqual(firstDone.wait(timeout: .now() + 5), .success)

        XCTAssertEqual(auth.token, "newer", "the abandoned refresh's older token replaced the newer one")
        XCTAssertEqual(calls.withLock { $0 }, 2)
    }

    /// A refresh nobody waits for any more is cancelled, so a refresh closure that never ends
    /// cannot hold up the next one.
    func test_givenEveryCallerOfARefreshGivesUp_thenTheRefreshIsCancelledAndTheNextCallStartsANewOne() throws {
        let started = SharedValue(0)
        let cancelledRefreshes = SharedValue(0)
        let keptResolvers = SharedValue<[Resolver<String>]>([])   // the first refresh never ends by itself
        let auth = TokenAuthenticator(token: "old") { _ in
            let round = started.withLock { count -> Int in
                count += 1
                return count
            }
            if round == 2 { return .value("new") }
            return Promise<String> { seal in
                seal.onCancel { cancelledRefreshes.withLock { $0 += 1 } }
                keptResolvers.withLock { $0.append(seal) }
            }
        }
        let first = auth.refresh(failedCredential: "old")
        let second = auth.refresh(failedCredential: "old")
        first.cancel()
        XCTAssertEqual(cancelledRefreshes.withLock { $0 }, 0, "cancelled while a caller still waited")
        second.cancel()
        XCTAssertEqual(cancelledRefreshes.withLock { $0 }, 1, "the abandoned refresh was not cancelled")
        XCTAssertNoThrow(try auth.refresh(failedCredential: "old").wait(within: 5))
        XCTAssertEqual(started.withLock { $0 }, 2)
        XCTAssertEqual(auth.token, "new")
    }

    /// A token with a line break could never be sent (every request would fail before a 401
    /// could trigger the next refresh): the refresh fails instead and the old token stays.
    func test_givenARefreshThatReturnsATokenWithALineBreak_thenItFailsAndTheOldTokenStays() {
        let auth = TokenAuthenticator(token: "old") { _ in .value("new\r\nX-Injected: 1") }
        XCTAssertThrowsError(try auth.refresh(failedCredential: "old").wait(within: 5)) { error in
            XCTAssertEqual(error as? AuthenticationError, .unusableToken)
        }
        XCTAssertEqual(auth.token, "old")
    }

    /// Many threads join, cancel and finish refreshes at once: every caller's promise settles
    /// exactly once (TSan runs it too).
    func test_givenManyCallersJoiningAndCancellingConcurrently_thenEachSettlesExactlyOnce() {
        let started = SharedValue(0)
        let auth = TokenAuthenticator(token: "t0", refreshLimit: .init(maximumRefreshes: 1_000_000)) { _ in
            let round = started.withLock { count -> Int in
                count += 1
                return count
            }
            return after(.microseconds(200)).map { "t\(round)" }
        }
        let count = 2_000
        let settlements = SharedValue([Int](repeating: 0, count: count))
        let allSettled = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            allSettled.enter()
            let promise = auth.refresh(failedCredential: auth.token)
            _ = promise.tap { _ in
                settlements.withLock { $0[index] += 1 }
                allSettled.leave()
            }
            if index.isMultiple(of: 3) { promise.cancel() }
        }
        XCTAssertEqual(allSettled.wait(timeout: .now() + 20), .success, "a caller's promise never settled")
        XCTAssertEqual(settlements.withLock { $0 }.filter { $0 != 1 }.count, 0, "a promise settled twice or never")
        XCTAssertGreaterThan(started.withLock { $0 }, 0)
        XCTAssertLessThanOrEqual(started.withLock { $0 }, count)
    }
}
