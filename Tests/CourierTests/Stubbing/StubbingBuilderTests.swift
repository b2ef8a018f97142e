import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class StubbingBuilderTests: XCTestCase {
    func test_givenNoBody_whenRequested_thenTheEndpointsSampleDataIsTheBody() {
        let client = NetworkClient.stubbing().makeClient()
        let endpoint = StubJSONEndpoint(path: "users", sampleData: Data(#"{"name":"Ada"}"#.utf8))
        let result = settle(client.request(endpoint))
        XCTAssertEqual(try result?.get()["name"].string, "Ada")
    }

    func test_givenEmptyOrBodilessAnswers_whenRequested_thenTheSampleDataIsNotTheBody() throws {
        let sample = Data(#"{"name":"Ada"}"#.utf8)
        let client = NetworkClient.stubbing()
            .stub(.get, "gone", .empty(status: 404))
            .stub(.get, "blank", .empty())
            .stub(.delete, "me", StubResponse(status: 204))
            .stub(.get, "cached", StubResponse(status: 304))
            .stub(.get, "created", StubResponse(status: 201))
            .makeClient()
        guard case .clientError(404, let metadata, let response)? =
            networkError(settle(client.request(StubJSONEndpoint(path: "gone", sampleData: Data(#"{"message":"sample"}"#.utf8)))))
        else { return XCTFail("expected clientError(404)") }
        XCTAssertNil(metadata, "no metadata parsed from the success sample")
        XCTAssertTrue(response.body.isEmpty)
        let blank = try XCTUnwrap(settle(client.request(StubEndpoint<String?>(path: "blank", sampleData: sample)))).get()
        XCTAssertNil(blank, "an empty 200 for an optional response is nil")
        for (method, path, status) in [(HTTPMethod.delete, "me", 204), (.get, "cached", 304)] {
            let result = settle(client.response(for: StubJSONEndpoint(path: path, method: method, sampleData: sample)))
            let raw = try XCTUnwrap((try? result?.get()) ?? networkError(result)?.response, "\(status)")
            XCTAssertEqual(raw.statusCode, status)
            XCTAssertTrue(raw.body.isEmpty, "\(status) has no body on the wire")
        }
        let created = try XCTUnwrap(settle(client.response(for: StubJSONEndpoint(path: "created", method: .get, sampleData: sample)))).get()
        XCTAssertEqual(created.body, sample, "other statuses still answer with the sample")
    }

    func test_givenStatusBodyAndHeaders_whenRequested_thenTheRawResponseCarriesThem() throws {
        let client = NetworkClient.stubbing().status(201).body(json: #"{"id":7}"#).headers(["X-Trace": "abc"]).makeClient()
        let response = try XCTUnwrap(settle(client.response(for: StubJSONEndpoint(path: "users")))).get()
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.header("x-trace"), "abc")
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(try JSON(data: response.body)["id"].int, 7)
    }

    func test_givenA404WithMetadata_whenRequested_thenClientErrorCarriesTheServerMetadata() {
        let client = NetworkClient.stubbing().status(404)
            .body(json: #"{"metadata":{"status":"USR404","desc":"No such user"}}"#).makeClient()
        guard case .clientError(404, let metadata?, let response)? = networkError(settle(client.request(StubJSONEndpoint(path: "u/9")))) else {
            return XCTFail("expected clientError(404) with metadata")
        }
        XCTAssertEqual(metadata.status, "USR404")
        XCTAssertEqual(metadata.message, "No such user")
        XCTAssertEqual(response.statusCode, 404)
    }

    func test_givenURLErrorFailures_whenRequested_thenTheyMapLikeTheNetworks() {
        let cases: [(URLError.Code, String)] = [
            (.notConnectedToInternet, "transport"), (.timedOut, "timedOut"), (.cancelled, "cancelled"),
        ]
        for (code, expected) in cases {
            let client = NetworkClient.stubbing().failure(URLError(code)).makeClient()
            let error = networkError(settle(client.request(StubJSONEndpoint(path: "x"))))
            XCTAssertEqual(error?.shortName, expected, "\(code)")
            if case .transport(let underlying)? = error {
                XCTAssertEqual((underlying as? URLError)?.code, code)
            }
        }
    }

    func test_givenRoutes_whenRequested_thenMostSpecificMatchWinsAndTiesGoToTheLastAdded() {
        let client = NetworkClient.stubbing()
            .body(json: #"{"from":"default"}"#)
            .stub(.get, "users/*", .json(#"{"from":"wildcard"}"#))
            .stub(.get, "/users/42", .json(#"{"from":"first exact"}"#))
            .stub(.get, "users/42", .json(#"{"from":"last exact"}"#))
            .stub(.post, "users/7", .json(#"{"from":"post"}"#))
            .stub(.get, "search?q=swift", .json(#"{"from":"query"}"#))
            .makeClient()
        func from(_ endpoint: StubJSONEndpoint) -> String? { try? settle(client.request(endpoint))?.get()["from"].string }
        XCTAssertEqual(from(StubJSONEndpoint(path: "users/42")), "last exact")
        XCTAssertEqual(from(StubJSONEndpoint(path: "users/7")), "wildcard")
        XCTAssertEqual(from(StubJSONEndpoint(path: "users/7", method: .post)), "post")
        XCTAssertEqual(from(StubJSONEndpoint(path: "orders")), "default")
        XCTAssertEqual(from(StubJSONEndpoint(path: "search", query: [URLQueryItem(name: "q", value: "swift")])), "query")
        XCTAssertEqual(from(StubJSONEndpoint(path: "search", query: [URLQueryItem(name: "q", value: "kotlin")])), "default")
    }

    /// A route query `URLComponents` refuses (a space, a stray `%`) still constrains the route;
    /// it used to match every query on that path.
    func test_givenARouteQueryThatURLComponentsRefuses_whenRequested_thenItStillConstrainsTheRoute() {
        let client = NetworkClient.stubbing()
            .body(json: #"{"from":"default"}"#)
            .stub(.get, "search?q=a b", .json(#"{"from":"space"}"#))
            .stub(.get, "discount?d=100%", .json(#"{"from":"percent"}"#))
            .makeClient()
        func from(_ endpoint: StubJSONEndpoint) -> String? { try? settle(client.request(endpoint))?.get()["from"].string }
        XCTAssertEqual(from(StubJSONEndpoint(path: "search", query: [URLQueryItem(name: "q", value: "a b")])), "space")
        XCTAssertEqual(from(StubJSONEndpoint(path: "search", query: [URLQueryItem(name: "q", value: "other")])), "default")
        XCTAssertEqual(from(StubJSONEndpoint(path: "discount", query: [URLQueryItem(name: "d", value: "100%")])), "percent")
        XCTAssertEqual(from(StubJSONEndpoint(path: "discount", query: [URLQueryItem(name: "d", value: "5")])), "default")
    }

    /// A route that is only a query applies to the root path; it was read as the path "q=swift".
    func test_givenARouteThatIsOnlyAQuery_whenTheRootIsRequested_thenItMatches() {
        let client = NetworkClient.stubbing()
            .body(json: #"{"from":"default"}"#)
            .stub(.get, "?q=swift", .json(#"{"from":"root query"}"#))
            .makeClient()
        func from(_ endpoint: StubJSONEndpoint) -> String? { try? settle(client.request(endpoint))?.get()["from"].string }
        XCTAssertEqual(from(StubJSONEndpoint(path: "", query: [URLQueryItem(name: "q", value: "swift")])), "root query")
        XCTAssertEqual(from(StubJSONEndpoint(path: "", query: [URLQueryItem(name: "q", value: "rust")])), "default")
        XCTAssertEqual(from(StubJSONEndpoint(path: "q=swift")), "default")
    }

    /// The stub obeys the client's response size limit like the network transport does.
    func test_givenABodyOverTheResponseSizeLimit_whenStubbed_thenTheSameTypedFailureAsOverTheNetwork() {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.maximumResponseSize = 10
        let client = NetworkClient.stubbing().body(json: #"{"this body":"is longer than ten bytes"}"#)
            .makeClient(configuration: configuration)
        guard case .invalidRequest(let reason)? = networkError(settle(client.request(StubJSONEndpoint(path: "x")))) else {
            return XCTFail("expected invalidRequest")
        }
        XCTAssertEqual(reason, "response larger than 10 bytes")
    }

    func test_givenASequence_whenRequestedRepeatedly_thenResponsesComeInOrderAndTheLastRepeats() {
        let client = NetworkClient.stubbing()
            .sequence([.json(#"{"n":1}"#), .json(#"{"n":2}"#, status: 200), StubResponse(status: 503)])
            .makeClient()
        var outcomes: [String] = []
        for _ in 0..<5 {
            let result = settle(client.request(StubJSONEndpoint(path: "feed")))
            if let n = try? result?.get()["n"].int { outcomes.append("n\(n)") } else { outcomes.append(networkError(result)?.shortName ?? "?") }
        }
        XCTAssertEqual(outcomes, ["n1", "n2", "serverError(503)", "serverError(503)", "serverError(503)"])
    }

    func test_givenARouteSequence_whenOtherRoutesAreHit_thenEachRouteCountsOnItsOwn() {
        let client = NetworkClient.stubbing()
            .stub(.get, "a", sequence: [.json(#"{"n":1}"#), .json(#"{"n":2}"#)])
            .stub(.get, "b", sequence: [.json(#"{"n":10}"#), .json(#"{"n":20}"#)])
            .makeClient()
        func n(_ path: String) -> Int? { try? settle(client.request(StubJSONEndpoint(path: path)))?.get()["n"].int }
        XCTAssertEqual([n("a"), n("b"), n("a"), n("b"), n("a")], [1, 10, 2, 20, 2])
    }

    func test_givenAResponder_whenRequested_thenItSeesTheRequestAsSent() {
        let client = NetworkClient.stubbing()
            .respond { request in
                .json(#"{"echo":"\#(request.value(forHTTPHeaderField: "X-Name") ?? "none")"}"#)
            }
            .makeClient()
        let result = settle(client.request(StubJSONEndpoint(path: "hello", headers: ["X-Name": "Grace"])))
        XCTAssertEqual(try result?.get()["echo"].string, "Grace")
    }

    func test_givenSeededEnvironment_whenTheURLMatches_thenTheSeededJSONIsServed() throws {
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "https://api.example.com/v1")))
        configuration.timeout = 5
        let environment = [
            "https://api.example.com/v1/products": #"{"products":[{"name":"Macbook Pro"}]}"#,
            "PATH": "/usr/bin", "HOME": "/root",
        ]
        let client = NetworkClient.stubbing().seeded(from: environment).makeClient(configuration: configuration)
        let products = settle(client.request(StubJSONEndpoint(path: "products")))
        XCTAssertEqual(try products?.get()["products"][0]["name"].string, "Macbook Pro")
        let other = settle(client.request(StubJSONEndpoint(path: "orders", sampleData: Data(#"{"fallback":true}"#.utf8))))
        XCTAssertEqual(try other?.get()["fallback"].bool, true, "an unseeded URL falls back to the default")
    }

    func test_givenAFixtureFolder_whenAFileMatches_thenItIsServedAndAMissingOneNamesTheRequest() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fixtures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("get/products"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"id":42}"#.utf8).write(to: folder.appendingPathComponent("get/products/42.json"))
        try Data(#"{"any":"method"}"#.utf8).write(to: folder.appendingPathComponent("settings.json"))

        let client = NetworkClient.stubbing().fixtures(in: folder).makeClient()
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "products/42")))?.get()["id"].int, 42)
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "settings", method: .put)))?.get()["any"].string, "method")

        guard case .transport(let underlying)? = networkError(settle(client.request(StubJSONEndpoint(path: "products/43")))),
            case .missingFixture(let request, let searched)? = underlying as? StubError
        else { return XCTFail("expected a missing-fixture transport error") }
        XCTAssertEqual(request, "GET /products/43")
        XCTAssertTrue(searched.contains { $0.hasSuffix("get/products/43.json") })

        // A path that climbs out of the folder finds nothing there, even when the file exists.
        let outside = folder.deletingLastPathComponent().appendingPathComponent("courier-outside-\(UUID().uuidString)")
        try Data(#"{"outside":true}"#.utf8).write(to: outside.appendingPathExtension("json"))
        defer { try? FileManager.default.removeItem(at: outside.appendingPathExtension("json")) }
        let climbing = ["..", outside.lastPathComponent]
        guard case .failure(.missingFixture(_, let none)) = StubFixtures.load(from: folder, method: .get, path: climbing) else {
            return XCTFail("a fixture outside the folder was read")
        }
        XCTAssertEqual(none, [])
    }

    func test_givenSeedShortcuts_whenRequested_thenSuccessAndFailureLookLikeTheNetwork() {
        let ok = NetworkClient.stubbing().setSuccess(mockData: Data(#"{"ok":true}"#.utf8), responseTime: 0.01)
        XCTAssertEqual(try settle(ok.request(StubJSONEndpoint(path: "x")))?.get()["ok"].bool, true)

        let bad = NetworkClient.stubbing().setFailure(mockData: Data(#"{"error":{"code":4001,"message":"Bad token"}}"#.utf8), responseTime: 0.01)
        guard case .clientError(400, let metadata?, _)? = networkError(settle(bad.request(StubJSONEndpoint(path: "x")))) else {
            return XCTFail("expected clientError(400)")
        }
        XCTAssertEqual(metadata.status, "4001")
        XCTAssertEqual(metadata.message, "Bad token")

        let down = NetworkClient.stubbing().setFailure(mockData: Data("<html>502</html>".utf8), statusCode: 502, responseTime: 0)
        guard case .serverError(502, let none, _)? = networkError(settle(down.request(StubJSONEndpoint(path: "x")))) else {
            return XCTFail("expected serverError(502)")
        }
        XCTAssertNil(none, "an HTML error page has no metadata")
    }

    func test_givenARecorder_whenRequestsAreSent_thenItRecordsThemInOrderWithHeaders() {
        let recorder = StubRecorder()
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.defaultHeaders["X-App"] = "demo"
        let client = NetworkClient.stubbing().recording(into: recorder).makeClient(configuration: configuration)
        _ = settle(client.request(StubJSONEndpoint(path: "one")))
        _ = settle(client.request(StubJSONEndpoint(path: "two", method: .delete)))
        XCTAssertEqual(recorder.requests.map { $0.url?.path }, ["/one", "/two"])
        XCTAssertEqual(recorder.requests.map(\.httpMethod), ["GET", "DELETE"])
        XCTAssertEqual(recorder.requests.first?.value(forHTTPHeaderField: "X-App"), "demo")
        recorder.reset()
        XCTAssertEqual(recorder.count, 0)
    }

    func test_givenAnImmediateStub_whenSent_thenTheTransportAnswersAsynchronously() {
        // XCTest runs tests on the main thread; an answer given inside `send()` would run there.
        XCTAssertTrue(Thread.isMainThread)
        let transport = StubTransport(plan: NetworkClient.stubbing())
        let answeredOnCallingThread = SharedValue<Bool?>(nil)
        let done = expectation(description: "answered")
        let request = URLRequest(url: StubbingBuilder.defaultBaseURL)
        _ = transport.send(request, context: TransportContext(method: .get, endpointPath: "x")) { _ in
            answeredOnCallingThread.withLock { $0 = Thread.isMainThread }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(answeredOnCallingThread.withLock { $0 }, false, "the stub answered inside send()")
    }

    func test_givenBuilderCopies_whenOneIsChanged_thenTheOtherIsNot() {
        let base = NetworkClient.stubbing().status(200)
        _ = base.status(500)
        let client = base.body(json: #"{"v":1}"#).makeClient()
        XCTAssertEqual(try settle(client.request(StubJSONEndpoint(path: "x")))?.get()["v"].int, 1)
    }

    /// A plan printed in a failure message or with `po` hides credentials and bodies.
    func test_givenAPlanWithSecrets_whenDescribedOrDumped_thenCredentialsAndBodiesAreHidden() {
        let environment = ["https://user:hunter2@api.example.test/me?access_token=SEEDED-SECRET&page=2": #"{"password":"BODY-SECRET"}"#]
        let builder = NetworkClient.stubbing()
            .headers(["Authorization": "Bearer HEADER-SECRET", "Content-Type": "application/json"])
            .body(json: #"{"token":"DEFAULT-BODY-SECRET"}"#)
            .stub(.get, "users/*?api_key=ROUTE-SECRET&page=1", .json(#"{"secret":"ROUTE-BODY"}"#))
            .stub(.post, "feed", sequence: [.json("[]"), .json("[1]")])
            .seeded(from: environment)
        var dumped = ""
        dump(builder, to: &dumped)
        for text in [builder.description, String(describing: builder), dumped] {
            for secret in ["hunter2", "SEEDED-SECRET", "BODY-SECRET", "HEADER-SECRET", "DEFAULT-BODY-SECRET", "ROUTE-SECRET", "ROUTE-BODY"] {
                XCTAssertFalse(text.contains(secret), "\(secret) shown in \(text)")
            }
            XCTAssertTrue(text.contains("GET users/*?api_key=<redacted>&page=1"), text)
            XCTAssertTrue(text.contains("POST feed → 2 responses"), text)
            XCTAssertTrue(text.contains("https://api.example.test/me?access_token=<redacted>&page=2 (26 bytes)"), text)
            XCTAssertTrue(text.contains("Content-Type: application/json"), text)
        }
    }
}
