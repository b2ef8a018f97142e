import Courier
import Foundation
import Promises
import XCTest

/// What actually goes over the wire for a built URL: the server echoes the path and query it
/// received, so joining and encoding are checked end to end.
final class URLIntegrationTests: IntegrationTestCase {
    private func echo(base: String, path: String, query: [URLQueryItem] = []) throws -> ServerEcho {
        let baseURL = try XCTUnwrap(URL(string: try server.baseURL.absoluteString + base))
        let client = NetworkClient(baseURL: baseURL)
        return try value(of: client.request(LiveEndpoint<ServerEcho>(path: path, query: query)))
    }

    func test_givenABaseURLWithAPathPrefix_thenTheEndpointPathIsAppendedWithOneSlash() throws {
        XCTAssertEqual(try echo(base: "/anything/api", path: "users/1").path, "/anything/api/users/1")
        XCTAssertEqual(try echo(base: "/anything/api/", path: "/users/2").path, "/anything/api/users/2")
        XCTAssertEqual(try echo(base: "/anything/api/", path: "users/3").path, "/anything/api/users/3")
    }

    func test_givenAPathWithASpace_thenItArrivesPercentEncoded() throws {
        XCTAssertEqual(try echo(base: "", path: "anything/a b").path, "/anything/a%20b")
    }

    func test_givenABaseURLWithAQuery_thenItIsMergedWithTheEndpointQuery() throws {
        let received = try echo(base: "/anything?key=base", path: "", query: [.init(name: "page", value: "2")])
        XCTAssertEqual(received.query["key"].string, "base")
        XCTAssertEqual(received.query["page"].string, "2")
    }

    func test_givenNonASCIIQueryValues_thenTheServerDecodesThemExactly() throws {
        let received = try echo(base: "", path: "anything", query: [.init(name: "name", value: "Zoë & Łukasz")])
        XCTAssertEqual(received.query["name"].string, "Zoë & Łukasz")
    }

    func test_givenResponseHeaders_thenTheyAreReadCaseInsensitively() throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<HTTPResponse>(path: "response-headers",
                                                  query: [.init(name: "X-Rate-Limit", value: "5")])
        let response = try value(of: client.request(endpoint))
        XCTAssertEqual(response.header("x-rate-limit"), "5")
        XCTAssertEqual(response.header("X-RATE-LIMIT"), "5")
    }

    /// A next-page link the server handed out, sent as it is; on another origin (localhost
    /// against the client's 127.0.0.1) the client's credential header stays home.
    func test_givenRequestForAWholeURL_thenItArrivesAsWrittenAndCredentialsStayHome() throws {
        let client = try makeClient { $0.defaultHeaders["X-Api-Key"] = "home-key" }
        let port = try XCTUnwrap(try server.baseURL.port)
        for (host, key) in [("127.0.0.1", "home-key"), ("localhost", nil)] {
            let link = try XCTUnwrap(URL(string: "http://\(host):\(port)/anything/items?cursor=8f%2B2c&limit=20"))
            let echo = try value(of: client.request(Request<ServerEcho>(url: link)))
            XCTAssertEqual(echo.path, "/anything/items", host)
            XCTAssertEqual(echo.query, ["cursor": "8f+2c", "limit": "20"], host)
            XCTAssertEqual(echo.header("X-Api-Key"), key, host)
        }
    }
}
