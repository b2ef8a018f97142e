import Courier
import Foundation
import Promises
import XCTest

/// Token refresh against a real server: `/bearer/<realm>` accepts only the realm's current token,
/// `POST /auth/token/<realm>` rotates it. Each test uses its own realm.
final class AuthenticationIntegrationTests: IntegrationTestCase {
    private struct TokenReply: Decodable, Sendable { let token: String }

    /// An endpoint that never carries credentials, for the refresh call itself.
    private func rotateEndpoint(_ realm: String) -> LiveEndpoint<TokenReply> {
        LiveEndpoint<TokenReply>(path: "auth/token/\(realm)", method: .post, requiresAuthentication: false)
    }

    private func newRealm(_ function: String = #function) throws -> String {
        let realm = "\(function.prefix(while: { $0 != "(" }))-\(UUID().uuidString)"
        _ = try server.fetch("POST", "/auth/set/\(realm)?token=valid-0")
        return realm
    }

    private func rotations(_ realm: String) throws -> Int? {
        try server.fetch("/auth/stats/\(realm)").jsonObject["rotations"] as? Int
    }

    /// A client whose authenticator starts with `token` and refreshes by rotating the realm's token.
    private func makeAuthenticatedClient(realm: String, token: String?, headerField: String = "Authorization",
                                         scheme: String? = "Bearer") throws -> NetworkClient {
        let refresher = try makeClient()
        let endpoint = rotateEndpoint(realm)
        let authenticator = TokenAuthenticator(token: token, headerField: headerField, scheme: scheme) { _ in
            refresher.request(endpoint).map { $0.token }
        }
        return try makeClient { $0.authenticator = authenticator }
    }

    func test_givenTheValidToken_thenTheRequestIsAuthenticatedWithoutRefreshing() throws {
        let realm = try newRealm()
        let client = try makeAuthenticatedClient(realm: realm, token: "valid-0")
        let json = try value(of: client.request(LiveJSONEndpoint(path: "bearer/\(realm)")))
        XCTAssertEqual(json["authenticated"].bool, true)
        XCTAssertEqual(try rotations(realm), 0)
    }

    func test_givenAnExpiredToken_whenThe401Arrives_thenItRefreshesOnceAndReplays() throws {
        let realm = try newRealm()
        let client = try makeAuthenticatedClient(realm: realm, token: "expired")
        let json = try value(of: client.request(LiveJSONEndpoint(path: "bearer/\(realm)")))
        XCTAssertEqual(json["authenticated"].bool, true)
        XCTAssertEqual(try rotations(realm), 1)
        XCTAssertEqual(json["token"].string.map { $0.hasPrefix("token-1-") }, true)
    }

    func test_givenA401ThatAlsoChallengesBasic_thenItRefreshesAndReplaysInsteadOfWaitingForTheTimeout() throws {
        // FoundationNetworking on its own never finishes a 401 carrying `WWW-Authenticate: Basic`.
        let realm = try newRealm()
        let client = try makeAuthenticatedClient(realm: realm, token: "expired")
        let endpoint = LiveJSONEndpoint(path: "bearer/\(realm)", query: [URLQueryItem(name: "challenge", value: "basic")],
                                        timeout: 30)
        let json = try value(of: client.request(endpoint), within: 15)
        XCTAssertEqual(json["authenticated"].bool, true)
        XCTAssertEqual(try rotations(realm), 1)
    }

    func test_givenTenConcurrentRequestsWithAnExpiredToken_thenOneRefreshServesThemAll() throws {
        let realm = try newRealm()
        let client = try makeAuthenticatedClient(realm: realm, token: "expired")
        let promises = (0..<10).map { _ in client.request(LiveJSONEndpoint(path: "bearer/\(realm)")) }
        let replies = try value(of: when(fulfilled: promises), within: 20)
        XCTAssertEqual(replies.map { $0["authenticated"].bool }, Array(repeating: true, count: 10))
        XCTAssertEqual(try rotations(realm), 1, "the refresh must be single-flight")
    }

    func test_givenABareTokenHeader_thenTheXAuthRouteAcceptsIt() throws {
        let realm = try newRealm()
        let client = try makeAuthenticatedClient(realm: realm, token: "valid-0", headerField: "x-auth-token",
                                                 scheme: nil)
        let json = try value(of: client.request(LiveJSONEndpoint(path: "x-auth/\(realm)")))
        XCTAssertEqual(json["authenticated"].bool, true)
    }

    func test_givenAnEndpointWithoutAuthentication_thenNoCredentialIsSent() throws {
        let realm = try newRealm()
        let client = try makeAuthenticatedClient(realm: realm, token: "valid-0")
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", requiresAuthentication: false)
        XCTAssertNil(try value(of: client.request(endpoint)).header("Authorization"))
        let authenticated = try value(of: client.request(LiveEndpoint<ServerEcho>(path: "anything")))
        XCTAssertEqual(authenticated.header("Authorization"), "Bearer valid-0")
    }

    func test_givenARefreshThatFails_thenAuthenticationFailed() throws {
        let realm = try newRealm()
        let authenticator = TokenAuthenticator(token: "expired") { _ in
            Promise(error: URLError(.userAuthenticationRequired))
        }
        let client = try makeClient { $0.authenticator = authenticator }
        let error = failure(of: client.request(LiveJSONEndpoint(path: "bearer/\(realm)")))
        XCTAssertEqual(error.map(errorKind), "authenticationFailed")
    }

    func test_givenAReplayThatIsStillRejected_thenTheRequestFailsWithoutLooping() throws {
        let realm = try newRealm()
        let authenticator = TokenAuthenticator(token: "expired") { _ in Promise.value("still-wrong") }
        let plugin = AttemptRecorder()
        let client = try makeClient {
            $0.authenticator = authenticator
            $0.plugins = [plugin]
        }
        let error = failure(of: client.request(LiveJSONEndpoint(path: "bearer/\(realm)")))
        XCTAssertEqual(error.map(errorKind), "clientError(401)", "the server's answer to the replay stands")
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "token expired")
        XCTAssertEqual(plugin.sent.map { $0.value(forHTTPHeaderField: "Authorization") },
                       ["Bearer expired", "Bearer still-wrong"], "one attempt and one replay, no loop")
    }

    func test_givenARefreshInProgress_whenAnotherRequestIsIssued_thenItIsHeldAndLeavesWithTheNewToken() throws {
        let realm = try newRealm()
        let refresher = try makeClient()
        let rotate = rotateEndpoint(realm)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let authenticator = TokenAuthenticator(token: "expired") { _ in
            started.signal()
            return Promise<Void> { seal in
                DispatchQueue.global().async {
                    _ = release.wait(timeout: .now() + 10)
                    seal.fulfill(())
                }
            }.then { refresher.request(rotate).map { $0.token } }
        }
        let plugin = AttemptRecorder()
        let client = try makeClient {
            $0.authenticator = authenticator
            $0.plugins = [plugin]
        }
        let first = client.request(LiveJSONEndpoint(path: "bearer/\(realm)"))
        XCTAssertEqual(started.wait(timeout: .now() + 5), .success, "the 401 never started a refresh")
        let second = client.request(LiveJSONEndpoint(path: "bearer/\(realm)"))
        release.signal()

        let replies = try value(of: when(fulfilled: [first, second]), within: 10)
        let newToken = try XCTUnwrap(replies[0]["token"].string)
        XCTAssertEqual(replies.map { $0["token"].string }, [newToken, newToken])
        XCTAssertEqual(try rotations(realm), 1)
        let sentTokens = plugin.sent.compactMap { $0.value(forHTTPHeaderField: "Authorization") }
        XCTAssertEqual(sentTokens.filter { $0 == "Bearer expired" }.count, 1,
                       "only the first attempt may carry the expired token: \(sentTokens)")
    }
}
