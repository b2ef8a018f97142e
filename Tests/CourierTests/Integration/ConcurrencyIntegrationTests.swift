import Courier
import Foundation
import Promises
import XCTest

/// Many requests at once against a real server, each answered with its own echo.
final class ConcurrencyIntegrationTests: IntegrationTestCase {
    func test_given100ConcurrentRequests_thenAllSucceedWithTheirOwnAnswers() throws {
        let client = try makeClient()
        let promises = (0..<100).map { index in
            client.request(LiveEndpoint<ServerEcho>(path: "anything/\(index)",
                                                    query: [.init(name: "i", value: "\(index)")]))
        }
        let echoes = try value(of: when(fulfilled: promises), within: 30)
        XCTAssertEqual(echoes.count, 100)
        for (index, echo) in echoes.enumerated() {
            XCTAssertEqual(echo.path, "/anything/\(index)")
            XCTAssertEqual(echo.query["i"].string, "\(index)")
        }
    }

    func test_given50ConcurrentSends_thenAllSucceed() async throws {
        let client = try makeClient()
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<50 {
                group.addTask { try await client.send(LiveEndpoint<ServerEcho>(path: "anything/\(index)")).path }
            }
            var paths: Set<String> = []
            for try await path in group { paths.insert(path) }
            return paths
        }
        XCTAssertEqual(paths, Set((0..<50).map { "/anything/\($0)" }))
    }

    func test_givenConcurrentRequestsWithSomeCancelled_thenOnlyTheCancelledOnesFail() throws {
        let client = try makeClient()
        let slow = (0..<5).map { _ in client.request(LiveJSONEndpoint(path: "delay/5")) }
        let fast = (0..<20).map { client.request(LiveJSONEndpoint(path: "anything/\($0)")) }
        slow.forEach { $0.cancel() }
        let fastValues = try value(of: when(fulfilled: fast), within: 15)
        XCTAssertEqual(fastValues.count, 20)
        for promise in slow {
            XCTAssertEqual(failure(of: promise, within: 2).map(errorKind), "PromiseError.cancelled")
        }
    }
}
