import Courier
import Foundation
import Promises
import XCTest

/// Where a redirect leads: a relative `Location` is resolved against the URL that answered, as
/// RFC 3986 says. FoundationNetworking alone resolves it against the server's root (`c?x=1` from
/// `/relative-redirect/a/b` went to `/c?x=1`, `?page=2` to `/?page=2`) and turns a `Location` of
/// another scheme into a path on the same server (`file:///etc/hostname` went to `/etc/hostname`).
final class RedirectLocationIntegrationTests: IntegrationTestCase {
    private func redirect(
        to location: String, status: Int = 302, method: HTTPMethod = .get, body: RequestBody = .none
    ) -> LiveEndpoint<ServerEcho> {
        let query = [URLQueryItem(name: "location", value: location), URLQueryItem(name: "status", value: "\(status)")]
        return LiveEndpoint<ServerEcho>(path: "relative-redirect/a/b", method: method, query: query, body: body, timeout: 10)
    }

    func test_givenARelativeLocation_thenItIsResolvedAgainstTheURLThatAnswered() throws {
        let client = try makeClient()
        let cases: [(location: String, path: String, query: [String: String])] = [
            ("c?x=1", "/relative-redirect/a/c", ["x": "1"]),
            ("?page=2", "/relative-redirect/a/b", ["page": "2"]),
            ("./d", "/relative-redirect/a/d", [:]),
            ("../up", "/relative-redirect/up", [:]),
            ("/relative-redirect/absolute?y=2", "/relative-redirect/absolute", ["y": "2"]),
        ]
        for (location, path, query) in cases {
            for status in [302, 307] {
                let echo = try value(of: client.request(redirect(to: location, status: status)))
                XCTAssertEqual(echo.path, path, "\(status) to \(location)")
                XCTAssertEqual(echo.query, JSON.object(query.mapValues { JSON.string($0) }), "\(status) to \(location)")
            }
        }
    }

    /// A 307 of a `POST` is resent by the transport itself on Linux: the body goes to the resolved
    /// URL, and an upper-case scheme (which FoundationNetworking refuses as unsupported) is fine.
    func test_givenA307WithARelativeOrUpperCaseLocation_thenTheBodyArrivesThere() throws {
        let client = try makeClient()
        let port = try XCTUnwrap(try server.baseURL.port)
        for (location, path) in [("c", "/relative-redirect/a/c"), ("HTTP://127.0.0.1:\(port)/relative-redirect/loud", "/relative-redirect/loud")] {
            let body = RequestBody.data(Data("to \(location)".utf8), contentType: "text/plain")
            let echo = try value(of: client.request(redirect(to: location, status: 307, method: .post, body: body)))
            XCTAssertEqual(echo.method, "POST", location)
            XCTAssertEqual(echo.path, path, location)
            XCTAssertEqual(echo.body, "to \(location)", location)
        }
    }

    func test_givenALocationThatIsNotHTTP_thenTheRedirectIsRefusedAndNothingIsSent() throws {
        let client = try makeClient()
        for location in ["file:///etc/hostname", "data:text/plain,hi", "ftp://127.0.0.1:9/x", "myapp://callback?code=s3cr3t", "http://"] {
            for status in [302, 307] {
                let before = try requestCount()
                let error = failure(of: client.request(redirect(to: location, status: status, method: status == 307 ? .put : .get,
                                                                body: status == 307 ? .json(["a": 1]) : .none)))
                XCTAssertEqual(error.map(errorKind), "invalidRequest", "\(status) to \(location)")
                XCTAssertTrue(String(describing: error).contains("not http or https"), "\(status) to \(location): \(String(describing: error))")
                XCTAssertFalse(String(describing: error).contains("s3cr3t"), "the refused URL's query is redacted")
                // The redirect itself and this count: nothing was sent to a path made up from the Location.
                XCTAssertEqual(try requestCount() - before, 2, "\(status) to \(location)")
            }
        }
    }

    /// With redirects not followed, such a 3xx is delivered as it is (an app reading an OAuth
    /// `Location` such as `myapp://callback?code=…` does this).
    func test_givenRedirectsNotFollowed_whenTheLocationIsNotHTTP_thenThe3xxIsDelivered() throws {
        struct Unfollowed: Endpoint {
            typealias Response = HTTPResponse
            var path: String { "relative-redirect/a/b" }
            var query: [URLQueryItem] { [URLQueryItem(name: "location", value: "myapp://callback?code=1")] }
            var acceptedStatusCodes: StatusCodeSet { [302] }
        }
        for policy in [URLSessionTransport.RedirectPolicy.never, .sameOrigin] {
            let client = NetworkClient(configuration: .init(baseURL: try server.baseURL), transport: URLSessionTransport(redirects: policy))
            let response = try value(of: client.request(Unfollowed()))
            XCTAssertEqual(response.statusCode, 302, "\(policy)")
            XCTAssertEqual(response.header("Location"), "myapp://callback?code=1", "\(policy)")
        }
    }

    private func requestCount() throws -> Int {
        let client = try makeClient()
        return try XCTUnwrap(value(of: client.request(LiveJSONEndpoint(path: "stats")))["requests"].int)
    }
}
