import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects of requests with a body. A 301, 302 or 303 turns a `POST` into a `GET` without a body
/// (as URLSession does everywhere); a 307 or 308 keeps the method and the body. FoundationNetworking
/// alone would send the body empty (`Content-Length: 0`); on Linux the transport sends the
/// redirected request itself, body included.
final class RedirectBodyIntegrationTests: IntegrationTestCase {
    private let bodies: [(name: String, body: RequestBody)] = [
        ("json", .json(["item": "a"])),
        ("data", .data(Data(repeating: UInt8(ascii: "d"), count: 3_000), contentType: "text/plain")),
        ("form", .form(["item": "a"])),
    ]

    private func redirect(_ status: Int, method: HTTPMethod = .post, body: RequestBody) -> LiveEndpoint<ServerEcho> {
        let query = [URLQueryItem(name: "url", value: "/anything/next"), URLQueryItem(name: "status", value: "\(status)")]
        return LiveEndpoint<ServerEcho>(path: "redirect-to", method: method, query: query, body: body, timeout: 10)
    }

    func test_givenA307Or308OfAPostWithABody_thenTheBodyArrivesAtTheNewURL() throws {
        let client = try makeClient()
        for status in [307, 308] {
            for (name, body) in bodies {
                let built = try client.makeURLRequest(for: redirect(status, body: body))
                let echo = try value(of: client.request(redirect(status, body: body)))
                XCTAssertEqual(echo.method, "POST", "\(status) \(name)")
                XCTAssertEqual(echo.path, "/anything/next", "\(status) \(name)")
                XCTAssertEqual(Data(echo.body.utf8), built.httpBody, "\(status) \(name): the body must follow a \(status)")
                XCTAssertEqual(echo.header("Content-Type"), built.value(forHTTPHeaderField: "Content-Type"), "\(status) \(name)")
            }
        }
    }

    func test_givenAChainOf307s_thenTheBodyArrivesAtTheEndOfIt() throws {
        let client = try makeClient()
        let last = "/redirect-to?url=%2Fanything%2Fend&status=308"
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "url", value: last), URLQueryItem(name: "status", value: "307")]
        let middle = "/redirect-to?" + (components.percentEncodedQuery ?? "")
        let query = [URLQueryItem(name: "url", value: middle), URLQueryItem(name: "status", value: "307")]
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", method: .patch, query: query,
                                                body: .data(Data("three hops".utf8), contentType: "text/plain"), timeout: 10)

        let echo = try value(of: client.request(endpoint))

        XCTAssertEqual(echo.method, "PATCH")
        XCTAssertEqual(echo.path, "/anything/end")
        XCTAssertEqual(echo.body, "three hops")
    }

    func test_given64ConcurrentPostsRedirectedBy307_thenEachBodyArrivesWithItsOwnRequest() throws {
        let client = try makeClient()
        let bodies = (0..<64).map { "body number \($0) " + String(repeating: "x", count: $0 * 97) }
        let promises = bodies.map { text in
            client.request(redirect(307, body: .data(Data(text.utf8), contentType: "text/plain")))
        }
        let echoes = try value(of: when(fulfilled: promises), within: 30)
        XCTAssertEqual(echoes.map(\.body), bodies)
        XCTAssertEqual(Set(echoes.map(\.path)), ["/anything/next"])
    }

    func test_givenA307ThatRedirectsToItselfForEver_thenTheRequestFailsAfterTheRedirectLimit() throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-loop/307", method: .post,
                                                body: .data(Data("again".utf8), contentType: "text/plain"), timeout: 10)

        let error = failure(of: client.request(endpoint))

        guard case .transport(let underlying)? = error as? NetworkError else {
            return XCTFail("expected a transport error, got \(String(describing: error))")
        }
        XCTAssertEqual((underlying as? URLError)?.code, .httpTooManyRedirects)
    }

    #if canImport(FoundationNetworking)
    func test_givenA307OfABodyStreamedByAPlugin_thenItFailsClearlyInsteadOfSendingItEmpty() throws {
        struct StreamedBody: RequestPlugin {
            func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
                var request = request
                request.httpBody = nil
                request.httpBodyStream = InputStream(data: Data("streamed".utf8))
                return request
            }
        }
        let client = try makeClient { $0.plugins = [StreamedBody()] }

        let error = failure(of: client.request(redirect(307, body: .data(Data("x".utf8), contentType: "text/plain"))))

        guard case .invalidRequest(let reason)? = error as? NetworkError else {
            return XCTFail("expected invalidRequest, got \(String(describing: error))")
        }
        XCTAssertTrue(reason.contains("307 redirect of a request with a body") && reason.contains("stream"), reason)
    }
    #endif

    func test_givenA301To303OfAPostWithABody_thenTheRedirectIsFollowedAsAGetWithoutABody() throws {
        let client = try makeClient()
        for status in [301, 302, 303] {
            for (name, body) in bodies {
                let echo = try value(of: client.request(redirect(status, body: body)))
                XCTAssertEqual(echo.method, "GET", "\(status) \(name)")
                XCTAssertEqual(echo.path, "/anything/next", "\(status) \(name)")
                XCTAssertEqual(echo.body, "", "\(status) \(name)")
            }
        }
    }

    func test_givenA307OfARequestWithoutABody_thenItIsFollowedWithItsMethod() throws {
        let client = try makeClient()
        let delete = try value(of: client.request(redirect(307, method: .delete, body: .none)))
        XCTAssertEqual(delete.method, "DELETE")
        XCTAssertEqual(delete.path, "/anything/next")
        let get = try value(of: client.request(redirect(308, method: .get, body: .none)))
        XCTAssertEqual(get.method, "GET")
        XCTAssertEqual(get.path, "/anything/next")
    }
}
