import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects against a real server: a same-host redirect keeps the request's headers, while a
/// redirect to another host (127.0.0.1 -> localhost on the same port) must not carry credentials.
final class RedirectIntegrationTests: IntegrationTestCase {
    private let secretHeaders = [
        "Authorization": "Bearer top-secret",
        "Cookie": "session=abc",
        "X-Api-Key": "key-123",
    ]

    func test_givenASameHostRedirectChain_whenFollowed_thenHeadersAreKept() throws {
        let client = try makeClient()
        var headers = secretHeaders
        headers["X-Trace"] = "trace-1"
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect/2", headers: headers)
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.path, "/anything")
        XCTAssertEqual(echo.header("Authorization"), "Bearer top-secret")
        XCTAssertEqual(echo.header("X-Trace"), "trace-1")
    }

    func test_givenARedirectToAnotherHost_whenFollowed_thenCredentialsAreStripped() throws {
        let client = try makeClient()
        var headers = secretHeaders
        headers["X-Trace"] = "trace-2"
        let target = try server.localhostURL("/anything/landed").absoluteString
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", query: [.init(name: "url", value: target)],
                                          headers: headers)
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.path, "/anything/landed")
        XCTAssertEqual(echo.header("Host")?.hasPrefix("localhost"), true, "the redirect did not reach the other host")
        XCTAssertNil(echo.header("Authorization"), "Authorization followed a redirect to another host")
        XCTAssertNil(echo.header("X-Api-Key"), "X-Api-Key followed a redirect to another host")
        XCTAssertNil(echo.header("Cookie"), "Cookie followed a redirect to another host")
        XCTAssertEqual(echo.header("X-Trace"), "trace-2", "harmless headers should still follow")
    }

    /// Credentials set on the session configuration (`httpAdditionalHeaders`, a common way to
    /// authenticate every request) are stripped like the request's own: URLSession adds them to
    /// every request it sends, redirects included, where the redirect rule never saw them.
    func test_givenCredentialsInTheSessionConfiguration_whenRedirectedToAnotherHost_thenTheyAreStripped() throws {
        let session = URLSessionConfiguration.ephemeral
        session.httpAdditionalHeaders = ["Authorization": "Bearer session-secret", "X-Api-Key": "session-key", "X-Client": "courier"]
        let transport = URLSessionTransport(configuration: session)
        let client = NetworkClient(configuration: NetworkClient.Configuration(baseURL: try server.baseURL), transport: transport)

        let sameHost = try value(of: client.request(LiveEndpoint<ServerEcho>(path: "redirect/1")))
        XCTAssertEqual(sameHost.header("Authorization"), "Bearer session-secret", "the session's credential is sent")
        XCTAssertEqual(sameHost.header("X-Api-Key"), "session-key")

        let target = try server.localhostURL("/anything/landed").absoluteString
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", query: [.init(name: "url", value: target)])
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.header("Host")?.hasPrefix("localhost"), true, "the redirect did not reach the other host")
        XCTAssertNil(echo.header("Authorization"), "the session's Authorization followed a redirect to another host")
        XCTAssertNil(echo.header("X-Api-Key"), "the session's X-Api-Key followed a redirect to another host")
        XCTAssertEqual(echo.header("X-Client"), "courier", "harmless session headers still follow")

        let own = LiveEndpoint<ServerEcho>(path: "anything", headers: ["Authorization": "Bearer endpoint"])
        XCTAssertEqual(try value(of: client.request(own)).header("Authorization"), "Bearer endpoint",
                       "the request's own header wins over the session's, as in URLSession")
        XCTAssertEqual(session.httpAdditionalHeaders?["Authorization"] as? String, "Bearer session-secret",
                       "the caller's configuration object is not changed")
    }

    func test_givenA307ToAnotherHost_whenFollowed_thenCredentialsAreStripped() throws {
        let client = try makeClient()
        let target = try server.localhostURL("/anything/307").absoluteString
        let query = [URLQueryItem(name: "url", value: target), URLQueryItem(name: "status", value: "307")]
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", query: query,
                                                headers: ["Authorization": "Bearer top-secret"])
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.path, "/anything/307")
        XCTAssertNil(echo.header("Authorization"))
    }

    func test_givenARedirect_thenTheResponseURLIsTheFinalOne() throws {
        let client = try makeClient()
        let response = try value(of: client.response(for: LiveJSONEndpoint(path: "redirect/1")))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(response.url?.path, "/anything")
    }
}
