@testable import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Endpoint.baseURL` and `Request(url:)`: a call to another server, or to a URL the server handed
/// out, through the same pipeline; the client's credentials stay with its own origin.
final class EndpointBaseURLTests: XCTestCase {
    private let home = URL(string: "https://api.example.com/v1")!

    private struct Thumbnail: Endpoint {
        typealias Response = HTTPResponse
        var baseURL: URL?
        var path: String { "images/7/small.jpg" }
        var headers: [String: String] { ["X-Cdn-Key": "cdn-secret"] }
    }

    private func client(
        _ transport: RecordingTransport, authenticator: (any Authenticator)? = nil
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: home)
        configuration.defaultHeaders = ["Accept": "application/json", "X-Api-Key": "home-key", "Cookie": "sid=1"]
        configuration.authenticator = authenticator
        return NetworkClient(configuration: configuration, transport: transport)
    }

    func test_givenAnEndpointBaseURL_thenItsPathJoinsThatURLInsteadOfTheClients() throws {
        let client = client(.answering())
        let other = try client.makeURLRequest(for: Thumbnail(baseURL: URL(string: "https://cdn.example.com/assets/")))
        XCTAssertEqual(other.url?.absoluteString, "https://cdn.example.com/assets/images/7/small.jpg")
        let own = try client.makeURLRequest(for: Thumbnail(baseURL: nil))
        XCTAssertEqual(own.url?.absoluteString, "https://api.example.com/v1/images/7/small.jpg")
        XCTAssertThrowsError(try client.makeURLRequest(for: Thumbnail(baseURL: URL(string: "/relative/only")))) { error in
            guard case NetworkError.invalidRequest? = error as? NetworkError else { return XCTFail("\(error)") }
        }
    }

    func test_givenRequestWithAWholeURL_thenThatURLIsSentAsItIsAndQueryItemsFollowItsOwn() throws {
        let client = client(.answering())
        let next = try XCTUnwrap(URL(string: "https://api.example.com/v1/items?cursor=8f%2B2c&limit=20"))
        XCTAssertEqual(try client.makeURLRequest(for: Request<JSON>(url: next)).url, next)
        var more = Request(url: next, method: .post)
        more.query = [URLQueryItem(name: "fields", value: "id,name")]
        let built = try client.makeURLRequest(for: more)
        XCTAssertEqual(built.url?.absoluteString, "https://api.example.com/v1/items?cursor=8f%2B2c&limit=20&fields=id,name")
        XCTAssertEqual(built.httpMethod, "POST")
        XCTAssertEqual(Request(Thumbnail(baseURL: next)).baseURL, next, "copied from an endpoint")
        XCTAssertEqual(Thumbnail(baseURL: next).withHTTPResponse().baseURL, next, "forwarded by the wrapper")
    }

    func test_givenAnotherOrigin_thenCredentialDefaultHeadersAndTheAuthenticatorStayHome() throws {
        let transport = RecordingTransport.answering()
        let client = client(transport, authenticator: TokenAuthenticator(token: "home-token") { _ in .value("fresh") })
        let cdn = URL(string: "https://cdn.example.com")
        _ = try XCTUnwrap(settle(client.request(Thumbnail(baseURL: cdn)))).get()
        let sent = try XCTUnwrap(transport.requests.last)
        XCTAssertNil(sent.value(forHTTPHeaderField: "Authorization"))
        XCTAssertNil(sent.value(forHTTPHeaderField: "X-Api-Key"))
        XCTAssertNil(sent.value(forHTTPHeaderField: "Cookie"))
        XCTAssertEqual(sent.value(forHTTPHeaderField: "Accept"), "application/json", "other defaults still apply")
        XCTAssertEqual(sent.value(forHTTPHeaderField: "X-Cdn-Key"), "cdn-secret", "the endpoint's own headers are sent")
    }

    func test_givenTheSameOriginWithAnotherPath_thenEverythingIsKept() throws {
        let transport = RecordingTransport.answering()
        let client = client(transport, authenticator: TokenAuthenticator(token: "home-token") { _ in .value("fresh") })
        for base in ["https://api.example.com/v2", "https://API.example.com:443/v2"] {
            _ = try XCTUnwrap(settle(client.request(Thumbnail(baseURL: URL(string: base))))).get()
            let sent = try XCTUnwrap(transport.requests.last)
            XCTAssertEqual(sent.value(forHTTPHeaderField: "Authorization"), "Bearer home-token", base)
            XCTAssertEqual(sent.value(forHTTPHeaderField: "X-Api-Key"), "home-key", base)
        }
    }

    func test_givenA401FromAnotherOrigin_thenNoRefreshStartsAndTheErrorArrives() throws {
        let refreshes = SharedValue(0)
        let auth = TokenAuthenticator(token: "home-token") { _ -> Promise<String> in
            refreshes.withLock { $0 += 1 }
            return .value("fresh")
        }
        let client = client(.answering(401, body: #"{"message":"signature expired"}"#), authenticator: auth)
        let result = try XCTUnwrap(settle(client.request(Thumbnail(baseURL: URL(string: "https://uploads.example.net")))))
        guard case .failure(NetworkError.clientError(401, let metadata, _)) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(metadata?.message, "signature expired")
        XCTAssertEqual(refreshes.withLock { $0 }, 0, "another server's 401 says nothing about the client's token")
    }

    func test_givenAPausedClient_thenARequestToAnotherOriginIsHeldToo() throws {
        let transport = RecordingTransport.answering()
        let client = client(transport)
        client.pause()
        let held = client.request(Thumbnail(baseURL: URL(string: "https://cdn.example.com")))
        XCTAssertFalse(transport.waitForSends(1, timeout: 0.2), "held while paused")
        client.resume()
        XCTAssertNotNil(try XCTUnwrap(settle(held)).get())
        XCTAssertEqual(transport.sendCount, 1)
    }

    /// A credential refresh holds the requests that will carry the credential, not one to another
    /// server, which carries none: it goes out while the refresh runs.
    func test_givenARefreshRunning_thenARequestToAnotherOriginIsNotHeldByIt() throws {
        let (refreshed, refresh) = Promise<String>.pending()
        let refreshStarted = expectation(description: "refresh started")
        let auth = TokenAuthenticator(token: "stale") { _ -> Promise<String> in
            refreshStarted.fulfill()
            return refreshed
        }
        let transport = RecordingTransport(.immediate { request in
            let stale = request.url?.host == "api.example.com" && request.value(forHTTPHeaderField: "Authorization") != "Bearer fresh"
            return .success(HTTPResponse(statusCode: stale ? 401 : 200, headers: [:], body: Data(), url: request.url))
        })
        let client = client(transport, authenticator: auth)
        let home = client.request(Thumbnail(baseURL: nil))
        wait(for: [refreshStarted], timeout: 5)
        let elsewhere = try XCTUnwrap(settle(client.request(Thumbnail(baseURL: URL(string: "https://cdn.example.com")))))
        XCTAssertEqual(try elsewhere.get().statusCode, 200, "answered while the refresh still runs")
        XCTAssertTrue(home.isPending, "the home request waits for the refresh")
        refresh.fulfill("fresh")
        XCTAssertEqual(try XCTUnwrap(settle(home)).get().statusCode, 200)
    }
}
