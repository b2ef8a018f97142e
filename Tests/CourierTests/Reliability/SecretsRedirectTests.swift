import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 7, secrets on the wire: a credential the authenticator applied never follows a redirect
/// to another host, and an https page can never redirect a request to http. (Redirects of
/// credentials set as endpoint headers are covered by `RedirectIntegrationTests`.)
final class SecretsRedirectTests: IntegrationTestCase {
    private let cookie = "sid=redirect-cookie-4d1f"

    /// A client whose authenticator sends `token` as a bearer token, with a default cookie and a
    /// logging plugin writing into `sink`.
    private func client(token: String, sink: TextSink) throws -> NetworkClient {
        let auth = TokenAuthenticator(token: token) { _ in Promise(error: URLError(.userAuthenticationRequired)) }
        return try makeClient { configuration in
            configuration.authenticator = auth
            configuration.defaultHeaders["Cookie"] = cookie
            configuration.plugins = [LoggingPlugin { sink.append($0) }]
        }
    }

    func test_givenAnAuthenticatorCredential_whenRedirectedToAnotherHost_thenItIsNotSentThereNorLogged() throws {
        let token = "redirect-tok-\(UUID().uuidString.prefix(8))"
        let sink = TextSink()
        let client = try client(token: token, sink: sink)
        let target = try server.localhostURL("/anything/elsewhere").absoluteString
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", query: [.init(name: "url", value: target)])
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.path, "/anything/elsewhere")
        XCTAssertEqual(echo.header("Host")?.hasPrefix("localhost"), true, "the redirect did not reach the other host")
        XCTAssertNil(echo.header("Authorization"), "the authenticator's token followed a redirect to another host")
        XCTAssertNil(echo.header("Cookie"), "the default cookie followed a redirect to another host")
        XCTAssertFalse(sink.lines.isEmpty)
        XCTAssertEqual(sink.lines.filter { $0.contains(token) || $0.contains(cookie) }, [])
    }

    func test_givenATokenInACustomHeader_whenRedirectedToAnotherHost_thenItIsNotSentThere() throws {
        let token = "session-tok-\(UUID().uuidString.prefix(8))"
        let sink = TextSink()
        let auth = TokenAuthenticator(token: token, headerField: "X-Session", scheme: nil) { _ in
            Promise(error: URLError(.userAuthenticationRequired))
        }
        let client = try makeClient { configuration in
            configuration.authenticator = auth
            configuration.plugins = [LoggingPlugin { sink.append($0) }]
        }
        let target = try server.localhostURL("/anything/session").absoluteString
        let endpoint = LiveEndpoint<ServerEcho>(path: "redirect-to", query: [.init(name: "url", value: target)])
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.header("Host")?.hasPrefix("localhost"), true, "the redirect did not reach the other host")
        XCTAssertNil(echo.header("X-Session"), "a TokenAuthenticator's custom header followed a redirect to another host")
        XCTAssertEqual(sink.lines.filter { $0.contains(token) }, [])
    }

    func test_givenAnAuthenticatorCredential_whenRedirectedOnTheSameHost_thenItIsKept() throws {
        let token = "same-host-tok-\(UUID().uuidString.prefix(8))"
        let sink = TextSink()
        let client = try client(token: token, sink: sink)
        let echo = try value(of: client.request(LiveEndpoint<ServerEcho>(path: "redirect/2")))
        XCTAssertEqual(echo.path, "/anything")
        XCTAssertEqual(echo.header("Authorization"), "Bearer \(token)")
        XCTAssertFalse(sink.lines.isEmpty, "nothing was logged, so the redaction check below proves nothing")
        XCTAssertEqual(sink.lines.filter { $0.contains(token) }, [])
    }

    func test_givenAnHTTPSRequest_whenTheServerRedirectsToHTTP_thenTheTransportRefusesAndReportsInvalidRequest() throws {
        let delegate = URLSessionTransportDelegate()
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let original = try XCTUnwrap(URL(string: "https://127.0.0.1:9/login"))
        let task = session.dataTask(with: original)   // never resumed: nothing goes out
        let outcome = ResultSlot<HTTPResponse>()
        delegate.register(taskIdentifier: task.taskIdentifier, originalURL: original, maximumSize: 1_024) {
            outcome.put($0)
        }
        let redirect = try XCTUnwrap(HTTPURLResponse(url: original, statusCode: 302, httpVersion: "HTTP/1.1",
                                                     headerFields: ["Location": "http://127.0.0.1:9/landing?token=abc"]))
        var next = URLRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:9/landing?token=abc")))
        next.setValue("Bearer plain-text-tok", forHTTPHeaderField: "Authorization")
        let followed = ResultSlot<URLRequest?>()
        delegate.urlSession(session, task: task, willPerformHTTPRedirection: redirect, newRequest: next) {
            followed.put(.success($0))
        }
        guard case .success(let request)? = followed.take(within: 5) else { return XCTFail("no redirect decision") }
        XCTAssertNil(request, "an https to http redirect was followed")

        delegate.urlSession(session, task: task, didCompleteWithError: URLError(.cancelled))
        guard case .failure(let error)? = outcome.take(within: 5) else { return XCTFail("the task did not fail") }
        guard case .invalidRequest(let reason) = error as? NetworkError else { return XCTFail("got \(error)") }
        XCTAssertTrue(reason.contains("https to http"), reason)
        XCTAssertFalse(reason.contains("abc"), "the refused URL's token appears in the error: \(reason)")
    }
}
