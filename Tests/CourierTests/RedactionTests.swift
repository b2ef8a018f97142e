import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RedactionTests: XCTestCase {
    func test_givenHeaderNames_whenChecked_thenCredentialsAreSensitive() {
        let sensitive = ["Authorization", "authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
                         "X-Auth-Token", "X-Api-Key", "x-refresh-token", "Client-Secret", "My-API-Key",
                         "X-Auth-Key", "Ocp-Apim-Subscription-Key", "X-Hub-Signature", "X-Goog-IAP-JWT-Assertion",
                         "X-Auth", "Authentication", "X-Authentication", "X-Session-Id", "Session"]
        let plain = ["Accept", "Content-Type", "User-Agent", "X-Request-ID", "Cache-Control", "WWW-Authenticate"]
        for name in sensitive { XCTAssertTrue(Redaction.isSensitive(headerName: name), name) }
        for name in plain { XCTAssertFalse(Redaction.isSensitive(headerName: name), name) }
    }

    func test_givenHeaders_whenRedacted_thenSecretValuesReplacedOthersKept() {
        let redacted = Redaction.redact(["Authorization": "Bearer abc", "Cookie": "s=1", "Accept": "application/json"])
        XCTAssertEqual(redacted, ["Authorization": "<redacted>", "Cookie": "<redacted>", "Accept": "application/json"])
    }

    func test_givenURLs_whenRedacted_thenSecretQueryItemsAndUserInfoHidden() throws {
        let table: [(String, String)] = [
            ("https://api.example.com/a?token=abc&page=2", "https://api.example.com/a?token=<redacted>&page=2"),
            ("https://api.example.com/a?access_token=abc", "https://api.example.com/a?access_token=<redacted>"),
            ("https://api.example.com/a?api_key=k1&apiKey=k2&key=k3", "https://api.example.com/a?api_key=<redacted>&apiKey=<redacted>&key=<redacted>"),
            ("https://api.example.com/a?client_secret=s&password=p&q=x", "https://api.example.com/a?client_secret=<redacted>&password=<redacted>&q=x"),
            ("https://api.example.com/a?ACCESS%5FTOKEN=abc", "https://api.example.com/a?ACCESS%5FTOKEN=<redacted>"),
            ("https://user:pw@api.example.com/a", "https://api.example.com/a"),
            ("https://app.example.com/cb#access_token=abc&state=1", "https://app.example.com/cb#access_token=<redacted>&state=1"),
            ("https://app.example.com/#/cb?code=abc&state=1", "https://app.example.com/#/cb?code=<redacted>&state=1"),
            ("https://s3.example.com/o?X-Amz-Signature=abc&X-Amz-Credential=def", "https://s3.example.com/o?X-Amz-Signature=<redacted>&X-Amz-Credential=<redacted>"),
            ("https://api.example.com/a?flag&page=1", "https://api.example.com/a?flag&page=1"),
            ("https://api.example.com/a", "https://api.example.com/a"),
        ]
        for (input, expected) in table {
            XCTAssertEqual(Redaction.redact(try XCTUnwrap(URL(string: input))), expected, input)
        }
    }

    func test_givenRequest_whenDescribed_thenMethodURLHeadersRedacted() throws {
        var request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/me?token=T0KEN")))
        request.httpMethod = "POST"
        request.allHTTPHeaderFields = ["Authorization": "Bearer T0KEN", "Accept": "application/json"]
        request.httpBody = Data("{}".utf8)
        let text = Redaction.describe(request)
        XCTAssertEqual(text, "POST https://api.example.com/me?token=<redacted> [Accept: application/json, Authorization: <redacted>] body 2 bytes")
        XCTAssertFalse(text.contains("T0KEN"))
    }

    func test_givenResponseWithCookies_whenDescribed_thenSetCookieRedacted() throws {
        let response = HTTPResponse(statusCode: 200, headers: ["Set-Cookie": "session=S3CRET", "Content-Type": "text/plain"],
                                    body: Data("hi".utf8), url: URL(string: "https://x.example/a?token=S3CRET"))
        XCTAssertEqual(response.description,
                       "HTTP 200 OK https://x.example/a?token=<redacted> (2 bytes) [Content-Type: text/plain, Set-Cookie: <redacted>]")
        XCTAssertEqual(response.header("set-cookie"), "session=S3CRET")
        XCTAssertEqual(response.header("CONTENT-TYPE"), "text/plain")
        XCTAssertNil(response.header("Missing"))
    }
}
