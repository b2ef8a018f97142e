import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Secrets rules that were open gaps once (a server message quoting the sent credential, an
/// Authorization echoed under another header name); the assertions guard the fixes.
final class SecretsKnownGapTests: XCTestCase {
    private let token = "gap-tok-51e0aa"

    func test_givenAnErrorMessageQuotingTheSentToken_whenTheErrorIsDescribed_thenTheTokenIsNotShown() throws {
        let auth = TokenAuthenticator(token: token) { _ in Promise(error: URLError(.userAuthenticationRequired)) }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        let client = NetworkClient.stubbing()
            .respond { request in
                let sent = request.value(forHTTPHeaderField: "Authorization") ?? ""
                return .json(#"{"message":"credential '\#(sent)' is not allowed here"}"#, status: 403)
            }
            .makeClient(configuration: configuration)
        let error = try XCTUnwrap(networkError(settle(client.request(StubJSONEndpoint(path: "admin")))))
        XCTAssertEqual(error.statusCode, 403)
        let texts = [error.description, String(reflecting: error), error.localizedDescription]
        XCTAssertEqual(texts.filter { $0.contains(token) }, [])
    }

    func test_givenAResponseHeaderEchoingAuthorizationUnderAnotherName_whenDescribed_thenItIsRedacted() throws {
        // API Gateway returns the caller's Authorization header as x-amzn-Remapped-Authorization.
        let response = HTTPResponse(statusCode: 502, headers: ["x-amzn-Remapped-Authorization": "Bearer " + token])
        let error = try XCTUnwrap(NetworkError.classify(response, parser: ServerMetadata.parse))
        let texts = [String(describing: response), String(describing: error)]
        XCTAssertEqual(texts.filter { $0.contains(token) }, [])
    }

    private func dumped(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    /// `dump` walks stored properties, not `description`: errors and metadata need mirrors that
    /// redact as their descriptions do.
    func test_givenAnErrorWithAnEchoingBodyOrAFailingURL_whenDumped_thenNoSecretAppears() throws {
        let body: JSON = ["message": "bad token", "access_token": .string(token)]
        let response = HTTPResponse(statusCode: 401, body: Data(#"{"access_token":"\#(token)"}"#.utf8))
        let clientError = NetworkError.clientError(
            statusCode: 401, metadata: ServerMetadata(status: "401", message: "bad token", body: body), response: response)
        let failingURL = try XCTUnwrap(URL(string: "https://api.example.com/me?token=\(token)"))
        let transport = NetworkError.transport(
            underlying: URLError(.timedOut, userInfo: [NSURLErrorFailingURLErrorKey: failingURL]))
        for error in [clientError, transport] {
            let text = dumped(error)
            XCTAssertFalse(text.contains(token), text)
        }
        XCTAssertFalse(dumped(ServerMetadata(status: "401", message: nil, body: body)).contains(token))
    }

    /// A URL in a header value that is not a credential header (a pre-signed `Location`, an
    /// OAuth redirect) has its query parameters redacted like a request URL's.
    func test_givenAURLWithACredentialQueryInAResponseHeader_whenDescribedOrDumped_thenTheParameterIsRedacted() {
        let response = HTTPResponse(statusCode: 302, headers: [
            "Location": "https://files.example.com/a.png?X-Amz-Signature=\(token)&size=2",
            "Link": "</cb?code=\(token)&state=1>; rel=\"next\"",
            "Content-Location": "/app#/callback?access_token=\(token)",
        ])
        for text in [String(describing: response), dumped(response)] {
            XCTAssertFalse(text.contains(token), text)
            XCTAssertTrue(text.contains("size=2"), text)
        }
    }

    /// Commas, brackets and semicolons are legal inside a query, and a combining mark after a
    /// separator merges with it into one `Character`: none of them may end the redaction early.
    func test_givenQueriesWithCommasBracketsSemicolonsOrCombiningMarks_whenRedacted_thenEveryCredentialIsHidden() {
        let values = [
            "https://graph.example.com/me?fields=id,name&access_token=\(token)",
            "https://api.example.com/items?filter[x]=1&api_key=\(token)",
            "https://api.example.com/a?a=1;token=\(token)",
            "https://app.example.com/cb?scope=a,b&code=\(token)",
            "https://app.example.com/cb?state=1&\u{301}code=\(token)",
            "Error: (https://auth.example.com/t?x=(1)&refresh_token=\(token)), retry later",
        ]
        for value in values {
            let redacted = Redaction.redactQueries(in: value)
            XCTAssertFalse(redacted.contains(token), redacted)
            XCTAssertTrue(redacted.contains(Redaction.placeholder), redacted)
        }
        XCTAssertEqual(Redaction.redactQueries(in: "text/html; charset=utf-8"), "text/html; charset=utf-8")
        XCTAssertEqual(Redaction.redactQueries(in: "https://a.example.com/p?page=2,3&sort=name"),
                       "https://a.example.com/p?page=2,3&sort=name")
    }

    /// A misconfigured base URL (no scheme) is quoted in the error, with its query redacted.
    func test_givenABaseURLWithoutASchemeCarryingAKey_whenARequestIsBuilt_thenTheReasonHidesTheKey() throws {
        let base = try XCTUnwrap(URL(string: "api.example.com/v1?api_key=\(token)"))
        XCTAssertThrowsError(try NetworkClient(baseURL: base).makeURLRequest(for: StubJSONEndpoint(path: "me"))) { error in
            guard case .invalidRequest(let reason) = error as? NetworkError else { return XCTFail("\(error)") }
            XCTAssertFalse(reason.contains(self.token), reason)
            XCTAssertTrue(reason.contains("api_key="), reason)
        }
    }

    /// A refresh closure that fails with another library's error quoting the refresh URL.
    func test_givenARefreshFailureQuotingItsURL_whenDescribed_thenTheQueryIsRedacted() {
        struct FoundationLikeError: Error, CustomStringConvertible {
            let url: String
            var description: String { "Error Domain=NSURLErrorDomain Code=-1001 NSErrorFailingURLStringKey=\(url)" }
        }
        let error = NetworkError.authenticationFailed(
            underlying: FoundationLikeError(url: "https://auth.example.com/token?refresh_token=\(token)&grant=r"))
        for text in [error.description, dumped(error)] {
            XCTAssertFalse(text.contains(token), text)
            XCTAssertTrue(text.contains("grant=r"), text)
        }
    }

    /// Stubs are often seeded with recorded traffic: printing one shows no credential header.
    func test_givenAStubWithCredentialHeaders_whenPrintedOrDumped_thenTheyAreRedacted() {
        let stub = StubResponse(status: 200, headers: ["Set-Cookie": "session=\(token)", "Location": "/cb?code=\(token)"],
                                body: Data(token.utf8))
        for text in [String(describing: stub), dumped(stub)] {
            XCTAssertFalse(text.contains(token), text)
            XCTAssertTrue(text.contains("status: 200"), text)
        }
    }
}
