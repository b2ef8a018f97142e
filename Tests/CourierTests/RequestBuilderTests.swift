import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RequestBuilderTests: XCTestCase {
    struct Path: Endpoint {
        var path: String
        var query: [URLQueryItem] = []
        var headers: [String: String] = [:]
        var body: RequestBody = .none
        var timeout: TimeInterval?
        var method: HTTPMethod = .get
    }

    private func client(_ base: String, configure: (inout NetworkClient.Configuration) -> Void = { _ in }) throws -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: base)))
        configure(&configuration)
        return NetworkClient(configuration: configuration, transport: RecordingTransport.answering())
    }

    private func url(_ base: String, _ endpoint: Path) throws -> String {
        try XCTUnwrap(try client(base).makeURLRequest(for: endpoint).url?.absoluteString)
    }

    private func assertInvalid(_ base: String, _ endpoint: Path, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertThrowsError(try client(base).makeURLRequest(for: endpoint), file: file, line: line) { error in
            guard case NetworkError.invalidRequest = error else {
                return XCTFail("expected invalidRequest, got \(error)", file: file, line: line)
            }
        }
    }

    // MARK: Path joining

    func test_givenBaseAndPathWithOrWithoutSlashes_whenJoined_thenExactlyOneSlash() throws {
        for base in ["https://api.example.com/v1", "https://api.example.com/v1/", "https://api.example.com/v1//"] {
            for path in ["users/42", "/users/42", "//users/42"] {
                XCTAssertEqual(try url(base, Path(path: path)), "https://api.example.com/v1/users/42", "\(base) + \(path)")
            }
        }
    }

    func test_givenHostOnlyBase_whenJoined_thenPathFollowsHostWithOneSlash() throws {
        for base in ["https://api.example.com", "https://api.example.com/"] {
            XCTAssertEqual(try url(base, Path(path: "users")), "https://api.example.com/users")
            XCTAssertEqual(try url(base, Path(path: "/users")), "https://api.example.com/users")
        }
        XCTAssertEqual(try url("http://127.0.0.1:8080", Path(path: "ping")), "http://127.0.0.1:8080/ping")
    }

    func test_givenEmptyPath_whenJoined_thenBaseIsKeptAsWritten() throws {
        XCTAssertEqual(try url("https://api.example.com/v1", Path(path: "")), "https://api.example.com/v1")
        XCTAssertEqual(try url("https://api.example.com/v1/", Path(path: "")), "https://api.example.com/v1/")
    }

    func test_givenTrailingSlashInPath_whenJoined_thenItIsKept() throws {
        XCTAssertEqual(try url("https://api.example.com/v1", Path(path: "users/")), "https://api.example.com/v1/users/")
    }

    func test_givenSpacesAndReservedCharacters_whenJoined_thenPercentEncodedOnce() throws {
        let base = "https://api.example.com"
        XCTAssertEqual(try url(base, Path(path: "files/my report.pdf")), "https://api.example.com/files/my%20report.pdf")
        XCTAssertEqual(try url(base, Path(path: "files/my%20report.pdf")), "https://api.example.com/files/my%20report.pdf")
        XCTAssertEqual(try url(base, Path(path: "a?b#c")), "https://api.example.com/a%3Fb%23c")
        XCTAssertEqual(try url(base, Path(path: "100%")), "https://api.example.com/100%25")
        XCTAssertEqual(try url(base, Path(path: "café")), "https://api.example.com/caf%C3%A9")
        XCTAssertEqual(try url(base, Path(path: "user:1@x/a+b")), "https://api.example.com/user:1@x/a+b")
    }

    func test_givenDotDotSegment_whenBuilt_thenInvalidRequest() throws {
        try assertInvalid("https://api.example.com/v1", Path(path: "../admin"))
        try assertInvalid("https://api.example.com/v1", Path(path: "users/../../admin"))
        try assertInvalid("https://api.example.com/v1", Path(path: "users/%2E%2E/admin"))
        try assertInvalid("https://api.example.com/v1", Path(path: "users/.%2e"))
        XCTAssertEqual(try url("https://api.example.com", Path(path: "a..b/..c")), "https://api.example.com/a..b/..c")
    }

    func test_givenBaseWithoutSchemeOrHost_whenBuilt_thenInvalidRequest() throws {
        try assertInvalid("/relative/path", Path(path: "users"))
        try assertInvalid("api.example.com/v1", Path(path: "users"))
        try assertInvalid("file:///tmp/x", Path(path: "users"))
    }

    // MARK: Query

    func test_givenQueryItems_whenBuilt_thenEncodedWithPlusAsPercent2B() throws {
        let endpoint = Path(path: "search", query: [
            URLQueryItem(name: "q", value: "a+b c&d=e"),
            URLQueryItem(name: "flag", value: nil),
            URLQueryItem(name: "tag", value: "x/y?z"),
        ])
        XCTAssertEqual(
            try url("https://api.example.com", endpoint),
            "https://api.example.com/search?q=a%2Bb%20c%26d%3De&flag&tag=x/y?z")
    }

    func test_givenBaseWithQuery_whenEndpointAddsItems_thenBothAreKeptInOrder() throws {
        let endpoint = Path(path: "items", query: [URLQueryItem(name: "page", value: "2")])
        XCTAssertEqual(try url("https://api.example.com/api?key=1", endpoint), "https://api.example.com/api/items?key=1&page=2")
        XCTAssertEqual(try url("https://api.example.com/api?key=1", Path(path: "items")), "https://api.example.com/api/items?key=1")
        XCTAssertEqual(try url("https://api.example.com/api/?key=1", Path(path: "")), "https://api.example.com/api/?key=1")
    }

    func test_givenRepeatedQueryNames_whenBuilt_thenAllAreSentInOrder() throws {
        let endpoint = Path(path: "x", query: [URLQueryItem(name: "id", value: "1"), URLQueryItem(name: "id", value: "2")])
        XCTAssertEqual(try url("https://api.example.com", endpoint), "https://api.example.com/x?id=1&id=2")
    }

    // MARK: Headers

    func test_givenDefaultAndEndpointHeaders_whenBuilt_thenEndpointWinsCaseInsensitively() throws {
        let client = try client("https://api.example.com") {
            $0.defaultHeaders = ["Accept": "application/json", "X-Client": "courier"]
        }
        let request = try client.makeURLRequest(for: Path(path: "a", headers: ["accept": "text/plain", "X-Extra": "1"]))
        let headers = try XCTUnwrap(request.allHTTPHeaderFields)
        XCTAssertEqual(headers.keys.filter { $0.lowercased() == "accept" }.count, 1)
        XCTAssertEqual(request.value(forHTTPHeaderField: "Accept"), "text/plain")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Client"), "courier")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Extra"), "1")
    }

    func test_givenDefaultConfiguration_whenBuilt_thenAcceptsJSON() throws {
        let request = try client("https://api.example.com").makeURLRequest(for: Path(path: "a"))
        XCTAssertEqual(request.value(forHTTPHeaderField: "Accept"), "application/json")
        XCTAssertEqual(request.httpMethod, "GET")
        XCTAssertNil(request.httpBody)
    }

    func test_givenEachMethod_whenBuilt_thenTheRequestCarriesIt() throws {
        let client = try client("https://api.example.com")
        let methods: [HTTPMethod] = [.get, .post, .put, .patch, .delete, .head, .options, .trace, "PROPFIND"]
        for method in methods {
            XCTAssertEqual(try client.makeURLRequest(for: Path(path: "a", method: method)).httpMethod, method.rawValue)
        }
    }

    func test_givenAuthenticator_whenBuilt_thenNoCredentialIsApplied() throws {
        let client = try client("https://api.example.com") { $0.authenticator = HeaderAuthenticator(token: "secret") }
        let request = try client.makeURLRequest(for: Path(path: "a"))
        XCTAssertNil(request.value(forHTTPHeaderField: "Authorization"))
    }

    // MARK: Body

    func test_givenEachBodyKind_whenBuilt_thenBodyAndContentTypeMatch() throws {
        let client = try client("https://api.example.com")
        let json = try client.makeURLRequest(for: Path(path: "a", body: .json(["n": 1]), method: .post))
        XCTAssertEqual(json.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(json.httpBody, Data(#"{"n":1}"#.utf8))
        XCTAssertEqual(json.httpMethod, "POST")

        let form = try client.makeURLRequest(for: Path(path: "a", body: .form(["b": "x y", "a": "1"])))
        XCTAssertEqual(form.value(forHTTPHeaderField: "Content-Type"), "application/x-www-form-urlencoded")
        XCTAssertEqual(form.httpBody, Data("a=1&b=x%20y".utf8))

        let data = try client.makeURLRequest(for: Path(path: "a", body: .data(Data([1, 2]), contentType: "image/png")))
        XCTAssertEqual(data.value(forHTTPHeaderField: "Content-Type"), "image/png")
        XCTAssertEqual(data.httpBody, Data([1, 2]))

        let multipart = MultipartFormData(boundary: "XyZ", parts: [.init(name: "f", data: Data("v".utf8))])
        let parts = try client.makeURLRequest(for: Path(path: "a", body: .multipart(multipart)))
        XCTAssertEqual(parts.value(forHTTPHeaderField: "Content-Type"), "multipart/form-data; boundary=XyZ")
        XCTAssertEqual(parts.httpBody, try multipart.encoded())

        let none = try client.makeURLRequest(for: Path(path: "a"))
        XCTAssertNil(none.value(forHTTPHeaderField: "Content-Type"))
    }

    func test_givenContentTypeInEndpointOrDefaults_whenBuilt_thenEndpointBeatsBodyBeatsDefaults() throws {
        let client = try client("https://api.example.com") { $0.defaultHeaders["content-type"] = "text/default" }
        let fromBody = try client.makeURLRequest(for: Path(path: "a", body: .json(["n": 1])))
        XCTAssertEqual(fromBody.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(fromBody.allHTTPHeaderFields?.keys.filter { $0.lowercased() == "content-type" }.count, 1)

        let fromEndpoint = try client.makeURLRequest(for: Path(
            path: "a", headers: ["CONTENT-TYPE": "application/vnd.api+json"], body: .json(["n": 1])))
        XCTAssertEqual(fromEndpoint.value(forHTTPHeaderField: "Content-Type"), "application/vnd.api+json")
        XCTAssertEqual(fromEndpoint.allHTTPHeaderFields?.keys.filter { $0.lowercased() == "content-type" }.count, 1)

        let noBody = try client.makeURLRequest(for: Path(path: "a"))
        XCTAssertEqual(noBody.value(forHTTPHeaderField: "Content-Type"), "text/default")
    }

    func test_givenUnencodableJSONBody_whenBuilt_thenInvalidRequest() throws {
        try assertInvalid("https://api.example.com", Path(path: "a", body: .json(["x": Double.nan])))
    }

    // MARK: Timeout and cache policy

    func test_givenEndpointTimeout_whenBuilt_thenItBeatsTheClientTimeout() throws {
        let client = try client("https://api.example.com") {
            $0.timeout = 30
            $0.cachePolicy = .reloadIgnoringLocalCacheData
        }
        XCTAssertEqual(try client.makeURLRequest(for: Path(path: "a", timeout: 5)).timeoutInterval, 5)
        let fallback = try client.makeURLRequest(for: Path(path: "a"))
        XCTAssertEqual(fallback.timeoutInterval, 30)
        XCTAssertEqual(fallback.cachePolicy, .reloadIgnoringLocalCacheData)
    }

    func test_givenEndpointCachePolicy_whenBuilt_thenItBeatsTheClients() throws {
        struct Fresh: Endpoint {
            var path: String { "balance" }
            var cachePolicy: URLRequest.CachePolicy? { .reloadIgnoringLocalCacheData }
        }
        let client = try client("https://api.example.com") { $0.cachePolicy = .returnCacheDataElseLoad }
        XCTAssertEqual(try client.makeURLRequest(for: Fresh()).cachePolicy, .reloadIgnoringLocalCacheData)
        XCTAssertEqual(try client.makeURLRequest(for: Fresh().withHTTPResponse()).cachePolicy, .reloadIgnoringLocalCacheData)
        XCTAssertEqual(try client.makeURLRequest(for: Request(Fresh())).cachePolicy, .reloadIgnoringLocalCacheData)
        var oneOff = Request("balance")
        XCTAssertEqual(try client.makeURLRequest(for: oneOff).cachePolicy, .returnCacheDataElseLoad)
        oneOff.cachePolicy = .reloadIgnoringLocalCacheData
        XCTAssertEqual(try client.makeURLRequest(for: oneOff).cachePolicy, .reloadIgnoringLocalCacheData)
    }

    func test_givenDefaultConfiguration_whenRead_thenTimeoutIs60Seconds() throws {
        XCTAssertEqual(try client("https://api.example.com").configuration.timeout, 60)
    }

    func test_givenNonPositiveTimeout_whenBuilt_thenInvalidRequest() throws {
        try assertInvalid("https://api.example.com", Path(path: "a", timeout: 0))
        try assertInvalid("https://api.example.com", Path(path: "a", timeout: -1))
    }
}

/// Adds `Authorization: Bearer <token>`; refresh always fails.
struct HeaderAuthenticator: Authenticator {
    let token: String

    func apply(to request: URLRequest) -> URLRequest {
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    func refresh(failedCredential: String?) -> Promise<Void> {
        Promise(error: NetworkError.invalidRequest(reason: "no refresh in tests"))
    }
}
