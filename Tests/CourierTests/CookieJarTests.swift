@testable import Courier
import Foundation
import XCTest
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which stored cookies `CookieJar` sends where, and how responses change them (RFC 6265 §5.4).
final class CookieJarTests: XCTestCase {
    private func jar(policy: HTTPCookie.AcceptPolicy = .always) throws -> CookieJar {
        let storage = try XCTUnwrap(URLSessionConfiguration.ephemeral.httpCookieStorage)
        for cookie in storage.cookies ?? [] { storage.deleteCookie(cookie) }
        return CookieJar(storage: storage, policy: policy)
    }

    private func response(_ url: String, setCookie: String) throws -> HTTPURLResponse {
        try XCTUnwrap(HTTPURLResponse(url: try XCTUnwrap(URL(string: url)), statusCode: 200, httpVersion: "HTTP/1.1",
                                      headerFields: ["Set-Cookie": setCookie]))
    }

    private func header(_ jar: CookieJar, _ url: String) throws -> String? {
        jar.header(for: try XCTUnwrap(URL(string: url)))
    }

    func test_givenPathsAndSecureCookies_thenOnlyMatchingOnesAreSentLongestPathFirst() throws {
        let jar = try jar()
        jar.store(from: try response("https://api.example.com/", setCookie: "root=1, deep=2; Path=/v1/users, safe=3; Secure"))
        XCTAssertEqual(try header(jar, "https://api.example.com/v1/users/7"), "deep=2; root=1; safe=3")
        XCTAssertEqual(try header(jar, "https://api.example.com/v1/users"), "deep=2; root=1; safe=3")
        XCTAssertEqual(try header(jar, "https://api.example.com/v1/usersettings"), "root=1; safe=3", "a path matches at a /")
        XCTAssertEqual(try header(jar, "http://api.example.com/v1/users/7"), "deep=2; root=1", "Secure only over https")
        XCTAssertNil(try header(jar, "https://other.example.com/"), "host-only cookies stay on their host")
    }

    func test_givenADomainCookie_thenSubdomainsGetItAndAddressesDoNot() throws {
        let jar = try jar()
        jar.store(from: try response("https://example.com/", setCookie: "wide=1; Domain=example.com"))
        XCTAssertEqual(try header(jar, "https://api.example.com/x"), "wide=1")
        XCTAssertEqual(try header(jar, "https://example.com/x"), "wide=1")
        XCTAssertNil(try header(jar, "https://notexample.com/x"))
        XCTAssertFalse(CookieJar.domain(".0.0.1", matches: "10.0.0.1"), "an address matches its own cookies only")
        XCTAssertTrue(CookieJar.domain("10.0.0.1", matches: "10.0.0.1"))
    }

    func test_givenAnExpiringSetCookie_thenTheStoredCookieIsRemoved() throws {
        let jar = try jar()
        jar.store(from: try response("https://api.example.com/", setCookie: "session=abc; Path=/, other=1; Path=/"))
        XCTAssertEqual(try header(jar, "https://api.example.com/"), "other=1; session=abc")
        jar.store(from: try response("https://api.example.com/logout", setCookie: "session=; Path=/; Max-Age=0"))
        XCTAssertEqual(try header(jar, "https://api.example.com/"), "other=1")
        jar.store(from: try response("https://api.example.com/", setCookie: "other=2; Path=/"))
        XCTAssertEqual(try header(jar, "https://api.example.com/"), "other=2", "a cookie of the same name, domain and path is replaced")
        XCTAssertEqual(jar.storage.cookies?.count, 1)
    }

    func test_givenAnExpiredStoredCookie_thenItIsNotSent() throws {
        let jar = try jar()
        let soon = Date()
        jar.store(from: try response("https://api.example.com/", setCookie: "brief=1; Path=/; Max-Age=10"), now: soon)
        XCTAssertEqual(jar.header(for: try XCTUnwrap(URL(string: "https://api.example.com/"))), "brief=1")
        XCTAssertNil(jar.header(for: try XCTUnwrap(URL(string: "https://api.example.com/")), now: soon + 11))
    }

    func test_givenTheCallersOwnCookie_thenTheJarsFollowIt() throws {
        let jar = try jar()
        jar.store(from: try response("https://api.example.com/", setCookie: "stored=1; Path=/"))
        let request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/x")))
        XCTAssertEqual(jar.applying(to: request, own: "mine=2").value(forHTTPHeaderField: "Cookie"), "mine=2; stored=1")
        var elsewhere = URLRequest(url: try XCTUnwrap(URL(string: "https://other.example.com/x")))
        elsewhere.setValue("stale=1", forHTTPHeaderField: "Cookie")
        XCTAssertNil(jar.applying(to: elsewhere, own: nil).value(forHTTPHeaderField: "Cookie"), "the previous URL's cookies go")
    }

    func test_givenCookiesRefusedByPolicy_thenNothingIsStored() throws {
        let jar = try jar(policy: .never)
        jar.store(from: try response("https://api.example.com/", setCookie: "a=1"))
        XCTAssertEqual(jar.storage.cookies?.count ?? 0, 0)
    }

    func test_givenPathsWithTrailingSlashesOrEscapes_thenTheyMatchAsSent() throws {
        let jar = try jar()
        jar.store(from: try response("https://api.example.com/", setCookie: "dir=1; Path=/dir/, esc=2; Path=/a%20b"))
        XCTAssertEqual(try header(jar, "https://api.example.com/dir/"), "dir=1")
        XCTAssertEqual(try header(jar, "https://api.example.com/dir/x"), "dir=1")
        XCTAssertNil(try header(jar, "https://api.example.com/dir"), "/dir is not under /dir/")
        XCTAssertEqual(try header(jar, "https://api.example.com/a%20b/c"), "esc=2")
        jar.store(from: try response("https://api.example.com/app/", setCookie: "home=1"))
        XCTAssertEqual(try header(jar, "https://api.example.com/app/page"), "home=1", "the default path of /app/ is /app")
        XCTAssertNil(try header(jar, "https://api.example.com/other"))
    }

    func test_givenAServerSettingEndlessCookies_thenOneDomainKeepsAtMostTheLimit() throws {
        let jar = try jar()
        let many = (0..<(CookieJar.maximumCookiesPerDomain + 20)).map { "c\($0)=1" }.joined(separator: ", ")
        jar.store(from: try response("https://api.example.com/", setCookie: many))
        XCTAssertEqual(jar.storage.cookies?.count, CookieJar.maximumCookiesPerDomain)
        jar.store(from: try response("https://api.example.com/", setCookie: "c0=2"))
        XCTAssertTrue(try XCTUnwrap(header(jar, "https://api.example.com/")).contains("c0=2"), "a stored cookie is still replaced")
        jar.store(from: try response("https://other.example.com/", setCookie: "fresh=1"))
        XCTAssertEqual(try header(jar, "https://other.example.com/"), "fresh=1", "another domain has its own limit")
    }
}

#if canImport(FoundationNetworking)
extension CookieJarTests {
    func test_givenTheTransportKeepsTheCookies_thenFoundationNetworkingNeitherStoresNorParsesThem() throws {
        let transport = URLSessionTransport(configuration: .ephemeral)
        XCTAssertNil(transport.sessionCookieHandling.storage, "the jar has the storage")
        XCTAssertEqual(transport.sessionCookieHandling.policy, .never,
                       "FoundationNetworking would parse every response header for cookies it cannot keep")
    }

    func test_givenCookieSendingTurnedOffWithAStorage_thenFoundationNetworkingStillStoresThem() throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .always
        let transport = URLSessionTransport(configuration: configuration)
        XCTAssertNotNil(transport.sessionCookieHandling.storage)
        XCTAssertEqual(transport.sessionCookieHandling.policy, .always, "the caller's choice is left alone")
    }
}
#endif
