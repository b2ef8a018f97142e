import Courier
import Foundation
import Promises
import XCTest

/// A stubbed client that lets unstubbed requests through to the loopback server over
/// `URLSessionTransport`: the canned route never reaches the server, the others get its real
/// answers (status classification and metadata included), and a passed-through request still
/// obeys its deadline.
final class StubPassthroughIntegrationTests: IntegrationTestCase {
    private func makeStubbedClient() throws -> NetworkClient {
        NetworkClient.stubbing()
            .stub(.get, "anything/canned", .json(#"{"path":"canned by the stub"}"#))
            .passthrough(to: URLSessionTransport())
            .makeClient(configuration: NetworkClient.Configuration(baseURL: try server.baseURL))
    }

    func test_givenPassthroughToTheServer_thenStubbedRoutesAreCannedAndTheRestAreReal() throws {
        let client = try makeStubbedClient()
        let canned = try value(of: client.request(LiveJSONEndpoint(path: "anything/canned")))
        XCTAssertEqual(canned["path"].string, "canned by the stub")
        let real = try value(of: client.request(LiveJSONEndpoint(path: "anything/live", query: [URLQueryItem(name: "q", value: "1")])))
        XCTAssertEqual(real["path"].string, "/anything/live", "the server's echo")
        XCTAssertEqual(real["query"]["q"].string, "1")
        let missing = failure(of: client.request(LiveJSONEndpoint(path: "status/404", query: [URLQueryItem(name: "body", value: "metadata")])))
        XCTAssertEqual(missing.map(errorKind), "clientError(404)")
    }

    func test_givenAPassedThroughRequest_whenTheServerIsSlowerThanItsTimeout_thenItTimesOut() throws {
        let client = try makeStubbedClient()
        let started = Date()
        let error = failure(of: client.request(LiveJSONEndpoint(path: "delay/5", timeout: 0.3)))
        XCTAssertEqual(error.map(errorKind), "timedOut")
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "the deadline did not end the passed-through request")
    }
}
