import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Secrets rules that the library does not meet yet. Each test asserts the rule; while the known
/// leak is still there it skips with the reason and the suggested fix instead of failing, so the
/// suite stays green and the gap stays visible in every run. Once the source is fixed the skip no
/// longer triggers and the assertions guard the fix; then the test moves to `SecretsTests`
/// without its skip (as the ServerMetadata and custom-header tests did). See Docs/Reliability.md,
/// "Secrets".
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
        if texts.contains(where: { $0.contains(token) }) {
            throw XCTSkip("""
                KNOWN GAP: redaction works on names, not values, so a server message quoting the \
                credential that was sent shows it in NetworkError.description. Fix: the pipeline knows \
                the credential values it sent and could remove them from the message and body snippet.
                """)
        }
        XCTAssertEqual(texts.filter { $0.contains(token) }, [])
    }

    func test_givenAResponseHeaderEchoingAuthorizationUnderAnotherName_whenDescribed_thenItIsRedacted() throws {
        // API Gateway returns the caller's Authorization header as x-amzn-Remapped-Authorization.
        let response = HTTPResponse(statusCode: 502, headers: ["x-amzn-Remapped-Authorization": "Bearer " + token])
        let error = try XCTUnwrap(NetworkError.classify(response, parser: ServerMetadata.parse))
        let texts = [String(describing: response), String(describing: error)]
        if texts.contains(where: { $0.contains(token) }) {
            throw XCTSkip("""
                KNOWN GAP: only exact names and the fragments token/secret/api-key/password count as \
                sensitive, so x-amzn-Remapped-Authorization is printed. Fix: add "authorization" and \
                "cookie" to Redaction's header-name fragments.
                """)
        }
        XCTAssertEqual(texts.filter { $0.contains(token) }, [])
    }
}
