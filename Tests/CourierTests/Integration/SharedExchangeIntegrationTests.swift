import Courier
import Foundation
import Promises
import XCTest

/// `sharesIdenticalRequests` against a real server, which counts what it receives.
final class SharedExchangeIntegrationTests: IntegrationTestCase {
    func test_givenEightIdenticalGetsInFlight_thenTheServerSeesOneAndEveryCallerGetsItsAnswer() throws {
        let key = counterKey()
        let client = try makeClient { $0.sharesIdenticalRequests = true }
        let slow = LiveJSONEndpoint(path: "counter/\(key)/statuses", query: [URLQueryItem(name: "seq", value: "200@0.5")])
        let callers = (0..<8).map { _ in client.request(slow) }
        let answers = try value(of: when(fulfilled: callers), within: 10)
        XCTAssertEqual(answers.map { $0["attempt"].int }, Array(repeating: 1, count: 8))
        XCTAssertEqual(try count(for: key), 1, "one exchange for all eight")

        _ = try value(of: client.request(slow), within: 10)
        XCTAssertEqual(try count(for: key), 2, "a request after the answer goes out again")
    }

    func test_givenOneOfTwoCallersCancelledMidFlight_thenTheOtherStillGetsTheAnswer() throws {
        let key = counterKey()
        let client = try makeClient { $0.sharesIdenticalRequests = true }
        let slow = LiveJSONEndpoint(path: "counter/\(key)/statuses", query: [URLQueryItem(name: "seq", value: "200@0.3")])
        let leaving = client.request(slow)
        let staying = client.request(slow)
        leaving.cancel()
        XCTAssertEqual(try value(of: staying, within: 10)["attempt"].int, 1)
        XCTAssertEqual(failure(of: leaving).map(errorKind), "PromiseError.cancelled")
        XCTAssertEqual(try count(for: key), 1)
    }
}
