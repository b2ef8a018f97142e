import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Secrets rules that were once open gaps (now fixed: ServerMetadata redacts its description, and a
/// TokenAuthenticator declares its header sensitive); the assertions guard the fixes.
final class SecretsKnownGapTests: XCTestCase {
    private let token = "gap-tok-51e0aa"

    func test_givenAnErrorBodyEchoingCredentials_whenServerMetadataIsDescribed_thenTheyAreRedacted() throws {
        let body: JSON = ["metadata": ["status": "401"], "access_token": .string(token),
                          "headers": ["Authorization": .string("Bearer " + token)]]
        let metadata = ServerMetadata(status: "401", message: nil, body: body)
        let texts = [String(describing: metadata), String(reflecting: metadata), "\(metadata)"]
        XCTAssertEqual(texts.filter { $0.contains(token) }, [])
    }

    func test_givenATokenAuthenticatorWithACustomHeaderName_whenLogged_thenTheTokenIsRedacted() throws {
        let lines = TextSink()
        let auth = TokenAuthenticator(token: token, headerField: "X-Session", scheme: nil) { _ in .value("next") }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.plugins = [LoggingPlugin { lines.append($0) }]
        let client = NetworkClient.stubbing().body(json: "{}").makeClient(configuration: configuration)
        XCTAssertNotNil(try settle(client.request(StubJSONEndpoint(path: "me")))?.get())
        XCTAssertFalse(lines.lines.isEmpty)
        XCTAssertEqual(lines.lines.filter { $0.contains(token) }, [])
    }
}
