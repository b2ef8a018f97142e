@testable import Courier
import Foundation
import Promises
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `idleTimeout` over URLSession against the local server: a body that keeps arriving outlives
/// the idle period, one that stalls ends long before the whole-exchange timeout.
final class IdleTimeoutIntegrationTests: IntegrationTestCase {
    private func drip(_ query: [String: String], idle: TimeInterval) -> Request<HTTPResponse> {
        var request = Request<HTTPResponse>(LiveEndpoint<HTTPResponse>(
            path: "drip", query: query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) },
            timeout: 60))
        request.idleTimeout = idle
        return request
    }

    func test_givenABodyThatKeepsArriving_whenItTakesLongerThanTheIdlePeriod_thenItCompletes() throws {
        let client = try makeClient()
        // 60 pieces of 1 KiB, one every 50 ms: about 3 s in all, never 2 s without a piece (the
        // margin covers connecting under a sanitizer, before the first piece).
        let started = Date()
        let response = try value(of: client.request(drip(["length": "61440"], idle: 2)), within: 30)
        XCTAssertEqual(response.body.count, 61440)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 2, "longer than the idle period")
    }

    func test_givenABodyThatStalls_whenTheIdlePeriodPasses_thenTheRequestTimesOutBeforeItsDeadline() throws {
        let client = try makeClient()
        let started = Date()
        let error = failure(of: client.request(drip(["length": "none", "stall_after": "3"], idle: 2)), within: 30)
        XCTAssertEqual(error.map(errorKind), "timedOut")
        // Three pieces in 0.15 s, then silence: noticed within two 2 s periods (the bound leaves a
        // wide margin for a sanitizer on a busy machine); the 60 s deadline would take far longer.
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the idle period ended it, not the deadline")
    }
}
