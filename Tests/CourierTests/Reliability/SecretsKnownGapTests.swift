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
}
