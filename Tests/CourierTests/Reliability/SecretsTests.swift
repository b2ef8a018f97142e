import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 7, secrets: a full stubbed scenario (token auth with a refresh, `LoggingPlugin`, error
/// bodies that echo the credentials) captures every log line and the descriptions of everything
/// a caller can reach, and none of them contains a credential.
final class SecretsTests: XCTestCase {
    /// Every credential of the scenario; none may appear in any captured text.
    private enum Secret {
        static let staleToken = "stale-tok-7f3a91"
        static let freshToken = "fresh-tok-c04d22"
        static let cookie = "sid=cookie-9b8e77"
        static let proxy = "Basic proxy-5e6f10"
        static let setCookie = "sid=set-cookie-a1b2c3; Path=/; HttpOnly"
        static let apiKey = "apikey-33d9e0"
        static let queryToken = "query-tok-81c6aa"
        static let all = [staleToken, freshToken, cookie, proxy, setCookie, apiKey, queryToken,
                          "cookie-9b8e77", "proxy-5e6f10", "set-cookie-a1b2c3"]
    }

    /// JSON that echoes the request's credentials the way debugging servers and gateways do:
    /// under the header names, and as token members.
    private static func echoBody(_ request: URLRequest, status: String? = nil) -> String {
        let headers = request.allHTTPHeaderFields ?? [:]
        let echoed = headers.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ",")
        let bearer = request.value(forHTTPHeaderField: "Authorization") ?? ""
        let token = bearer.hasPrefix("Bearer ") ? String(bearer.dropFirst(7)) : bearer
        let metadata = status.map { #""metadata":{"status":"\#($0)"},"# } ?? ""
        return #"{\#(metadata)"headers":{\#(echoed)},"token":"\#(token)","access_token":"\#(token)","# +
            #""session":{"refresh_token":"\#(token)","api_key":"\#(Secret.apiKey)"}}"#
    }

    /// The stub server: 401 unless the fresh token is presented; then each path answers
    /// differently, most of them with a body that echoes the credentials.
    private static func respond(_ request: URLRequest) -> StubResponse {
        let path = request.url?.path ?? ""
        guard request.value(forHTTPHeaderField: "Authorization") == "Bearer \(Secret.freshToken)" else {
            return .json(echoBody(request, status: "401"), status: 401)
        }
        var response: StubResponse
        switch path {
        case "/me": response = .json(echoBody(request))
        case "/forbidden": response = .json(echoBody(request, status: "FORBIDDEN"), status: 403)
        case "/broken": response = .json(echoBody(request), status: 500)
        case "/odd": response = .json(echoBody(request), status: 302)
        case "/undecodable": response = .json(#"{"token":"\#(Secret.freshToken)","#)
        case "/offline":
            return .failure(URLError(.notConnectedToInternet, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any]))
        default: response = .json("{}", status: 404)
        }
        response.headers["Set-Cookie"] = Secret.setCookie
        response.headers["X-Auth-Token"] = Secret.freshToken
        return response
    }

    /// A typed response whose decoding fails on purpose.
    private struct Profile: Decodable, Sendable { let name: String }

    private struct SecretEndpoint<Response: Decodable & Sendable>: Endpoint {
        var path: String
        var query: [URLQueryItem] = [URLQueryItem(name: "access_token", value: Secret.queryToken)]
        var headers: [String: String] = ["X-Api-Key": Secret.apiKey]
    }

    func test_givenAFullTokenScenario_whenEverythingIsLoggedAndDescribed_thenNoCredentialAppears() throws {
        let sink = TextSink()
        let probe = DescribingPlugin(sink: sink)
        let auth = TokenAuthenticator(token: Secret.staleToken) { _ in
            after(seconds: 0.01).map { Secret.freshToken }
        }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.defaultHeaders["Cookie"] = Secret.cookie
        configuration.defaultHeaders["Proxy-Authorization"] = Secret.proxy
        configuration.plugins = [LoggingPlugin(options: .verbose) { sink.append($0) }, probe]
        let client = NetworkClient.stubbing().respond(Self.respond).makeClient(configuration: configuration)

        // One success (after the refresh), then every failure class the pipeline produces.
        let me = settle(client.response(for: SecretEndpoint<JSON>(path: "me")), within: 10)
        XCTAssertEqual(try me?.get().statusCode, 200, "the refresh flow did not succeed")
        XCTAssertEqual(auth.token, Secret.freshToken)
        sink.exposeResult(me)
        sink.exposeResult(settle(client.request(SecretEndpoint<JSON>(path: "me")), within: 10))
        for path in ["forbidden", "broken", "odd", "offline", "missing"] {
            sink.exposeResult(settle(client.request(SecretEndpoint<JSON>(path: path)), within: 10))
        }
        sink.exposeResult(settle(client.request(SecretEndpoint<Profile>(path: "undecodable")), within: 10))
        sink.exposeResult(settle(client.request(SecretEndpoint<Profile>(path: "me")), within: 10))
        let completion = expectation(description: "completion style")
        let task = client.request(SecretEndpoint<JSON>(path: "forbidden")) { result in
            sink.exposeResult(result.mapError { $0 as any Error })
            completion.fulfill()
        }
        wait(for: [completion], timeout: 10)
        sink.expose(task, "request task")
        sink.expose(auth, "authenticator")
        sink.expose(client, "client")

        // A refresh that fails: the error the caller sees, and the lines logged on the way.
        let refusing = TokenAuthenticator(token: Secret.staleToken) { _ in
            Promise(error: URLError(.userAuthenticationRequired))
        }
        var refusingConfiguration = configuration
        refusingConfiguration.authenticator = refusing
        let refusingClient = NetworkClient.stubbing().respond(Self.respond).makeClient(configuration: refusingConfiguration)
        sink.exposeResult(settle(refusingClient.request(SecretEndpoint<JSON>(path: "me")), within: 10))
        sink.expose(refusing, "refusing authenticator")

        XCTAssertGreaterThan(sink.lines.count, 40, "the scenario captured too little to mean anything")
        XCTAssertTrue(sink.lines.contains { $0.contains("<redacted>") }, "nothing was redacted: wrong scenario?")
        XCTAssertTrue(sink.lines.contains { $0.contains(#""access_token":"<redacted>""#) },
                      "no echoing error body was described: wrong scenario?")
        XCTAssertGreaterThan(probe.requestCount, 10)
        for secret in Secret.all {
            let leaks = sink.lines.filter { $0.contains(secret) }
            XCTAssertEqual(leaks, [], "\(secret) leaked")
        }
        XCTAssertFalse(sink.foundationDescriptions.isEmpty)
        for secret in Secret.all where secret != Secret.queryToken {
            let leaks = sink.foundationDescriptions.filter { $0.contains(secret) }
            XCTAssertEqual(leaks, [], "\(secret) leaked through a Foundation description")
        }
    }

    func test_givenABareTokenInXAuthToken_whenARefreshRunsWithLogging_thenNeitherTokenIsLoggedOrDescribed() {
        let sink = TextSink()
        let auth = TokenAuthenticator(token: Secret.staleToken, headerField: "X-Auth-Token", scheme: nil) { _ in
            .value(Secret.freshToken)
        }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.plugins = [LoggingPlugin { sink.append($0) }, DescribingPlugin(sink: sink)]
        let client = NetworkClient.stubbing()
            .respond { request in
                let token = request.value(forHTTPHeaderField: "X-Auth-Token") ?? "none"
                let body = #"{"error":{"code":"AUTH","message":"denied"},"x-auth-token":"\#(token)"}"#
                return token == Secret.freshToken ? .json(body, status: 409) : .json(body, status: 401)
            }
            .makeClient(configuration: configuration)
        let result = settle(client.request(StubJSONEndpoint(path: "session")), within: 10)
        XCTAssertEqual(networkError(result).map(errorKind), "clientError(409)", "the refreshed request should reach the 409")
        sink.exposeResult(result)
        sink.expose(auth, "authenticator")
        XCTAssertEqual(auth.token, Secret.freshToken)
        XCTAssertTrue(sink.lines.contains { $0.contains("X-Auth-Token: <redacted>") }, "the header was never logged")
        for secret in [Secret.staleToken, Secret.freshToken] {
            XCTAssertEqual(sink.lines.filter { $0.contains(secret) }, [], "\(secret) leaked")
            XCTAssertEqual(sink.foundationDescriptions.filter { $0.contains(secret) }, [], "\(secret) leaked")
        }
    }

    private static let plainToken = "plain-tok-51e0aa"

    func test_givenAnErrorBodyEchoingCredentials_whenServerMetadataIsDescribed_thenTheyAreRedacted() {
        let body: JSON = ["metadata": ["status": "401"], "access_token": .string(Self.plainToken),
                          "headers": ["Authorization": .string("Bearer " + Self.plainToken)]]
        let metadata = ServerMetadata(status: "401", message: nil, body: body)
        let texts = [String(describing: metadata), String(reflecting: metadata), "\(metadata)"]
        XCTAssertEqual(texts.filter { $0.contains(Self.plainToken) }, [])
    }

    func test_givenATokenAuthenticatorWithACustomHeaderName_whenLogged_thenTheTokenIsRedacted() throws {
        let lines = TextSink()
        let auth = TokenAuthenticator(token: Self.plainToken, headerField: "X-Session", scheme: nil) { _ in .value("next") }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        configuration.plugins = [LoggingPlugin { lines.append($0) }]
        let client = NetworkClient.stubbing().body(json: "{}").makeClient(configuration: configuration)
        XCTAssertNotNil(try settle(client.request(StubJSONEndpoint(path: "me")))?.get())
        XCTAssertFalse(lines.lines.isEmpty)
        XCTAssertEqual(lines.lines.filter { $0.contains(Self.plainToken) }, [])
    }

    func test_givenCredentialsInResponseHeaders_whenTheResponseIsDescribed_thenTheyAreRedacted() {
        let response = HTTPResponse(statusCode: 401, headers: [
            "Set-Cookie": Secret.setCookie, "WWW-Authenticate": "Bearer realm=x", "X-Auth-Token": Secret.freshToken,
            "Authorization": "Bearer " + Secret.freshToken, "Proxy-Authorization": Secret.proxy,
        ], body: Data(#"{"access_token":"\#(Secret.freshToken)"}"#.utf8),
            url: URL(string: "https://api.example.com/me?token=\(Secret.queryToken)"))
        let error = NetworkError.classify(response, parser: ServerMetadata.parse)
        var texts = [String(describing: response), String(reflecting: response), "\(response)"]
        if let error {
            texts += [String(describing: error), String(reflecting: error), error.localizedDescription]
        } else {
            XCTFail("a 401 must classify as an error")
        }
        for secret in Secret.all {
            XCTAssertEqual(texts.filter { $0.contains(secret) }, [], "\(secret) leaked")
        }
    }
}
