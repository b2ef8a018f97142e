import Courier
import Foundation
import Promises
import XCTest

/// Stubs and the network produce the same shapes: the same endpoint answered by the real server
/// and by a stub with the same status and body ends in the same error, metadata and value.
final class ParityIntegrationTests: IntegrationTestCase {
    /// The same request through the real server and through a stub answering with `stub`.
    private func bothWays<T: Sendable>(_ endpoint: LiveEndpoint<T>, stub: StubResponse)
        throws -> (network: Result<T, any Error>?, stubbed: Result<T, any Error>?) {
        let network = try makeClient()
        let stubbed = NetworkClient.stubbing().stub(endpoint.method, endpoint.path, stub)
            .makeClient(configuration: NetworkClient.Configuration(baseURL: try server.baseURL))
        return (settle(network.request(endpoint)), settle(stubbed.request(endpoint)))
    }

    private func failures<T>(_ pair: (network: Result<T, any Error>?, stubbed: Result<T, any Error>?))
        -> (NetworkError?, NetworkError?) {
        func error(_ result: Result<T, any Error>?) -> NetworkError? {
            if case .failure(let error)? = result { return error as? NetworkError }
            return nil
        }
        return (error(pair.network), error(pair.stubbed))
    }

    func test_givenA404MetadataBody_thenNetworkAndStubGiveTheSameClientError() throws {
        let endpoint = LiveJSONEndpoint(path: "status/404")
        let (network, stubbed) = failures(try bothWays(
            endpoint, stub: .json(#"{"metadata":{"status":"404","desc":"not found"}}"#, status: 404)))
        XCTAssertEqual(network.map(errorKind), "clientError(404)")
        XCTAssertEqual(stubbed.map(errorKind), "clientError(404)")
        XCTAssertEqual(network?.metadata, stubbed?.metadata)
        XCTAssertEqual(network?.metadata?.message, "not found")
    }

    func test_givenA503ErrorBody_thenNetworkAndStubGiveTheSameServerError() throws {
        let endpoint = LiveJSONEndpoint(path: "status/503", query: [.init(name: "body", value: "error")])
        let (network, stubbed) = failures(try bothWays(
            endpoint, stub: .json(#"{"error":{"code":503,"message":"service unavailable"}}"#, status: 503)))
        XCTAssertEqual(network.map(errorKind), "serverError(503)")
        XCTAssertEqual(stubbed.map(errorKind), "serverError(503)")
        for error in [network, stubbed] {
            XCTAssertEqual(error?.metadata?.status, "503")
            XCTAssertEqual(error?.metadata?.message, "service unavailable")
        }
    }

    func test_givenASuccessBody_thenNetworkAndStubDecodeTheSameValue() throws {
        let endpoint = LiveJSONEndpoint(path: "status/200")
        let pair = try bothWays(endpoint, stub: .json(#"{"status":200}"#))
        XCTAssertEqual(try pair.network?.get(), try pair.stubbed?.get())
        XCTAssertEqual(try pair.network?.get()["status"].int, 200)
    }

    func test_givenASlowAnswer_thenNetworkAndStubBothTimeOutAtTheDeadline() throws {
        let endpoint = LiveJSONEndpoint(path: "delay/3", timeout: 0.3)
        let (network, stubbed) = failures(try bothWays(endpoint, stub: StubResponse(status: 200, delay: 3)))
        XCTAssertEqual(network.map(errorKind), "timedOut")
        XCTAssertEqual(stubbed.map(errorKind), "timedOut")
    }
}
