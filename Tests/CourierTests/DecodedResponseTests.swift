import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `DecodedResponse` and `withHTTPResponse()`: the decoded value together with the response.
final class DecodedResponseTests: XCTestCase {
    struct User: Codable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    struct ListUsers: Endpoint {
        typealias Response = DecodedResponse<[User]>
        var path: String { "users" }
    }

    struct GetUser: Endpoint {
        typealias Response = User
        var path: String { "users/1" }
    }

    /// Every property set to something other than its default, to check what the wrapper forwards.
    struct CreateUser: Endpoint {
        typealias Response = User
        var path: String { "users" }
        var method: HTTPMethod { .post }
        var query: [URLQueryItem] { [URLQueryItem(name: "notify", value: "yes")] }
        var headers: [String: String] { ["X-Request-ID": "r-1"] }
        var body: RequestBody { .json(User(id: 0, name: "Ada")) }
        var timeout: TimeInterval? { 7 }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(1), jitter: 0, retryableMethods: [.post]) }
        var requiresAuthentication: Bool { false }
        var sampleData: Data { Data(#"{"id":9,"name":"Sample"}"#.utf8) }
        var acceptedStatusCodes: StatusCodeSet { [200, 201] }
    }

    static let usersJSON = #"[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]"#
    static let linkHeader = #"<http://127.0.0.1:9/api/users?page=3>; rel="next""#

    private func makeClient(_ transport: RecordingTransport) throws -> NetworkClient {
        let configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9/api")))
        return NetworkClient(configuration: configuration, transport: transport)
    }

    private func pagedClient() throws -> NetworkClient {
        try makeClient(RecordingTransport.answering(206, body: Self.usersJSON, headers: ["Link": Self.linkHeader]))
    }

    private func assertPage(_ page: DecodedResponse<[User]>?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(page?.value.map(\.name), ["Ada", "Grace"], file: file, line: line)
        XCTAssertEqual(page?.statusCode, 206, file: file, line: line)
        XCTAssertEqual(page?.header("link"), Self.linkHeader, "looked up case-insensitively", file: file, line: line)
        XCTAssertEqual(page?.response.body, Data(Self.usersJSON.utf8), file: file, line: line)
        XCTAssertEqual(page?.response.url?.absoluteString, "http://127.0.0.1:9/api/users", file: file, line: line)
    }

    func test_givenADecodedResponseEndpoint_whenRequestedInEachStyle_thenTheValueComesWithItsResponse() async throws {
        let client = try pagedClient()
        assertPage(try client.request(ListUsers()).wait(within: 10))
        assertPage(try await client.send(ListUsers()))
        let completed = expectation(description: "completion")
        let delivered = SharedValue<DecodedResponse<[User]>?>(nil)
        client.request(ListUsers()) { result in
            delivered.withLock { $0 = try? result.get() }
            completed.fulfill()
        }
        await fulfillment(of: [completed], timeout: 10)
        assertPage(delivered.withLock { $0 })
    }

    func test_givenADecodedResponse_whenMapped_thenTheValueChangesAndTheResponseStays() async throws {
        let client = try pagedClient()
        let names = try await client.send(ListUsers()).map { users in users.map(\.name) }
        XCTAssertEqual(names.value, ["Ada", "Grace"])
        XCTAssertEqual(names.statusCode, 206)
        XCTAssertEqual(names.header("Link"), Self.linkHeader)
        XCTAssertEqual(names.response.body, Data(Self.usersJSON.utf8))
        struct Empty: Error {}
        XCTAssertThrowsError(try names.map { values -> String in
            guard let first = values.first(where: { $0.isEmpty }) else { throw Empty() }
            return first
        }) { XCTAssertTrue($0 is Empty, "what the transform throws is rethrown") }
    }

    func test_givenASendMadeForItsEffect_whenItsResultIsIgnored_thenItStillCompletes() async throws {
        let transport = RecordingTransport.answering(204)
        let client = try makeClient(transport)
        try await client.send(Request<EmptyResponse>.delete("users/1"))   // no `_ =`: the result is discardable
        try await client.send(Request<EmptyResponse>.delete("users/2"), progress: nil)
        XCTAssertEqual(transport.requests.map { "\($0.httpMethod ?? "") \($0.url?.path ?? "")" }, ["DELETE /api/users/1", "DELETE /api/users/2"])
    }

    func test_givenAnyEndpoint_whenWrappedWithHTTPResponse_thenItDecodesAsBeforeAndAddsTheResponse() throws {
        let client = try makeClient(RecordingTransport.answering(body: #"{"id":1,"name":"Ada"}"#, headers: ["ETag": "\"v7\""]))
        let plain = try client.request(GetUser()).wait(within: 10)
        let wrapped = try client.request(GetUser().withHTTPResponse()).wait(within: 10)
        XCTAssertEqual(wrapped.value, plain)
        XCTAssertEqual(wrapped.header("etag"), "\"v7\"")
        XCTAssertEqual(wrapped, DecodedResponse(value: plain, response: wrapped.response))
    }

    func test_givenTheSpecialResponseTypes_whenWrapped_thenEachKeepsItsOwnRules() throws {
        let notJSON = try makeClient(RecordingTransport.answering(body: "<html>ok</html>", headers: ["X-Trace": "t"]))
        let empty = try notJSON.request(StubEndpoint<DecodedResponse<EmptyResponse>>(path: "x")).wait(within: 10)
        XCTAssertEqual(empty.value, EmptyResponse(), "EmptyResponse never reads the body")
        XCTAssertEqual(empty.header("X-Trace"), "t")
        let raw = try notJSON.request(StubEndpoint<DecodedResponse<HTTPResponse>>(path: "x")).wait(within: 10)
        XCTAssertEqual(raw.value, raw.response, "an HTTPResponse value is the response itself")
        let noBody = try makeClient(RecordingTransport.answering(204))
        XCTAssertEqual(try noBody.request(StubEndpoint<DecodedResponse<JSON>>(path: "x")).wait(within: 10).value, JSON.null)
        let json = try makeClient(RecordingTransport.answering(body: #"{"n":[1,2]}"#))
        XCTAssertEqual(try json.request(StubEndpoint<DecodedResponse<JSON>>(path: "x")).wait(within: 10).value["n"][1].int, 2)
        let nested = try json.request(StubEndpoint<DecodedResponse<DecodedResponse<JSON>>>(path: "x")).wait(within: 10)
        XCTAssertEqual(nested.value.value["n"][0].int, 1)
        XCTAssertEqual(nested.value.response, nested.response)
    }

    func test_givenAFailingStatusOrABadBody_whenWrapped_thenItRejectsExactlyAsTheBareEndpoint() throws {
        let missing = try makeClient(RecordingTransport.answering(404, body: #"{"message":"no such user"}"#))
        XCTAssertThrowsError(try missing.request(ListUsers()).wait(within: 10)) { error in
            XCTAssertEqual((error as? NetworkError)?.shortName, "clientError(404)")
            XCTAssertEqual((error as? NetworkError)?.metadata?.message, "no such user")
        }
        let garbled = try makeClient(RecordingTransport.answering(body: #"{"id":"one"}"#))
        XCTAssertThrowsError(try garbled.request(GetUser().withHTTPResponse()).wait(within: 10)) { error in
            guard case .decodingFailed(let underlying, let response)? = error as? NetworkError else {
                return XCTFail("expected decodingFailed, got \(error)")
            }
            XCTAssertTrue(underlying is DecodingError, "the decoder's own error, not a type mismatch: \(underlying)")
            XCTAssertEqual(response.body, Data(#"{"id":"one"}"#.utf8))
        }
    }

    func test_givenAnEndpoint_whenWrapped_thenTheRequestSentIsTheSame() throws {
        let client = try pagedClient()
        let bare = try client.makeURLRequest(for: CreateUser())
        let wrapped = try client.makeURLRequest(for: CreateUser().withHTTPResponse())
        XCTAssertEqual(wrapped.url, bare.url)
        XCTAssertEqual(wrapped.httpMethod, "POST")
        XCTAssertEqual(wrapped.allHTTPHeaderFields, bare.allHTTPHeaderFields)
        XCTAssertEqual(wrapped.value(forHTTPHeaderField: "X-Request-ID"), "r-1")
        // JSONEncoder's key order varies between runs: compare the decoded bodies.
        XCTAssertEqual(try JSONDecoder().decode(User.self, from: XCTUnwrap(wrapped.httpBody)), User(id: 0, name: "Ada"))
        XCTAssertEqual(try JSONDecoder().decode(User.self, from: XCTUnwrap(bare.httpBody)), User(id: 0, name: "Ada"))
        XCTAssertEqual(wrapped.timeoutInterval, 7)
        let endpoint = CreateUser().withHTTPResponse()
        XCTAssertFalse(endpoint.requiresAuthentication)
        XCTAssertEqual(endpoint.sampleData, CreateUser().sampleData)
        XCTAssertEqual(endpoint.retryPolicy?.maximumRetryCount, 2)
        XCTAssertEqual(endpoint.acceptedStatusCodes, [200, 201])
        XCTAssertEqual(WithHTTPResponse(CreateUser()).path, "users")
    }

    func test_givenAWrappedEndpointThatRetries_whenItFinallySucceeds_thenTheResponseIsTheLastAttempts() throws {
        let attempts = SharedValue(0)
        let transport = RecordingTransport(.immediate { request in
            let attempt = attempts.withLock { count -> Int in count += 1; return count }
            let status = attempt < 3 ? 503 : 201
            return .success(HTTPResponse(
                statusCode: status, headers: ["X-Attempt": "\(attempt)"], body: Data(#"{"id":5,"name":"Ada"}"#.utf8), url: request.url))
        })
        let created = try makeClient(transport).request(CreateUser().withHTTPResponse()).wait(within: 10)
        XCTAssertEqual(transport.sendCount, 3, "the wrapper keeps the endpoint's retry policy")
        XCTAssertEqual(created.statusCode, 201)
        XCTAssertEqual(created.header("X-Attempt"), "3")
        XCTAssertEqual(created.value, User(id: 5, name: "Ada"))
    }

    func test_givenAStubbedClient_whenWrapped_thenTheStubsHeadersAndSampleDataArrive() throws {
        let client = NetworkClient.stubbing().status(201).headers(["X-Total-Count": "42"]).makeClient()
        let page = try XCTUnwrap(settle(client.request(CreateUser().withHTTPResponse()))).get()
        XCTAssertEqual(page.value, User(id: 9, name: "Sample"), "decoded from the endpoint's sample data")
        XCTAssertEqual(page.statusCode, 201)
        XCTAssertEqual(page.header("x-total-count"), "42")
    }

    func test_givenTheWrappedType_whenAskedWhetherItDecodes_thenOnlyABodyDecodingValueDoes() {
        XCTAssertFalse(ResponseBody.needsDecoding(DecodedResponse<HTTPResponse>.self))
        XCTAssertFalse(ResponseBody.needsDecoding(DecodedResponse<EmptyResponse>.self))
        XCTAssertFalse(ResponseBody.needsDecoding(DecodedResponse<DecodedResponse<EmptyResponse>>.self))
        XCTAssertTrue(ResponseBody.needsDecoding(DecodedResponse<User>.self))
        XCTAssertTrue(ResponseBody.needsDecoding(DecodedResponse<JSON>.self))
        XCTAssertTrue(ResponseBody.needsDecoding(User.self))
    }

    func test_givenABody_whenDecodingADecodedResponseDirectly_thenItThrowsATypeMismatch() {
        XCTAssertThrowsError(try JSONDecoder().decode(DecodedResponse<User>.self, from: Data("{}".utf8))) { error in
            guard case DecodingError.typeMismatch? = error as? DecodingError else {
                return XCTFail("expected typeMismatch, got \(error)")
            }
        }
    }
}
