import Foundation
import XCTest
import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bad caller input: odd endpoint paths, unusable base URLs, bodies that cannot be encoded, odd
/// timeouts. Each must give a usable request or a typed `NetworkError.invalidRequest`, never a crash.
final class HostileRequestTests: XCTestCase {
    private let base = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")

    // MARK: - Paths

    func test_givenPathWithSpaces_whenBuilt_thenTheSpacesArePercentEncoded() throws {
        let request = try makeRequest(Probe(path: "users/Ada Lovelace/posts"))
        XCTAssertEqual(request.url?.absoluteString, "https://api.example.com/v1/users/Ada%20Lovelace/posts")
    }

    func test_givenDotDotSegments_whenBuilt_thenInvalidRequest() {
        for path in ["..", "../admin", "users/../admin", "users/..", "/../x", "%2E%2E/x", ".%2e/x", "a/%2e%2E"] {
            XCTAssertEqual(kind(of: Probe(path: path)), "invalidRequest", "path: \(path)")
        }
    }

    /// A segment that only becomes `..` once a server decodes `%2F` (or `%5C`) is refused too
    /// (found by this suite; fixed in the request builder).
    func test_givenDotDotBehindAnEncodedSlash_whenBuilt_thenInvalidRequest() {
        let paths = ["..%2Fadmin", "files/..%2F..%2Fetc", "%2E%2E%2Fadmin", "..%5Cadmin"]
        let accepted = paths.filter { kind(of: Probe(path: $0)) != "invalidRequest" }
        XCTAssertEqual(accepted, [])
    }

    func test_givenDotsThatAreNotParentSegments_whenBuilt_thenAccepted() throws {
        for path in ["...", "..a", "a..b", "v1.2/file..txt", "."] {
            XCTAssertNoThrow(try makeRequest(Probe(path: path)), "path: \(path)")
        }
    }

    func test_givenQueryAndFragmentCharactersInPath_whenBuilt_thenTheyStayInThePath() throws {
        let request = try makeRequest(Probe(path: "files/a?b#c", query: [URLQueryItem(name: "page", value: "2")]))
        XCTAssertEqual(request.url?.absoluteString, "https://api.example.com/v1/files/a%3Fb%23c?page=2")
        XCTAssertEqual(request.url?.query, "page=2")
    }

    func test_givenBrokenPercentEscapes_whenBuilt_thenThePercentSignIsEncoded() throws {
        let request = try makeRequest(Probe(path: "a%zz/b%/c%4"))
        XCTAssertEqual(request.url?.absoluteString, "https://api.example.com/v1/a%25zz/b%25/c%254")
    }

    func test_givenControlCharactersAndUnicodeInPath_whenBuilt_thenEncodedAsUTF8Escapes() throws {
        let request = try makeRequest(Probe(path: "a\r\nb\u{0}c/żółw"))
        XCTAssertEqual(request.url?.absoluteString,
                       "https://api.example.com/v1/a%0D%0Ab%00c/%C5%BC%C3%B3%C5%82w")
    }

    func test_givenHostileQueryValues_whenBuilt_thenEachStaysOneItem() throws {
        let items = [URLQueryItem(name: "q", value: "a&b=c#d+e f"), URLQueryItem(name: "x y", value: nil)]
        let request = try makeRequest(Probe(path: "search", query: items))
        let parsed = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }
        XCTAssertEqual(parsed, items)
    }

    /// Open finding (Docs/Reliability.md): a query value that already looks percent-encoded is sent
    /// as it is, so the server decodes `"100%25"` to `"100%"`. `URLQueryItem` values are plain text
    /// (that is how `URLComponents.queryItems` treats them). While this is `true` the test skips.
    private static let queryPercentIsOpen = false

    func test_givenLiteralPercentEscapesInQueryValues_whenBuilt_thenTheyArriveAsWritten() throws {
        let items = [URLQueryItem(name: "discount", value: "100%25"), URLQueryItem(name: "a%26b", value: "%41")]
        let request = try makeRequest(Probe(path: "search", query: items))
        let parsed = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems }
        if parsed != items && Self.queryPercentIsOpen {
            throw XCTSkip("open finding: query items arrive as \(parsed ?? [])")
        }
        XCTAssertEqual(parsed, items)
    }

    func test_givenA100KiBPath_whenBuilt_thenARequestIsFormedWithoutCrashing() throws {
        let path = String(repeating: "segment/", count: 12_800) + "end"
        let request = try makeRequest(Probe(path: path))
        XCTAssertEqual(request.url?.path.count, "/v1/".count + path.count)
    }

    // MARK: - Base URLs

    func test_givenBaseURLsWithoutSchemeOrHost_whenBuilt_thenInvalidRequest() {
        let bases = ["api.example.com/v1", "/just/a/path", "file:///tmp/x", "mailto:someone@example.com", "https://"]
        for text in bases {
            guard let url = URL(string: text) else { continue }
            let client = NetworkClient(baseURL: url)
            XCTAssertEqual(kind(of: Probe(path: "users"), client: client), "invalidRequest", "base URL: \(text)")
        }
    }

    func test_givenUnusableBaseURL_whenRequested_thenThePromiseRejectsWithInvalidRequestAndNothingIsSent() throws {
        let recorder = StubRecorder()
        let url = try XCTUnwrap(URL(string: "no-scheme-here"))
        let client = NetworkClient.stubbing().recording(into: recorder)
            .makeClient(configuration: NetworkClient.Configuration(baseURL: url))
        XCTAssertEqual(outcome(of: client.request(Probe(path: "users"))), "invalidRequest")
        XCTAssertEqual(recorder.count, 0)
    }

    // MARK: - Bodies

    func test_givenBodiesThatCannotBeEncoded_whenBuilt_thenInvalidRequest() {
        let bodies: [(String, RequestBody)] = [
            ("NaN", .json(Double.nan)),
            ("infinity in a dictionary", .json(["ratio": Double.infinity])),
            ("an encoder that throws", .json(Unencodable())),
        ]
        for (name, body) in bodies {
            XCTAssertEqual(kind(of: Probe(path: "items", method: .post, body: body)), "invalidRequest", "body: \(name)")
        }
    }

    func test_givenUnencodableBody_whenRequestedThroughAStub_thenRejectsWithInvalidRequestAndNothingIsSent() {
        let recorder = StubRecorder()
        let client = NetworkClient.stubbing().recording(into: recorder).makeClient()
        let promise = client.request(Probe(path: "items", method: .post, body: .json(Double.nan)))
        XCTAssertEqual(outcome(of: promise), "invalidRequest")
        XCTAssertEqual(recorder.count, 0)
    }

    func test_givenHostileFormValues_whenBuilt_thenTheFormStaysParsable() throws {
        let form = ["name": "a&b=c", "emoji": "☕️ +1", "": "empty key"]
        let request = try makeRequest(Probe(path: "form", method: .post, body: .form(form)))
        let text = String(decoding: request.httpBody ?? Data(), as: UTF8.self)
        var parsed = URLComponents()
        parsed.percentEncodedQuery = text.replacingOccurrences(of: "+", with: "%20")
        let pairs = (parsed.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        XCTAssertEqual(Dictionary(pairs, uniquingKeysWith: { first, _ in first }), form)
    }

    // MARK: - Timeouts

    func test_givenNonPositiveOrNaNTimeouts_whenBuilt_thenInvalidRequest() {
        for timeout in [0, -1, -.infinity, .nan] as [TimeInterval] {
            XCTAssertEqual(kind(of: Probe(path: "x", timeout: timeout)), "invalidRequest", "timeout: \(timeout)")
        }
    }

    func test_givenHugeTimeouts_whenRequestedThroughAStub_thenTheRequestStillCompletes() {
        let client = NetworkClient.stubbing().body(json: "{}").makeClient()
        for timeout in [.infinity, 1e300, Double(Int64.max)] as [TimeInterval] {
            XCTAssertEqual(outcome(of: client.request(Probe(path: "x", timeout: timeout))), "decoded",
                           "timeout: \(timeout)")
        }
    }

    // MARK: - Headers on the wire

    // On Linux, FoundationNetworking hands header lines to libcurl as they are, so a CR LF in a header
    // reached the wire as a second header (found by this suite; the request builder now refuses CR, LF
    // and NUL in header names and values with `invalidRequest`, which these tests also accept).

    func test_givenLineBreaksOrNULInHeaders_whenBuilt_thenInvalidRequest() {
        let headers: [[String: String]] = [
            ["X-Note": "a\r\nX-Smuggled: yes"], ["X-Note": "a\nb"], ["X-Note": "a\rb"], ["X-Note": "a\u{0}b"],
            ["X-Other\r\nX-Smuggled": "b"], ["X-\u{0}": "b"],
        ]
        for fields in headers {
            XCTAssertEqual(kind(of: Probe(path: "x", headers: fields)), "invalidRequest", "headers: \(fields)")
        }
    }

    /// FoundationNetworking sends the method verbatim as the request line's first word.
    func test_givenAMethodThatIsNotAToken_whenBuilt_thenInvalidRequest() {
        let methods: [HTTPMethod] = ["GET /admin HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET", "PRO PFIND", "", "GET\u{0}"]
        for method in methods {
            XCTAssertEqual(kind(of: Probe(path: "x", method: method)), "invalidRequest", "method: \(method.rawValue.debugDescription)")
        }
        XCTAssertEqual(kind(of: Probe(path: "x", method: "PROPFIND")), "ok")
    }

    func test_givenAPluginSetsAMethodThatIsNotAToken_whenSent_thenInvalidRequestBeforeItIsSent() throws {
        let plugin = SetsMethod(method: "GET /admin HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET")
        XCTAssertEqual(try received(plugins: [plugin]), .refused)
    }

    func test_givenHeaderNames_whenBuilt_thenEveryTokenCharacterIsAcceptedAndOthersAreRefused() {
        let everyTokenCharacter = "Xa-Z09!#$%&'*+.^_`|~"
        XCTAssertEqual(kind(of: Probe(path: "x", headers: [everyTokenCharacter: "v\tw é"])), "ok")
        for name in ["X Note", "X:Note", "X-Nöte", "X(Note)", "X\"Note", "X/Note", "X@Note", "X{Note}", ""] {
            XCTAssertEqual(kind(of: Probe(path: "x", headers: [name: "v"])), "invalidRequest", "name: \(name)")
        }
    }

    /// The builder refuses a CR LF in an endpoint's header (above); one that a plugin adds after
    /// the builder ran is refused when the request leaves the gate, before anything is sent.
    func test_givenAPluginAddsAHeaderValueWithCRLF_whenSent_thenInvalidRequestBeforeItIsSent() throws {
        let plugin = AddsHeader(name: "X-Note", value: "a\r\nX-Smuggled: yes")
        XCTAssertEqual(try received(plugins: [plugin]), .refused)
        XCTAssertEqual(plugin.sentCount, 0, "willSend ran for a refused request")
    }

    func test_givenAPluginAddsAHeaderNameWithCRLF_whenSent_thenInvalidRequest() throws {
        XCTAssertEqual(try received(plugins: [AddsHeader(name: "X-Other\r\nX-Smuggled-Name", value: "b")]), .refused)
    }

    /// A credential is a header too: a token with a line break (read from a refresh answer, say)
    /// must not smuggle a header in the Authorization line.
    func test_givenATokenWithCRLF_whenSent_thenInvalidRequest() throws {
        let authenticator = TokenAuthenticator(token: "abc\r\nX-Smuggled: yes") { _ in .value("unused") }
        XCTAssertEqual(try received(authenticator: authenticator, requiresAuthentication: true), .refused)
    }

    /// The control for the three tests above: the same plumbing delivers a valid header.
    func test_givenAPluginAddsAValidHeader_whenSent_thenTheServerReceivesIt() throws {
        let plugin = AddsHeader(name: "X-Note", value: "fine")
        guard case .headers(let names) = try received(plugins: [plugin]) else {
            return XCTFail("the request was refused")
        }
        XCTAssertTrue(names.contains { $0.lowercased() == "x-note" }, "headers received: \(names)")
        XCTAssertEqual(plugin.sentCount, 1)
    }

    // MARK: - Helpers

    private enum Received: Equatable {
        case headers([String])
        case refused
    }

    /// What the local server received for `GET /headers` through a client with `plugins` and
    /// `authenticator`, or `.refused` when the client failed the request with `invalidRequest`.
    private func received(
        plugins: [any RequestPlugin] = [], authenticator: TokenAuthenticator? = nil, requiresAuthentication: Bool = false
    ) throws -> Received {
        var configuration = NetworkClient.Configuration(baseURL: try TestServer.shared.baseURL)
        configuration.plugins = plugins
        configuration.authenticator = authenticator
        let client = NetworkClient(configuration: configuration)
        let settled = expectation(description: "settled")
        let box = ResultBox()
        client.request(Echo(headers: [:], requiresAuthentication: requiresAuthentication)) { result in
            box.result = result
            settled.fulfill()
        }
        wait(for: [settled], timeout: 10)
        switch box.result {
        case .success(let json)?:
            return .headers(json["headers"].object.map { Array($0.keys) } ?? [])
        case .failure(.invalidRequest)?:
            return .refused
        case .failure(let error)?:
            XCTFail("unexpected error \(error)")
            return .refused
        case nil:
            XCTFail("the request did not settle")
            return .refused
        }
    }

    private func makeRequest(_ endpoint: Probe) throws -> URLRequest {
        try NetworkClient(baseURL: base).makeURLRequest(for: endpoint)
    }

    /// `"ok"` when `makeURLRequest` succeeds, else the `NetworkError` case name.
    private func kind(of endpoint: Probe, client: NetworkClient? = nil) -> String {
        do {
            _ = try (client ?? NetworkClient(baseURL: base)).makeURLRequest(for: endpoint)
            return "ok"
        } catch let error as NetworkError {
            if case .invalidRequest = error { return "invalidRequest" }
            return "\(error)"
        } catch {
            return "not a NetworkError: \(error)"
        }
    }

    /// `"decoded"` or the `NetworkError` case name of a promise that must settle within 10 s.
    private func outcome(of promise: Promise<JSON>) -> String {
        let settled = expectation(description: "settled")
        let box = TextBox()
        _ = promise.tap { result in
            switch result {
            case .success: box.text = "decoded"
            case .failure(NetworkError.invalidRequest): box.text = "invalidRequest"
            case .failure(let error): box.text = "\(error)"
            }
            settled.fulfill()
        }
        wait(for: [settled], timeout: 10)
        return box.text
    }
}

/// An endpoint with every property stored.
private struct Probe: Endpoint {
    typealias Response = JSON
    var path: String
    var method: HTTPMethod = .get
    var query: [URLQueryItem] = []
    var headers: [String: String] = [:]
    var body: RequestBody = .none
    var timeout: TimeInterval?
    var requiresAuthentication: Bool { false }
}

/// `GET /headers` on the local test server, which echoes the request headers it received.
private struct Echo: Endpoint {
    typealias Response = JSON
    var path: String { "headers" }
    var headers: [String: String]
    var requiresAuthentication: Bool
}

/// A plugin that sets the request's method in `prepare`, after the request builder's checks.
private struct SetsMethod: RequestPlugin {
    let method: String

    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
        var request = request
        request.httpMethod = method
        return request
    }
}

/// A plugin that adds one header in `prepare`, after the request builder's checks, and counts
/// the attempts it saw leave.
// @unchecked: `sent` is read and written only while holding `lock`.
private final class AddsHeader: RequestPlugin, @unchecked Sendable {
    let name: String
    let value: String
    private let lock = NSLock()
    private var sent = 0

    init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    var sentCount: Int { lock.withLock { sent } }

    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
        // Through `allHTTPHeaderFields`: FoundationNetworking's `setValue` silently drops a value
        // with a line break, which would leave nothing to check.
        var request = request
        var fields = request.allHTTPHeaderFields ?? [:]
        fields[name] = value
        request.allHTTPHeaderFields = fields
        return request
    }

    func willSend(_ request: URLRequest) { lock.withLock { sent += 1 } }
}

/// A body whose encoding always fails.
private struct Unencodable: Encodable, Sendable {
    struct Refused: Error {}
    func encode(to encoder: any Encoder) throws { throw Refused() }
}

// @unchecked Sendable: `stored` is only touched while holding `lock`.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<JSON, NetworkError>?

    var result: Result<JSON, NetworkError>? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

// @unchecked Sendable: `stored` is only touched while holding `lock`.
private final class TextBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = "not settled"

    var text: String {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
