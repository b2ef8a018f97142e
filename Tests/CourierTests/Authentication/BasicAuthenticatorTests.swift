import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `BasicAuthenticator`: user name and password sent up front, on the client's origin only.
final class BasicAuthenticatorTests: XCTestCase {
    private struct Elsewhere: Endpoint {
        var baseURL: URL? { URL(string: "https://cdn.example.net") }
        var path: String { "file" }
    }

    /// A stubbed client that records each request's `Authorization` header ("none" when absent).
    private func client(status: Int = 200) -> (NetworkClient, SharedValue<[String]>) {
        let seen = SharedValue<[String]>([])
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = BasicAuthenticator(username: "Aladdin", password: "open sesame")
        let client = NetworkClient.stubbing().respond { request in
            seen.withLock { $0.append(request.value(forHTTPHeaderField: "Authorization") ?? "none") }
            return .json(#"{"metadata":{"status":"401","desc":"wrong password"}}"#, status: status)
        }.makeClient(configuration: configuration)
        return (client, seen)
    }

    func test_givenAUserAndPassword_whenSent_thenTheRequestCarriesTheirBasicHeader() {
        // RFC 7617's example pair.
        XCTAssertEqual(BasicAuthenticator.authorizationValue(username: "Aladdin", password: "open sesame"),
                       "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        let (client, seen) = client()
        XCTAssertEqual(outcomeName(settle(client.request(Request<JSON>("me")))), "ok")
        XCTAssertEqual(seen.withLock { $0 }, ["Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="])
    }

    func test_givenAPublicEndpointAndAnotherOrigin_whenSent_thenNeitherCarriesTheCredential() {
        let (client, seen) = client()
        var open = Request<JSON>("status")
        open.requiresAuthentication = false
        XCTAssertEqual(outcomeName(settle(client.request(open))), "ok")
        XCTAssertEqual(outcomeName(settle(client.request(Elsewhere()))), "ok")
        XCTAssertEqual(seen.withLock { $0 }, ["none", "none"])
    }

    func test_givenA401_whenAnswered_thenTheRequestFailsWithItAtOnceWithoutARefresh() {
        let (client, seen) = client(status: 401)
        let result = settle(client.request(Request<JSON>("me")))
        guard case .failure(NetworkError.clientError(401, let metadata, _))? = result else {
            return XCTFail("\(String(describing: result))")
        }
        XCTAssertEqual(metadata?.message, "wrong password")
        XCTAssertEqual(seen.withLock { $0 }.count, 1, "sent once: nothing to refresh, no replay")
    }

    func test_givenTheAuthenticator_whenDescribedOrDumped_thenThePasswordNeverShows() {
        let authenticator = BasicAuthenticator(username: "ada", password: "hunter2")
        var dumped = ""
        dump(authenticator, to: &dumped)
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = authenticator
        var dumpedConfiguration = ""
        dump(configuration, to: &dumpedConfiguration)
        for text in ["\(authenticator)", String(reflecting: authenticator), dumped, dumpedConfiguration] {
            XCTAssertFalse(text.contains("hunter2"), text)
            XCTAssertFalse(text.contains(Data("ada:hunter2".utf8).base64EncodedString()), text)
        }
        XCTAssertEqual("\(authenticator)", "BasicAuthenticator(ada, <redacted>)")
    }
}

extension BasicAuthenticatorTests {
    func test_givenAServerThatQuotesThePassword_whenTheErrorIsDescribedAndLogged_thenThePasswordIsScrubbed() {
        let password = "correct-horse-battery"
        let lines = SharedValue<[String]>([])
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = BasicAuthenticator(username: "ada", password: password)
        configuration.plugins = [LoggingPlugin(options: .verbose) { line in lines.withLock { $0.append(line) } }]
        let client = NetworkClient.stubbing()
            .respond { _ in .json(#"{"message":"bad login ada / \#(password)"}"#, status: 401) }
            .makeClient(configuration: configuration)
        let result = settle(client.request(Request<JSON>("me")))
        guard case .failure(let error as NetworkError)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(error.statusCode, 401)
        let texts = [error.description, error.localizedDescription] + lines.withLock { $0 }
        XCTAssertTrue(texts.contains { $0.contains("bad login ada / <redacted>") }, "\(texts)")
        for text in texts { XCTAssertFalse(text.contains(password), text) }
    }
}
