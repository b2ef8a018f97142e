import Courier
import Foundation
import XCTest

final class AuthenticationErrorTests: XCTestCase {
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
}
