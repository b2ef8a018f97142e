import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Request<Response>`: the endpoint written where it is used.
final class RequestTests: XCTestCase {
    private struct User: Codable, Sendable, Equatable { let id: Int; let name: String }

    private struct ListUsers: Endpoint {
        typealias Response = [User]
        var path: String { "users" }
        var method: HTTPMethod { .post }
        var query: [URLQueryItem] { [URLQueryItem(name: "page", value: "2")] }
        var headers: [String: String] { ["X-Trace": "t"] }
        var body: RequestBody { .form(["all": "1"]) }
        var timeout: TimeInterval? { 4 }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .seconds(1)) }
        var requiresAuthentication: Bool { false }
        var sampleData: Data { Data(#"[{"id":1,"name":"Ada"}]"#.utf8) }
        var acceptedStatusCodes: StatusCodeSet { .successful.union([304]) }
    }

    private let api = NetworkClient(baseURL: URL(string: "https://api.example.com/v1/")!)

    func test_givenNoTypeArgument_whenMade_thenTheResponseIsJSONAndTheDefaultsAreTheEndpointDefaults() throws {
        let request = Request("status")
        XCTAssertTrue(type(of: request) == Request<JSON>.self)
        try assertDocumentedDefaults(request)
        XCTAssertNil(request.base)
    }

    func test_givenATypeFromTheContext_whenMade_thenThatTypeIsTheResponse() {
        let typed: Request<User> = Request("users/1")
        XCTAssertTrue(type(of: typed) == Request<User>.self)
        XCTAssertTrue(type(of: Request<[User]>.get("users")) == Request<[User]>.self)
    }

    func test_givenEachStaticMaker_whenBuilt_thenMethodQueryHeadersAndBodyAreSent() throws {
        let headers = ["X-Trace": "abc"]
        let query = [URLQueryItem(name: "q", value: "a b")]
        let get = try api.makeURLRequest(for: Request<JSON>.get("/items", query: query, headers: headers))
        XCTAssertEqual(get.httpMethod, "GET")
        XCTAssertEqual(get.url?.absoluteString, "https://api.example.com/v1/items?q=a%20b")
        XCTAssertEqual(get.value(forHTTPHeaderField: "X-Trace"), "abc")

        for (method, make) in [(HTTPMethod.head, Request<JSON>.head), (.options, Request<JSON>.options)] {
            let sent = try api.makeURLRequest(for: make("items/3", query, headers))
            XCTAssertEqual(sent.httpMethod, method.rawValue)
            XCTAssertEqual(sent.url?.query, "q=a%20b", "\(method)")
            XCTAssertEqual(sent.value(forHTTPHeaderField: "X-Trace"), "abc", "\(method)")
            XCTAssertNil(sent.httpBody, "\(method)")
        }

        let makers: [(HTTPMethod, (String, [URLQueryItem], RequestBody, [String: String]) -> Request<JSON>)] = [
            (.post, Request.post), (.put, Request.put), (.patch, Request.patch), (.delete, Request.delete),
        ]
        for (method, make) in makers {
            let sent = try api.makeURLRequest(for: make("items", query, .json(["n": 1]), headers))
            XCTAssertEqual(sent.httpMethod, method.rawValue)
            XCTAssertEqual(sent.url?.query, "q=a%20b", "\(method)")
            XCTAssertEqual(sent.httpBody, Data(#"{"n":1}"#.utf8), "\(method)")
            XCTAssertEqual(sent.value(forHTTPHeaderField: "Content-Type"), "application/json", "\(method)")
            XCTAssertEqual(sent.value(forHTTPHeaderField: "X-Trace"), "abc", "\(method)")
            let bare = try api.makeURLRequest(for: make("items", [], .none, [:]))
            XCTAssertNil(bare.url?.query, "\(method): no query by default")
            XCTAssertNil(bare.httpBody, "\(method): no body by default")
        }
        let bodyless = try api.makeURLRequest(for: Request<JSON>.delete("items/3"))
        XCTAssertEqual(bodyless.httpMethod, "DELETE")
        XCTAssertNil(bodyless.httpBody)
    }

    func test_givenAnEndpoint_whenWrapped_thenEveryPropertyIsCopiedAndTheEndpointKept() throws {
        let original = ListUsers()
        let wrapped = Request(original)
        XCTAssertTrue(type(of: wrapped) == Request<[User]>.self)
        XCTAssertEqual(wrapped.path, "users")
        XCTAssertEqual(wrapped.method, .post)
        XCTAssertEqual(wrapped.query, original.query)
        XCTAssertEqual(wrapped.headers, original.headers)
        XCTAssertEqual(try wrapped.body.encoded(using: JSONEncoder()).data, Data("all=1".utf8))
        XCTAssertEqual(wrapped.timeout, 4)
        XCTAssertEqual(wrapped.retryPolicy?.maximumRetryCount, 1)
        XCTAssertFalse(wrapped.requiresAuthentication)
        XCTAssertEqual(wrapped.sampleData, original.sampleData)
        XCTAssertEqual(wrapped.acceptedStatusCodes, original.acceptedStatusCodes)
        XCTAssertTrue(wrapped.base is ListUsers)
        let direct = try api.makeURLRequest(for: original)
        let viaWrapper = try api.makeURLRequest(for: wrapped)
        XCTAssertEqual(viaWrapper, direct)
        XCTAssertEqual(viaWrapper.httpBody, direct.httpBody)
    }

    func test_givenABaseURLAndAConfigureClosure_whenTheClientIsMade_thenItHasTheChangedConfiguration() throws {
        let base = try XCTUnwrap(URL(string: "https://api.example.com/v2"))
        let client = NetworkClient(baseURL: base) {
            $0.timeout = 20
            $0.defaultHeaders["X-Client"] = "app"
            $0.decoder.dateDecodingStrategy = .iso8601   // what the Get migration guide advises
        }
        struct Stamped: Decodable { let at: Date }
        let stamped = try client.configuration.decoder.decode(Stamped.self, from: Data(#"{"at":"2026-11-25T00:00:00Z"}"#.utf8))
        XCTAssertEqual(stamped.at, Date(timeIntervalSince1970: 1_795_564_800))
        XCTAssertEqual(client.configuration.baseURL, base)
        XCTAssertEqual(client.configuration.timeout, 20)
        let built = try client.makeURLRequest(for: Request("items"))
        XCTAssertEqual(built.value(forHTTPHeaderField: "X-Client"), "app")
        XCTAssertEqual(built.timeoutInterval, 20)
        XCTAssertEqual(NetworkClient(baseURL: base).configuration.timeout, NetworkClient.Configuration(baseURL: base).timeout,
                       "without a closure, the defaults")
    }

    func test_givenAWholeURLAsPath_whenBuiltOrSent_thenInvalidRequestNamingOnlyTheScheme() throws {
        for path in ["https://elsewhere.example.org/steal", "/http://elsewhere.example.org", "HTTP://x", "git+ssh://host/repo",
                     "https://user:hunter2@elsewhere.example.org/x?access_token=abc"] {
            XCTAssertThrowsError(try api.makeURLRequest(for: Request(path)), path) { error in
                guard case NetworkError.invalidRequest(let reason) = error else { return XCTFail("\(path): \(error)") }
                XCTAssertTrue(reason.contains("Request(url:)"), reason)
                for secret in ["hunter2", "abc", "elsewhere"] { XCTAssertFalse(reason.contains(secret), reason) }
            }
        }
        let client = NetworkClient.stubbing().makeClient()
        guard case .invalidRequest? = networkError(settle(client.request(Request("https://elsewhere.example.org/x")))) else {
            return XCTFail("expected invalidRequest from the pipeline too")
        }
    }

    func test_givenAPathWithAColonThatIsNoWholeURL_whenBuilt_thenItIsJoinedUnderTheBaseURL() throws {
        let cases = [
            "items:batchGet": "/v1/items:batchGet", "v2/a:b//c": "/v1/v2/a:b//c", "//cdn.example.com/x": "/v1/cdn.example.com/x",
            "1http://x": "/v1/1http://x", "caf\u{E9}://x": "/v1/caf%C3%A9://x", "a b://x": "/v1/a%20b://x", "://x": "/v1/://x",
        ]
        for (path, expected) in cases {
            let sent = try api.makeURLRequest(for: Request(path))
            XCTAssertEqual(sent.url?.host, "api.example.com", path)
            XCTAssertEqual(sent.url.map { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.percentEncodedPath }, expected, path)
        }
    }

    func test_givenADotDotPath_whenRequested_thenInvalidRequest() {
        let client = NetworkClient.stubbing().makeClient()
        guard case .invalidRequest? = networkError(settle(client.request(Request("a/../../admin")))) else {
            return XCTFail("expected invalidRequest")
        }
    }

    func test_givenStubs_whenEachStyleSendsARequest_thenTheResponseDecodesAsItsType() async throws {
        let client = NetworkClient.stubbing()
            .stub(.get, "users/1", .json(#"{"id":1,"name":"Ada"}"#))
            .stub(.post, "users", .json(#"{"id":2,"name":"Grace"}"#, status: 201))
            .makeClient()
        let fetched = try await client.send(Request<User>("users/1"))
        XCTAssertEqual(fetched, User(id: 1, name: "Ada"))
        let created = try XCTUnwrap(settle(client.request(Request<User>.post("users", body: .json(["name": "Grace"]))))).get()
        XCTAssertEqual(created, User(id: 2, name: "Grace"))
        let untyped = try await client.send(Request("users/1"))
        XCTAssertEqual(untyped["name"].string, "Ada")
    }

    func test_givenAWrappedEndpoint_whenStubbedWithoutABody_thenItsSampleDataAnswersAndPluginsSeeTheBase() throws {
        let seen = SharedValue<[String]>([])
        struct TypeNamer: RequestPlugin {
            let seen: SharedValue<[String]>
            func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
                let name = (endpoint as? Request<[User]>)?.base.map { "\(type(of: $0))" } ?? "none"
                seen.withLock { $0.append(name) }
                return request
            }
        }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = [TypeNamer(seen: seen)]
        let client = NetworkClient.stubbing().makeClient(configuration: configuration)
        let users = try XCTUnwrap(settle(client.request(Request(ListUsers())))).get()
        XCTAssertEqual(users, [User(id: 1, name: "Ada")])
        XCTAssertEqual(seen.withLock { $0 }, ["ListUsers"])
    }

    func test_givenACopy_whenChanged_thenTheOriginalIsUnchangedAndTheCopyIsSent() throws {
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().recording(into: recorder).makeClient()
        let base = Request<JSON>.get("search")
        var narrowed = base
        narrowed.query = [URLQueryItem(name: "q", value: "swift")]
        narrowed.headers["X-Trace"] = "1"
        _ = try XCTUnwrap(settle(client.request(narrowed))).get()
        XCTAssertEqual(base.query, [])
        XCTAssertEqual(recorder.requests.first?.url?.query, "q=swift")
        XCTAssertEqual(recorder.requests.first?.value(forHTTPHeaderField: "X-Trace"), "1")
    }
}
