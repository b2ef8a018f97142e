import Courier
import Foundation
import Promises
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cookies against the local server, as Apple's URLSession keeps and sends them. On Linux the
/// transport does this itself (`CookieJar`): FoundationNetworking sent a login redirect's next
/// request without the cookie the redirect set, sent `Secure` cookies over `http` and cookies
/// outside their `Path`, and did not remove a cookie answered with `Max-Age=0`. (Linux only: on
/// Apple platforms URLSession's own cookie handling applies, with its own order and merging.)
#if canImport(FoundationNetworking)
final class CookieIntegrationTests: IntegrationTestCase {
    /// Answers with exactly `wire` (status line, headers, body) through the server's `raw` route.
    private struct Raw: Endpoint {
        typealias Response = ServerEcho
        let wire: String
        var path: String { "raw" }
        var method: HTTPMethod { .post }
        var body: RequestBody { .data(Data(wire.utf8), contentType: "application/octet-stream") }
    }

    private func client(_ configuration: URLSessionConfiguration = .ephemeral, host: String = "127.0.0.1") throws -> NetworkClient {
        try client(URLSessionTransport(configuration: configuration), host: host)
    }

    private func client(_ transport: URLSessionTransport, host: String = "127.0.0.1") throws -> NetworkClient {
        let port = try XCTUnwrap(try server.baseURL.port)
        return NetworkClient(configuration: .init(baseURL: try XCTUnwrap(URL(string: "http://\(host):\(port)"))), transport: transport)
    }

    private func setCookie(_ cookie: String, with client: NetworkClient) throws {
        let endpoint = LiveJSONEndpoint(path: "response-headers", query: [URLQueryItem(name: "Set-Cookie", value: cookie)])
        _ = try value(of: client.response(for: endpoint))
    }

    private func cookieSent(by client: NetworkClient, to path: String = "anything/x", headers: [String: String] = [:]) throws -> String? {
        try value(of: client.request(LiveEndpoint<ServerEcho>(path: path, headers: headers))).header("Cookie")
    }

    private func redirect(_ status: Int, setting cookie: String, to location: String) -> Raw {
        Raw(wire: "HTTP/1.1 \(status) Found\r\nSet-Cookie: \(cookie)\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n")
    }

    func test_givenALoginRedirectSettingASession_thenTheNextRequestCarriesIt() throws {
        for status in [302, 303, 307] {
            let client = try client()
            let landed = try value(of: client.request(redirect(status, setting: "session=abc; Path=/; HttpOnly", to: "/anything/home")))
            XCTAssertEqual(landed.path, "/anything/home", "\(status)")
            XCTAssertEqual(landed.header("Cookie"), "session=abc", "\(status): the redirect's own cookie goes with its next request")
            XCTAssertEqual(try cookieSent(by: client), "session=abc", "\(status): and with later requests")
        }
    }

    func test_givenARedirectToAnotherHost_thenThatHostsCookiesGoAndTheFirstHostsStay() throws {
        let transport = URLSessionTransport()
        let local = try client(transport)
        let other = try client(transport, host: "localhost")
        try setCookie("here=1; Path=/", with: local)
        try setCookie("there=2; Path=/", with: other)
        let port = try XCTUnwrap(try server.baseURL.port)
        let landed = try value(of: local.request(redirect(302, setting: "set=3; Path=/", to: "http://localhost:\(port)/anything/away")))
        XCTAssertEqual(landed.header("Cookie"), "there=2", "localhost's cookies only, none of 127.0.0.1's")
        XCTAssertEqual(try cookieSent(by: local), "here=1; set=3")
    }

    func test_givenTheCallersOwnCookieHeader_thenTheStoredCookiesFollowItAndItStaysWithinTheOrigin() throws {
        let client = try client()
        try setCookie("stored=1; Path=/", with: client)
        XCTAssertEqual(try cookieSent(by: client, headers: ["Cookie": "mine=2"]), "mine=2; stored=1")
        let port = try XCTUnwrap(try server.baseURL.port)
        for (location, expected) in [("/anything/same", "mine=2; stored=1"), ("http://localhost:\(port)/anything/away", nil)] {
            let hop = "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n"
            let endpoint = LiveEndpoint<ServerEcho>(path: "raw", method: .post, headers: ["Cookie": "mine=2"],
                                                    body: .data(Data(hop.utf8), contentType: "application/octet-stream"))
            XCTAssertEqual(try value(of: client.request(endpoint)).header("Cookie"), expected, location)
        }
    }

    /// Once a hop to another origin dropped the caller's own cookie, a later hop within that
    /// origin does not bring it back (the jar's cookies for that origin make the header non-empty).
    func test_givenAHopToAnotherOriginThenOneWithinIt_thenTheCallersCookieStaysDropped() throws {
        let transport = URLSessionTransport()
        let local = try client(transport)
        try setCookie("theirs=1; Path=/", with: try client(transport, host: "localhost"))
        let port = try XCTUnwrap(try server.baseURL.port)
        let hop = "HTTP/1.1 302 Found\r\nLocation: http://localhost:\(port)/redirect/1\r\nContent-Length: 0\r\n\r\n"
        let endpoint = LiveEndpoint<ServerEcho>(path: "raw", method: .post, headers: ["Cookie": "mine=SECRET"],
                                                body: .data(Data(hop.utf8), contentType: "application/octet-stream"))
        let landed = try value(of: local.request(endpoint))
        XCTAssertEqual(landed.path, "/anything", "two hops: to localhost, then within it")
        XCTAssertEqual(landed.header("Cookie"), "theirs=1")
    }

    func test_givenSecurePathAndExpiringCookies_thenEachGoesOnlyWhereAndWhileItMay() throws {
        let client = try client()
        try setCookie("plain=1; Path=/", with: client)
        try setCookie("locked=1; Path=/; Secure", with: client)
        try setCookie("narrow=1; Path=/anything/inside", with: client)
        XCTAssertEqual(try cookieSent(by: client), "plain=1", "no Secure cookie over http, no cookie outside its path")
        XCTAssertEqual(try cookieSent(by: client, to: "anything/inside/deeper"), "narrow=1; plain=1")
        try setCookie("plain=; Path=/; Max-Age=0", with: client)
        XCTAssertNil(try cookieSent(by: client), "Max-Age=0 removes the cookie")
    }

    func test_givenADomainTheHostMayNotSet_thenTheCookieIsRefused() throws {
        let client = try client()
        // FoundationNetworking kept `Domain=0.0.1` from 127.0.0.1 (and would send it to 10.0.0.1).
        for cookie in ["a=1; Domain=com", "b=1; Domain=0.0.1", "c=1; Domain=localhost", "d=1; Domain=example.com"] {
            try setCookie(cookie, with: client)
        }
        XCTAssertNil(try cookieSent(by: client))
        try setCookie("e=1; Domain=127.0.0.1", with: client)
        XCTAssertEqual(try cookieSent(by: client), "e=1")
    }

    func test_givenTheSessionsStorage_thenTheCookiesAreKeptThereAndCookiesCanBeTurnedOff() throws {
        let configuration = URLSessionConfiguration.ephemeral
        let storage = try XCTUnwrap(configuration.httpCookieStorage)
        let client = try client(configuration)
        try setCookie("kept=1; Path=/", with: client)
        XCTAssertEqual(storage.cookies?.map(\.name), ["kept"], "the storage of the configuration passed in")
        let manual = try XCTUnwrap(HTTPCookie(properties: [.name: "byHand", .value: "2", .domain: "127.0.0.1", .path: "/"]))
        storage.setCookie(manual)
        XCTAssertEqual(try cookieSent(by: client), "byHand=2; kept=1")

        let off = URLSessionConfiguration.ephemeral
        off.httpShouldSetCookies = false
        let withoutCookies = try self.client(off)
        try setCookie("ignored=1; Path=/", with: withoutCookies)
        XCTAssertNil(try cookieSent(by: withoutCookies))

        let refusing = URLSessionConfiguration.ephemeral
        refusing.httpCookieAcceptPolicy = .never
        let refusingClient = try self.client(refusing)
        try setCookie("refused=1; Path=/", with: refusingClient)
        XCTAssertNil(try cookieSent(by: refusingClient))
        XCTAssertEqual(refusing.httpCookieStorage?.cookies?.count ?? 0, 0)
    }
}
#endif
