import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSessionTransport against the local test server (127.0.0.1 only), plus its redirect rule.
final class URLSessionTransportTests: XCTestCase {
    struct Call: Endpoint {
        var path: String
        var method: HTTPMethod = .get
        var headers: [String: String] = [:]
        var body: RequestBody = .none
        var query: [URLQueryItem] = []
        var timeout: TimeInterval?
    }

    private func makeClient(
        maximumResponseSize: Int = 50 * 1024 * 1024, base: URL? = nil, plugins: [any RequestPlugin] = []
    ) throws -> (NetworkClient, TestServer) {
        let server = try TestServer.shared
        var configuration = NetworkClient.Configuration(baseURL: base ?? server.baseURL)
        configuration.maximumResponseSize = maximumResponseSize
        configuration.plugins = plugins
        configuration.timeout = 10
        return (NetworkClient(configuration: configuration), server)
    }

    private func failure<T>(_ promise: Promise<T>) -> NetworkError? {
        do {
            _ = try promise.wait(within: 10)
            return nil
        } catch {
            return error as? NetworkError
        }
    }

    func test_givenPostWithJSONBody_whenSent_thenServerEchoesMethodHeadersAndBody() throws {
        let (client, _) = try makeClient()
        let echo = try client.request(Call(
            path: "anything/echo", method: .post, headers: ["X-Trace": "abc"], body: .json(["n": 1]),
            query: [URLQueryItem(name: "q", value: "a+b")])).wait(within: 10)
        XCTAssertEqual(echo["method"].string, "POST")
        XCTAssertEqual(echo["json"]["n"].int, 1)
        XCTAssertEqual(echo["headers"]["X-Trace"].string, "abc")
        XCTAssertEqual(echo["query"]["q"].string ?? echo["query"]["q"][0].string, "a+b", "+ must arrive as a plus sign")
    }

    func test_givenErrorStatus_whenSent_thenClassifiedWithServerMetadata() throws {
        let (client, _) = try makeClient()
        guard case .serverError(503, let metadata, _)? = failure(client.request(Call(path: "status/503"))) else {
            return XCTFail("expected serverError(503)")
        }
        XCTAssertEqual(metadata?.status, "503")
        XCTAssertEqual(metadata?.message, "service unavailable")
    }

    func test_givenSameHostRedirect_whenFollowed_thenCredentialsAreKept() throws {
        let (client, _) = try makeClient()
        let echo = try client.request(Call(
            path: "redirect-to", headers: ["Authorization": "Bearer keep", "X-Custom": "1"],
            query: [URLQueryItem(name: "url", value: "/headers")])).wait(within: 10)
        XCTAssertEqual(echo["headers"]["Authorization"].string, "Bearer keep")
        XCTAssertEqual(echo["headers"]["X-Custom"].string, "1")
    }

    /// The status and `Location` of a redirect that `transport` delivers instead of following.
    private func deliveredRedirect(_ transport: URLSessionTransport, to target: String) throws -> (Int?, String?) {
        let client = NetworkClient(configuration: .init(baseURL: try TestServer.shared.baseURL), transport: transport)
        let error = failure(client.request(Call(path: "redirect-to", query: [URLQueryItem(name: "url", value: target)])))
        guard case .unexpectedStatus(let status, let response)? = error else {
            XCTFail("expected the redirect itself, got \(String(describing: error))")
            return (nil, nil)
        }
        return (status, response.header("Location"))
    }

    func test_givenTheNeverPolicy_whenRedirected_thenThe3xxIsDeliveredWithItsLocation() throws {
        let (status, location) = try deliveredRedirect(URLSessionTransport(redirects: .never), to: "/headers")
        XCTAssertEqual(status, 302)
        XCTAssertEqual(location, "/headers")
    }

    func test_givenTheSameOriginPolicy_whenRedirectedElsewhere_thenNotFollowedButSameHostIs() throws {
        let server = try TestServer.shared
        let transport = URLSessionTransport(redirects: .sameOrigin)
        let elsewhere = server.localhostURL("/headers").absoluteString   // localhost is another host
        let (status, location) = try deliveredRedirect(transport, to: elsewhere)
        XCTAssertEqual(status, 302)
        XCTAssertEqual(location, elsewhere)
        let client = NetworkClient(configuration: .init(baseURL: server.baseURL), transport: transport)
        let echo = try client.request(Call(path: "redirect-to", query: [URLQueryItem(name: "url", value: "/headers")]))
            .wait(within: 10)
        XCTAssertFalse(echo["headers"].isNull, "a same-origin redirect was not followed")
    }

    func test_givenRedirectToAnotherHost_whenFollowed_thenSensitiveHeadersAreDropped() throws {
        let (client, server) = try makeClient()
        let echo = try client.request(Call(
            path: "redirect-to",
            headers: ["Authorization": "Bearer secret", "Cookie": "s=1", "X-Api-Key": "k", "X-Custom": "1"],
            query: [URLQueryItem(name: "url", value: server.localhostURL("/headers").absoluteString)])).wait(within: 10)
        let headers = echo["headers"]
        XCTAssertEqual(headers["X-Custom"].string, "1")
        for name in ["Authorization", "Cookie", "X-Api-Key"] {
            XCTAssertTrue(headers[name].isNull, "\(name) must not follow a redirect to another host")
        }
    }

    func test_givenBodyLargerThanTheLimit_whenReceived_thenInvalidRequestNamingTheLimit() throws {
        let (client, _) = try makeClient(maximumResponseSize: 1_000)
        guard case .invalidRequest(let reason)? = failure(client.response(for: Call(path: "bytes/5000"))) else {
            return XCTFail("expected invalidRequest")
        }
        XCTAssertEqual(reason, "response larger than 1000 bytes")
        XCTAssertEqual(try client.response(for: Call(path: "bytes/1000")).wait(within: 10).body.count, 1_000)
    }

    func test_givenStallingServer_whenTimeoutPasses_thenTimedOut() throws {
        let (client, _) = try makeClient()
        let started = Date()
        XCTAssertEqual(failure(client.request(Call(path: "stall", timeout: 0.5)))?.shortName, "timedOut")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func test_givenStallingServer_whenCancelled_thenCancelledPromptly() throws {
        let handedToURLSession = DispatchSemaphore(value: 0)
        let (client, _) = try makeClient(plugins: [SignalsSend(semaphore: handedToURLSession)])
        let finished = expectation(description: "completion")
        let task = client.request(Call(path: "stall")) { result in
            if case .failure(.cancelled) = result {} else { XCTFail("got \(result)") }
            finished.fulfill()
        }
        XCTAssertEqual(handedToURLSession.wait(timeout: .now() + 5), .success, "the request was never sent")
        task.cancel()
        // The client's timeout is 10 s and the server never answers: only the cancel ends it in time.
        wait(for: [finished], timeout: 5)
    }

    func test_givenNothingListening_whenSent_thenTransportError() throws {
        // A port that was just listening and is closed now: the connection is refused at once.
        let unused = try TestServer.start()
        let base = unused.baseURL
        unused.stop()
        let (client, _) = try makeClient(base: base)
        let error = failure(client.request(Call(path: "x", timeout: 5)))
        XCTAssertEqual(error?.shortName, "transport", "got \(String(describing: error))")
    }

    // MARK: Redirect rule

    private func request(_ url: String, headers: [String: String]) throws -> URLRequest {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    func test_givenHTTPSToHTTPRedirect_whenDecided_thenRefused() throws {
        let next = try request("http://api.example.com/x", headers: [:])
        guard case .refuse(.invalidRequest) = RedirectRule.decide(from: URL(string: "https://api.example.com/a"), to: next) else {
            return XCTFail("an https to http redirect must be refused")
        }
    }

    func test_givenCrossHostRedirect_whenDecided_thenEverySensitiveHeaderIsStripped() throws {
        let next = try request("https://other.example.com/x", headers: [
            "Authorization": "a", "Proxy-Authorization": "p", "Cookie": "c", "X-Auth-Token": "t",
            "X-Client-Secret": "s", "Accept": "application/json",
        ])
        guard case .follow(let followed) = RedirectRule.decide(from: URL(string: "https://api.example.com/a"), to: next) else {
            return XCTFail("expected the redirect to be followed")
        }
        XCTAssertEqual(followed.allHTTPHeaderFields ?? [:], ["Accept": "application/json"])
    }

    func test_givenAnHTTPSHopInTheMiddleOfAChain_whenItRedirectsToHTTP_thenRefused() throws {
        let next = try request("http://c.example.com/x", headers: [:])
        let decision = RedirectRule.decide(
            from: URL(string: "http://a.example.com/start"), hop: URL(string: "https://b.example.com/middle"), to: next)
        guard case .refuse(.invalidRequest) = decision else {
            return XCTFail("the https → http hop must be refused even though the chain started on http")
        }
    }

    func test_givenARedirectToAnotherPortOrSchemeOfTheSameHost_whenDecided_thenCredentialsAreStripped() throws {
        for target in ["https://api.example.com:8443/x", "http://api.example.com:8080/x"] {
            let next = try request(target, headers: ["Authorization": "a", "Accept": "application/json"])
            let from = URL(string: target.hasPrefix("https") ? "https://api.example.com/a" : "http://api.example.com/a")
            guard case .follow(let followed) = RedirectRule.decide(from: from, to: next) else {
                return XCTFail("expected the redirect to \(target) to be followed")
            }
            XCTAssertNil(followed.value(forHTTPHeaderField: "Authorization"), target)
            XCTAssertEqual(followed.value(forHTTPHeaderField: "Accept"), "application/json")
        }
        let upgrade = try request("https://api.example.com/x", headers: ["Authorization": "a"])
        guard case .follow(let upgraded) = RedirectRule.decide(from: URL(string: "http://api.example.com/a"), to: upgrade) else {
            return XCTFail("an http → https redirect is followed")
        }
        XCTAssertNil(upgraded.value(forHTTPHeaderField: "Authorization"), "another scheme is another origin")
    }

    func test_givenTheDefaultPortWrittenOut_whenDecided_thenItIsTheSameOrigin() throws {
        let next = try request("https://api.example.com:443/x", headers: ["Authorization": "a"])
        guard case .follow(let followed) = RedirectRule.decide(from: URL(string: "https://api.example.com/a"), to: next) else {
            return XCTFail("expected the redirect to be followed")
        }
        XCTAssertEqual(followed.value(forHTTPHeaderField: "Authorization"), "a")
        let sameOrigin = RedirectRule.decide(from: URL(string: "https://api.example.com/a"), to: next, policy: .sameOrigin)
        guard case .follow = sameOrigin else { return XCTFail(".sameOrigin must follow a redirect to the default port written out") }
    }

    func test_givenSameHostRedirectInOtherCase_whenDecided_thenHeadersAreKept() throws {
        let next = try request("https://API.example.com/x", headers: ["Authorization": "a"])
        guard case .follow(let followed) = RedirectRule.decide(from: URL(string: "https://api.example.com/a"), to: next) else {
            return XCTFail("expected the redirect to be followed")
        }
        XCTAssertEqual(followed.value(forHTTPHeaderField: "Authorization"), "a")
    }
}

extension URLSessionTransportTests {
    /// A plugin that signals `semaphore` as each attempt is handed to the transport.
    struct SignalsSend: RequestPlugin {
        let semaphore: DispatchSemaphore
        func willSend(_ request: URLRequest) { semaphore.signal() }
    }

    /// A plugin that sets a fractional timeout on the outgoing request, as a user's plugin might.
    struct FractionalTimeout: RequestPlugin {
        func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
            var request = request
            request.timeoutInterval = 0.99   // the widest fraction below one second: FoundationNetworking would fire at once
            return request
        }
    }

    func test_givenFractionalTimeoutOnTheRequest_whenAnswerComesInTime_thenItArrives() throws {
        let server = try TestServer.shared
        var configuration = NetworkClient.Configuration(baseURL: server.baseURL)
        configuration.plugins = [FractionalTimeout()]
        let client = NetworkClient(configuration: configuration)
        let echo = try client.request(Call(path: "delay/0.02", timeout: 0.99)).wait(within: 10)
        XCTAssertEqual(echo["delay"].double, 0.02)
    }
}

extension URLSessionTransportTests {
    /// A weak reference readable from any thread.
    // @unchecked: `object` is read and written only while holding `lock`.
    final class WeakBox<Object: AnyObject>: @unchecked Sendable {
        private let lock = NSLock()
        private weak var object: Object?

        init(_ object: Object) { self.object = object }

        var isAlive: Bool { lock.withLock { object != nil } }
    }

    func test_givenFinishedRequests_whenClientReleased_thenTransportAndSessionAreFreed() throws {
        let server = try TestServer.shared
        let box: WeakBox<URLSessionTransport> = try {
            let transport = URLSessionTransport()
            let client = NetworkClient(configuration: .init(baseURL: server.baseURL), transport: transport)
            _ = try client.request(Call(path: "anything")).wait(within: 10)
            return WeakBox(transport)
        }()
        // The last references leave with URLSession's callbacks on other threads: poll, bounded.
        _ = eventually { !box.isAlive }
        XCTAssertFalse(box.isAlive, "URLSessionTransport leaked")
    }
}

extension URLSessionTransportTests {
    /// A plugin that sets the outgoing request's timeout, as a user's plugin might.
    struct SetsTimeout: RequestPlugin {
        let seconds: TimeInterval
        func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
            var request = request
            request.timeoutInterval = seconds
            return request
        }
    }

    func test_givenInfiniteTimeout_whenSentOverURLSession_thenTheAnswerArrives() throws {
        let (client, server) = try makeClient()
        let echo = try client.request(Call(path: "anything/forever", timeout: .infinity)).wait(within: 10)
        XCTAssertEqual(echo["method"].string, "GET")

        var configuration = NetworkClient.Configuration(baseURL: server.baseURL)
        configuration.plugins = [SetsTimeout(seconds: .infinity)]
        let viaPlugin = try NetworkClient(configuration: configuration).request(Call(path: "anything/plugin")).wait(within: 10)
        XCTAssertEqual(viaPlugin["method"].string, "GET")
    }

    /// FoundationNetworking converts the timeout to an integer (a trap for -∞ or below Int.min) and
    /// a zero or negative one fires its timer at once; the client's deadline is the real one.
    func test_givenAPluginSetsAZeroOrNegativeTimeout_whenSentOverURLSession_thenTheAnswerArrives() throws {
        let server = try TestServer.shared
        for seconds in [0, -1, -1e300, -TimeInterval.infinity] {
            var configuration = NetworkClient.Configuration(baseURL: server.baseURL)
            configuration.plugins = [SetsTimeout(seconds: seconds)]
            let echo = try NetworkClient(configuration: configuration).request(Call(path: "delay/1.2")).wait(within: 10)
            XCTAssertEqual(echo["method"].string, "GET", "timeout \(seconds)")
        }
    }
}

extension URLSessionTransportTests {
    /// A plugin that points the request somewhere URLSession must not go.
    struct RewritesURL: RequestPlugin {
        let url: URL?
        func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
            var request = request
            request.url = url
            return request
        }
    }

    func test_givenPluginRemovesTheURLOrChangesTheScheme_whenSent_thenInvalidRequestNotACrash() throws {
        let server = try TestServer.shared
        for url in [nil, URL(string: "file:///etc/hosts"), URL(string: "ftp://127.0.0.1/x")] {
            var configuration = NetworkClient.Configuration(baseURL: server.baseURL)
            configuration.plugins = [RewritesURL(url: url)]
            let client = NetworkClient(configuration: configuration)
            XCTAssertEqual(failure(client.request(Call(path: "anything")))?.shortName, "invalidRequest", "\(String(describing: url))")
        }
    }
}

extension URLSessionTransportTests {
    func test_givenADownloadsBodyFile_whenCreated_thenOnlyItsOwnerCanReadIt() throws {
        let writer = try BodyFileWriter()
        defer { writer.discard() }

        let attributes = try FileManager.default.attributesOfItem(atPath: writer.url.path)

        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "the temporary folder is shared")
        XCTAssertThrowsError(try PrivateFile.create(writer.url), "an existing name is never written through")
    }
}
