import Foundation
import XCTest
@testable import Courier
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `StatusCodeSet` and `Endpoint.acceptedStatusCodes`: which statuses count as success.
final class AcceptedStatusCodesTests: XCTestCase {
    // MARK: The set

    func test_givenCodesWrittenInDifferentWays_whenCompared_thenTheSameCodesAreEqual() {
        XCTAssertEqual(StatusCodeSet(200...299), StatusCodeSet(200..<300))
        XCTAssertEqual(StatusCodeSet([304, 200, 201, 200, 202]), StatusCodeSet(200...202).union([304]))
        XCTAssertEqual(StatusCodeSet(200...250).union(StatusCodeSet(251...299)), .successful, "touching ranges merge")
        XCTAssertEqual(StatusCodeSet(200...260).union(StatusCodeSet(240...299)), .successful, "overlapping ranges merge")
        XCTAssertEqual(Set([StatusCodeSet([204, 200]), StatusCodeSet([200, 204])]).count, 1, "hash follows equality")
        XCTAssertNotEqual(StatusCodeSet([200]), StatusCodeSet([200, 201]))
    }

    func test_givenASet_whenAskedForCodes_thenContainsExactlyThose() {
        let accepted: StatusCodeSet = .successful.union([304])
        for code in [200, 204, 299, 304] { XCTAssertTrue(accepted.contains(code), "\(code)") }
        for code in [0, 199, 300, 303, 305, 404, -1, Int.max] { XCTAssertFalse(accepted.contains(code), "\(code)") }
        XCTAssertTrue(StatusCodeSet.successfulAndRedirection.contains(399))
        XCTAssertFalse(StatusCodeSet.successfulAndRedirection.contains(400))
        XCTAssertTrue(StatusCodeSet().isEmpty)
        XCTAssertTrue(StatusCodeSet(300..<300).isEmpty)
        XCTAssertFalse(StatusCodeSet().contains(200))
    }

    func test_givenASet_whenCodesAreSubtracted_thenOnlyThoseLeave() {
        let noContentRefused = StatusCodeSet.successful.subtracting([204])
        XCTAssertFalse(noContentRefused.contains(204))
        XCTAssertTrue(noContentRefused.contains(203))
        XCTAssertTrue(noContentRefused.contains(205))
        XCTAssertEqual(noContentRefused.description, "200...203, 205...299")
        XCTAssertEqual(StatusCodeSet([200, 304]).subtracting(.successful), [304])
        XCTAssertTrue(StatusCodeSet.successful.subtracting(StatusCodeSet(100...599)).isEmpty)
    }

    func test_givenExtremeCodes_whenBuiltAndDescribed_thenNoTrap() {
        let extremes = StatusCodeSet([Int.max, Int.min, Int.max - 1]).union(StatusCodeSet(Int.min...Int.max))
        XCTAssertEqual(extremes, StatusCodeSet(Int.min...Int.max))
        XCTAssertTrue(extremes.contains(0))
        XCTAssertEqual(StatusCodeSet(Int.min...Int.max).subtracting([Int.min, Int.max]).description,
                       "\(Int.min + 1)...\(Int.max - 1)")
        XCTAssertEqual(StatusCodeSet().description, "none")
        XCTAssertEqual(StatusCodeSet.successful.union([304]).description, "200...299, 304")
    }

    // MARK: Through the pipeline

    struct Cached: Endpoint {
        typealias Response = HTTPResponse
        var path: String { "avatar" }
        var acceptedStatusCodes: StatusCodeSet { .successful.union([304]) }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0) }
    }

    struct Lookup: Endpoint {
        var path: String { "users/find" }
        var acceptedStatusCodes: StatusCodeSet { [200, 404] }
    }

    struct OnlyOK: Endpoint {
        typealias Response = EmptyResponse
        var path: String { "ping" }
        var acceptedStatusCodes: StatusCodeSet { [200] }
    }

    struct AcceptsUnavailable: Endpoint {
        typealias Response = HTTPResponse
        var path: String { "health" }
        var acceptedStatusCodes: StatusCodeSet { .successful.union([503]) }
        var retryPolicy: RetryPolicy? { RetryPolicy(maximumRetryCount: 3, delayBeforeRetry: .milliseconds(1), jitter: 0) }
    }

    private func client(_ transport: RecordingTransport, plugins: [any RequestPlugin] = []) throws -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:9/api")))
        configuration.plugins = plugins
        return NetworkClient(configuration: configuration, transport: transport)
    }

    func test_givenAnAccepted304_whenRequestedInEachStyle_thenItIsTheResponseNotAnError() async throws {
        let client = try client(.answering(304, headers: ["ETag": "\"v2\""]))
        XCTAssertEqual(try XCTUnwrap(settle(client.request(Cached()))).get().statusCode, 304)
        let awaited = try await client.send(Cached())
        XCTAssertEqual(awaited.header("etag"), "\"v2\"")
        let done = expectation(description: "completion")
        _ = client.request(Cached()) { result in
            XCTAssertEqual(try? result.get().statusCode, 304)
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 5)
    }

    func test_givenAnAccepted404_whenAnswered_thenItsBodyIsDecodedAndPluginsSeeASuccess() throws {
        let plugin = RecordingPlugin()
        let client = try client(.answering(404, body: #"{"found":false}"#), plugins: [plugin])
        let json = try XCTUnwrap(settle(client.request(Lookup()))).get()
        XCTAssertEqual(json["found"].bool, false)
        XCTAssertEqual(plugin.events, ["prepare users/find", "willSend", "didReceive 404"])
    }

    func test_givenAStatusNotAccepted_whenAnswered_thenItIsClassifiedAsBefore() throws {
        let lookup = try client(.answering(500, body: #"{"message":"down"}"#))
        let error = networkError(settle(lookup.request(Lookup())))
        XCTAssertEqual(error?.shortName, "serverError(500)")
        XCTAssertEqual(error?.metadata?.message, "down")

        let ping = try client(.answering(204))
        XCTAssertEqual(networkError(settle(ping.request(OnlyOK())))?.shortName, "unexpectedStatus(204)",
                       "a 2xx the endpoint leaves out is an unexpected status")
        let defaults = try client(.answering(304))
        XCTAssertEqual(networkError(settle(defaults.response(for: StubJSONEndpoint(path: "x"))))?.shortName,
                       "unexpectedStatus(304)", "the default still accepts only 2xx")
    }

    func test_givenAnAcceptedRetryableStatus_whenAnswered_thenItIsNotRetried() throws {
        let transport = RecordingTransport.answering(503)
        let client = try client(transport)
        XCTAssertEqual(try XCTUnwrap(settle(client.request(AcceptsUnavailable()))).get().statusCode, 503)
        XCTAssertEqual(transport.sendCount, 1)

        let refused = RecordingTransport.answering(503)
        XCTAssertEqual(networkError(settle(try self.client(refused).request(Cached())))?.shortName, "serverError(503)")
        XCTAssertEqual(refused.sendCount, 4, "a 503 it does not accept is retried as before")
    }

    func test_givenAnAuthenticatorAndAnAccepted401_whenAnswered_thenTheRefreshStillRuns() throws {
        struct Accepts401: Endpoint {
            typealias Response = HTTPResponse
            var path: String { "me" }
            var acceptedStatusCodes: StatusCodeSet { .successful.union([401]) }
        }
        let server = TokenServer(valid: "token-1")
        let auth = TokenAuthenticator(token: "stale") { _ in server.refresh(delay: 0) }
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.authenticator = auth
        let client = NetworkClient.stubbing().respond { server.respond($0) }.makeClient(configuration: configuration)
        XCTAssertEqual(try XCTUnwrap(settle(client.request(Accepts401()))).get().statusCode, 200)
        XCTAssertEqual(server.refreshCount, 1)
        XCTAssertEqual(server.tokensSeen, ["Bearer stale", "Bearer token-2"])
    }
}
