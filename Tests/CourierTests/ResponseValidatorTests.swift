import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Configuration.responseValidator`: errors reported inside a successful status.
final class ResponseValidatorTests: XCTestCase {
    private struct Profile: Decodable, Sendable { let name: String }
    private struct AppError: Error, Equatable { let code: String }

    /// Rejects a body whose `metadata.status` is not "0000", as `clientError(422)` with the metadata.
    private static let metadataValidator: @Sendable (HTTPResponse, any Endpoint) throws -> Void = { response, _ in
        let metadata = ServerMetadata.parse(response)
        if let status = metadata?.status, status != "0000" {
            throw NetworkError.clientError(statusCode: 422, metadata: metadata, response: response)
        }
    }

    private func client(
        _ builder: StubbingBuilder, plugins: [any RequestPlugin] = [],
        validator: (@Sendable (HTTPResponse, any Endpoint) throws -> Void)?
    ) -> NetworkClient {
        var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
        configuration.plugins = plugins
        configuration.responseValidator = validator
        return builder.makeClient(configuration: configuration)
    }

    func test_givenAnErrorInsideA200_whenValidated_thenTheThrownNetworkErrorIsDeliveredWithTheMetadata() async throws {
        let client = client(
            NetworkClient.stubbing()
                .stub(.get, "bad", .json(#"{"metadata":{"status":"E42","desc":"Quota exceeded"}}"#))
                .stub(.get, "good", .json(#"{"metadata":{"status":"0000"},"name":"Ada"}"#)),
            validator: Self.metadataValidator)
        let good = try await client.send(Request<Profile>("good"))
        XCTAssertEqual(good.name, "Ada")
        do {
            _ = try await client.send(Request<Profile>("bad"))
            XCTFail("expected the validator's error")
        } catch let error as NetworkError {
            XCTAssertEqual(error.shortName, "clientError(422)")
            XCTAssertEqual(error.metadata?.status, "E42")
            XCTAssertEqual(error.metadata?.message, "Quota exceeded")
            XCTAssertEqual(error.response?.statusCode, 200)
            XCTAssertEqual(error.statusCode, 422, "the status the error carries, as retry policies read it")
            XCTAssertTrue(error.description.hasPrefix("HTTP 422 Unprocessable Content (answered 200) — \"Quota exceeded\""),
                          error.description)
        }
    }

    func test_givenAnotherErrorThrown_whenValidated_thenDecodingFailedCarriesItAndTheResponse() {
        let client = client(
            NetworkClient.stubbing().body(json: #"{"ok":false}"#),
            validator: { response, _ in
                if (try? JSON(data: response.body))?["ok"].bool == false { throw AppError(code: "not ok") }
            })
        guard case .decodingFailed(let underlying, let response)? = networkError(settle(client.request(Request("x")))) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertEqual(underlying as? AppError, AppError(code: "not ok"))
        XCTAssertEqual(response.body, Data(#"{"ok":false}"#.utf8))
    }

    func test_givenAnErrorStatus_whenRequested_thenTheValidatorIsNotAskedAndTheStatusDecides() {
        let asked = SharedValue(0)
        let client = client(
            NetworkClient.stubbing().status(404).body(json: #"{"metadata":{"status":"E1"}}"#),
            validator: { _, _ in asked.withLock { $0 += 1 } })
        XCTAssertEqual(outcomeName(settle(client.request(Request("missing")))), "clientError(404)")
        XCTAssertEqual(asked.withLock { $0 }, 0)
    }

    func test_givenAValidatorError_whenPluginsListen_thenTheyHearTheFailure() {
        let plugin = RecordingPlugin()
        let client = client(
            NetworkClient.stubbing().body(json: #"{"metadata":{"status":"E9"}}"#), plugins: [plugin],
            validator: Self.metadataValidator)
        XCTAssertEqual(outcomeName(settle(client.request(Request("x")))), "clientError(422)")
        XCTAssertEqual(plugin.events, ["prepare x", "willSend", "didReceive clientError(422)"])
    }

    func test_givenARetryableErrorThrown_whenTheEndpointRetries_thenTheNextAttemptIsDelivered() async throws {
        let client = client(
            NetworkClient.stubbing().stub(.get, "flaky", sequence: [
                .json(#"{"metadata":{"status":"BUSY"}}"#), .json(#"{"metadata":{"status":"0000"},"name":"Grace"}"#),
            ]),
            validator: { response, _ in
                let metadata = ServerMetadata.parse(response)
                if metadata?.status == "BUSY" {
                    throw NetworkError.serverError(statusCode: 503, metadata: metadata, response: response)
                }
            })
        var request = Request<Profile>("flaky")
        request.retryPolicy = RetryPolicy(maximumRetryCount: 1, delayBeforeRetry: .milliseconds(1), jitter: 0)
        let profile = try await client.send(request)
        XCTAssertEqual(profile.name, "Grace")
    }

    func test_givenTheEndpoint_whenValidated_thenTheValidatorSeesTheCallersEndpoint() {
        let paths = SharedValue<[String]>([])
        let client = client(
            NetworkClient.stubbing().body(json: "{}"),
            validator: { _, endpoint in
                paths.withLock { $0.append("\(endpoint.path) \((endpoint as? Request<JSON>)?.method.rawValue ?? "?")") }
            })
        _ = settle(client.request(Request<JSON>.delete("items/1")))
        XCTAssertEqual(paths.withLock { $0 }, ["items/1 DELETE"])
    }
}
