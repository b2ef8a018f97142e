import Courier
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
}
