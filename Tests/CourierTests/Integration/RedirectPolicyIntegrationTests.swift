import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An endpoint's own redirect policy (`Endpoint.redirectPolicy`) over the transport's, against a
/// real server.
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

    func test_givenATransportThatFollowsNone_whenTheEndpointSaysFollow_thenTheChainIsFollowed() throws {
        let client = NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: URLSessionTransport(redirects: .never))
        let followed = try value(of: client.request(request("redirect/2", policy: .follow)))
        XCTAssertEqual(followed.statusCode, 200)
        XCTAssertEqual(followed.url?.path, "/anything")
        let unfollowed = try value(of: client.request(request("redirect/2", policy: nil)))
        XCTAssertEqual(unfollowed.statusCode, 302, "without a policy of its own the transport's .never holds")
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

    /// On Linux the transport sends a 307's next request itself (with its body); the endpoint's
    /// policy goes with it to every hop.
    func test_givenA307Chain_whenTheTransportFollowsNoneButTheEndpointDoes_thenTheBodyArrivesAtTheEnd() throws {
        let client = NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: URLSessionTransport(redirects: .never))
        var components = URLComponents()
        components.queryItems = redirectTo("/anything/end", status: 307)
        let middle = "/redirect-to?" + (components.percentEncodedQuery ?? "")
        let endpoint = request("redirect-to", query: redirectTo(middle, status: 307), policy: .follow, method: .post,
                               body: .data(Data("two hops".utf8), contentType: "text/plain"))
        let response = try value(of: client.request(endpoint))
        XCTAssertEqual(response.statusCode, 200)
        let echo = try JSONDecoder().decode(ServerEcho.self, from: response.body)
        XCTAssertEqual(echo.path, "/anything/end")
        XCTAssertEqual(echo.body, "two hops")

        let stopped = try value(of: client.request(request("redirect-to", query: redirectTo(middle, status: 307), policy: .never,
                                                           method: .post, body: .data(Data("x".utf8), contentType: "text/plain"))))
        XCTAssertEqual(stopped.statusCode, 307)
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
