import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An endpoint's own redirect policy (`Endpoint.redirectPolicy`), which tightens the
/// transport's, against a real server.
final class RedirectPolicyIntegrationTests: IntegrationTestCase {
    private func request(_ path: String, query: [URLQueryItem] = [], policy: URLSessionTransport.RedirectPolicy?,
                         method: HTTPMethod = .get, body: RequestBody = .none) -> Request<HTTPResponse> {
        var request = Request<HTTPResponse>(path, method: method, query: query, body: body, timeout: 10)
        request.redirectPolicy = policy
        request.acceptedStatusCodes = .successfulAndRedirection
        return request
    }

    private func redirectTo(_ url: String, status: Int = 302, delay: Double? = nil) -> [URLQueryItem] {
        [URLQueryItem(name: "url", value: url), URLQueryItem(name: "status", value: "\(status)")]
            + (delay.map { [URLQueryItem(name: "delay", value: "\($0)")] } ?? [])
    }

    func test_givenAFollowingTransport_whenTheEndpointSaysNever_thenThe302IsTheAnswer() throws {
        let client = try makeClient()
        let unfollowed = try value(of: client.request(request("redirect/2", policy: .never)))
        XCTAssertEqual(unfollowed.statusCode, 302)
        XCTAssertEqual(unfollowed.header("Location"), "/redirect/1")
        let followed = try value(of: client.request(request("redirect/2", policy: nil)))
        XCTAssertEqual(followed.statusCode, 200, "without a policy of its own the transport's .follow holds")
        XCTAssertEqual(followed.url?.path, "/anything")
    }

    /// An endpoint's policy only tightens the transport's: a transport built to follow none
    /// (or to stay on one server) stays so whatever an endpoint says.
    func test_givenATransportThatFollowsNone_whenTheEndpointSaysFollow_thenTheTransportStillWins() throws {
        let client = NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: URLSessionTransport(redirects: .never))
        for policy: URLSessionTransport.RedirectPolicy? in [.follow, .sameOrigin, nil] {
            let response = try value(of: client.request(request("redirect/2", policy: policy)))
            XCTAssertEqual(response.statusCode, 302, "\(String(describing: policy))")
        }
    }

    func test_givenAnEndpointThatFollowsTheSameOriginOnly_thenAnotherHostsRedirectIsTheAnswer() throws {
        let client = try makeClient()
        let otherHost = try server.localhostURL("/anything/landed").absoluteString
        let toOtherHost = try value(of: client.request(request("redirect-to", query: redirectTo(otherHost), policy: .sameOrigin)))
        XCTAssertEqual(toOtherHost.statusCode, 302, "127.0.0.1 to localhost is another origin")
        XCTAssertEqual(toOtherHost.header("Location"), otherHost)
        let sameHost = try value(of: client.request(request("redirect-to", query: redirectTo("/anything/here"), policy: .sameOrigin)))
        XCTAssertEqual(sameHost.statusCode, 200)
        XCTAssertEqual(sameHost.url?.path, "/anything/here")
    }

    /// On Linux the transport sends a 307's next request itself (with its body), on a new task:
    /// the endpoint's policy goes with it, so the chain's second hop, to another host, is the
    /// answer.
    func test_givenA307ChainThatLeavesTheHost_whenTheEndpointFollowsTheSameOriginOnly_thenItStopsThere() throws {
        let client = try makeClient()
        let otherHost = try server.localhostURL("/anything/end").absoluteString
        var components = URLComponents()
        components.queryItems = redirectTo(otherHost, status: 307)
        let middle = "/redirect-to?" + (components.percentEncodedQuery ?? "")
        let body = RequestBody.data(Data("two hops".utf8), contentType: "text/plain")

        let stopped = try value(of: client.request(request("redirect-to", query: redirectTo(middle, status: 307),
                                                           policy: .sameOrigin, method: .post, body: body)))
        XCTAssertEqual(stopped.statusCode, 307, "the hop to another host was followed")
        XCTAssertEqual(stopped.header("Location"), otherHost)

        let followed = try value(of: client.request(request("redirect-to", query: redirectTo(middle, status: 307),
                                                            policy: nil, method: .post, body: body)))
        XCTAssertEqual(followed.statusCode, 200)
        let echo = try JSONDecoder().decode(ServerEcho.self, from: followed.body)
        XCTAssertEqual(echo.path, "/anything/end")
        XCTAssertEqual(echo.body, "two hops")
    }

    /// Two identical `GET`s in flight together on a client that shares them: one reads its
    /// `302`, the other follows it, so they must not share an exchange.
    func test_givenSharingOn_whenIdenticalGetsDifferInTheirPolicy_thenEachGetsItsOwnAnswer() throws {
        let client = try makeClient { $0.sharesIdenticalRequests = true }
        let query = redirectTo("/anything/shared", delay: 0.3)
        let reading = client.request(request("redirect-to", query: query, policy: .never))
        let following = client.request(request("redirect-to", query: query, policy: .follow))
        let alsoFollowing = client.request(request("redirect-to", query: query, policy: .follow))
        XCTAssertEqual(try value(of: reading).statusCode, 302)
        XCTAssertEqual(try value(of: following).statusCode, 200)
        XCTAssertEqual(try value(of: alsoFollowing).statusCode, 200)
    }
}
