@testable import Courier
import Foundation
import XCTest

/// `Set-Cookie` read as RFC 6265 §5.2–5.3 says (what `CookieJar` keeps on Linux).
final class SetCookieTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let url = URL(string: "https://api.example.com/v1/users/7")!

    private func one(_ header: String, from url: URL? = nil) throws -> SetCookie {
        let cookies = SetCookie.parse(header, from: url ?? self.url, now: now)
        XCTAssertEqual(cookies.count, 1, header)
        return try XCTUnwrap(cookies.first, header)
    }

    private func refused(_ header: String, from url: URL? = nil) -> Bool {
        SetCookie.parse(header, from: url ?? self.url, now: now).isEmpty
    }

    func test_givenJoinedHeaders_thenACommaStartsACookieOnlyBeforeANameAndValue() throws {
        let cookies = SetCookie.parse("a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT, b=2, c=3; Path=/x", from: url, now: now)
        XCTAssertEqual(cookies.map(\.name), ["a", "b", "c"])
        XCTAssertEqual(cookies.map(\.value), ["1", "2", "3"])
        XCTAssertEqual(cookies[0].expires, HTTPDate.parse("Wed, 21 Oct 2099 07:28:00 GMT", now: now).map { min($0, now + SetCookie.maximumAge) })
        XCTAssertEqual(cookies[2].path, "/x")
    }

    func test_givenNoAttributes_thenItIsAHostOnlySessionCookieForTheRequestsDirectory() throws {
        let cookie = try one("session=abc")
        XCTAssertEqual(cookie, SetCookie(name: "session", value: "abc", domain: "api.example.com", hostOnly: true,
                                         path: "/v1/users", secure: false, expires: nil))
        XCTAssertEqual(SetCookie.defaultPath(of: "/login"), "/")
        XCTAssertEqual(SetCookie.defaultPath(of: ""), "/")
        XCTAssertEqual(try one("p=1; Path=relative").path, "/v1/users", "a path not starting with / is the default")
        XCTAssertEqual(try one("p=1; Path=/").path, "/")
    }

    func test_givenMaxAge_thenItWinsOverExpiresAndZeroOrLessExpiresTheCookie() throws {
        XCTAssertEqual(try one("a=1; Max-Age=60; Expires=Wed, 21 Oct 2099 07:28:00 GMT").expires, now + 60)
        XCTAssertEqual(try one("a=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Max-Age=60").expires, now + 60)
        for expiring in ["a=; Max-Age=0", "a=1; Max-Age=-5", "a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT"] {
            let expires = try XCTUnwrap(try one(expiring).expires, expiring)
            XCTAssertLessThanOrEqual(expires, now, expiring)
        }
        XCTAssertNil(try one("a=1; Max-Age=soon").expires, "an unreadable Max-Age is ignored")
        XCTAssertNil(try one("a=1; Max-Age=+5").expires, "Max-Age starts with a digit or a minus sign")
        XCTAssertEqual(try one("a=1; Max-Age=999999999999").expires, now + SetCookie.maximumAge, "capped at 400 days")
        XCTAssertEqual(try one("a=1; Expires=Wed, 21-Oct-2026 07:28:00 GMT").expires,
                       HTTPDate.parse("Wed, 21 Oct 2026 07:28:00 GMT", now: now), "the Netscape form with dashes")
    }

    func test_givenADomain_thenOnlyOneCoveringTheHostAndWiderThanOneLabelIsKept() throws {
        let shared = try one("a=1; Domain=.Example.com")
        XCTAssertEqual(shared.domain, "example.com")
        XCTAssertFalse(shared.hostOnly)
        XCTAssertFalse(try one("a=1; Domain=api.example.com").hostOnly, "the host itself, named: subdomains too")
        for header in ["a=1; Domain=com", "a=1; Domain=other.com", "a=1; Domain=pi.example.com", "a=1; Domain=localhost"] {
            XCTAssertTrue(refused(header), header)
        }
        let address = URL(string: "http://127.0.0.1:8080/x")!
        XCTAssertTrue(refused("a=1; Domain=0.0.1", from: address), "no suffix matching for an address")
        XCTAssertTrue(try one("a=1; Domain=127.0.0.1", from: address).hostOnly)
        XCTAssertTrue(try one("a=1; Domain=localhost", from: URL(string: "http://localhost/")!).hostOnly)
        XCTAssertTrue(SetCookie.isIPAddress("::1"))
        XCTAssertFalse(SetCookie.isIPAddress("1.2.3.example"))
    }

    func test_givenMalformedCookies_thenTheyAreRefused() throws {
        for header in ["novalue", "=value", "a=b\u{1}c", "a\u{7F}=1", "a=" + String(repeating: "v", count: SetCookie.maximumSize)] {
            XCTAssertTrue(refused(header), header.prefix(40).debugDescription)
        }
        XCTAssertTrue(try one("a=1; Secure; HttpOnly; SameSite=Lax").secure)
        XCTAssertEqual(try one(" spaced = value with spaces ").value, "value with spaces")
        XCTAssertTrue(SetCookie.parse("a=1", from: URL(string: "file:///tmp/x")!, now: now).isEmpty, "no host, no cookie")
    }

    func test_givenExpiresInTheFormsServersWrite_thenEachIsRead() throws {
        let expected = try XCTUnwrap(HTTPDate.parse("Thu, 01 Jan 2099 00:00:01 GMT", now: now))
        for text in ["Thu, 01 Jan 2099 00:00:01 GMT", "Thu, 01-Jan-2099 00:00:01 GMT", "Thu, 1 Jan 2099 00:00:01 UTC",
                     "Thursday, 01-Jan-2099 00:00:01 GMT", "01 Jan 2099 0:0:1", "Jan 1 00:00:01 2099"] {
            XCTAssertEqual(CookieDate.parse(text), expected, text)
        }
        XCTAssertEqual(CookieDate.parse("Thu, 01-Jan-70 00:00:01 GMT"), Date(timeIntervalSince1970: 1), "70 is 1970")
        for bad in ["", "tomorrow", "Thu, 31 Feb 2099 00:00:00 GMT", "Thu, 01 Jan 2099 24:00:00 GMT", "Thu, 01 Jan 1500 00:00:00 GMT",
                    String(repeating: "1", count: 500)] {
            XCTAssertNil(CookieDate.parse(bad), bad.prefix(40).debugDescription)
        }
        XCTAssertLessThanOrEqual(try XCTUnwrap(try one("gone=; Expires=Thu, 01 Jan 1970 00:00:00 UTC").expires), now,
                                 "a deletion in UTC is read")
        XCTAssertEqual(SetCookie.maxAge("99999999999999999999"), SetCookie.maximumAge, "too long for Int: capped, not ignored")
        XCTAssertEqual(SetCookie.maxAge("-99999999999999999999"), -1)
        XCTAssertNil(SetCookie.maxAge("12a"))
    }
}
