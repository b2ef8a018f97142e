import Courier
import Foundation
import Promises
import XCTest

/// A server that is not there, over a real socket: the caller can tell "unreachable" apart.
final class ConnectivityIntegrationTests: IntegrationTestCase {
    func test_givenAStoppedServer_whenRequested_thenTheErrorIsAConnectivityFailureWithItsURLError() throws {
        let gone = try TestServer.start()
        gone.stop()
        let client = NetworkClient(configuration: NetworkClient.Configuration(baseURL: gone.baseURL))
        let error = failure(of: client.request(LiveJSONEndpoint(path: "stats")))
        guard let networkError = error as? NetworkError else { return XCTFail("\(String(describing: error))") }
        XCTAssertTrue(networkError.isConnectivityFailure, "\(networkError)")
        XCTAssertEqual(networkError.urlError?.code, .cannotConnectToHost)
    }

    func test_givenAServerAnswering503_whenRequested_thenItIsNotAConnectivityFailure() throws {
        let client = try makeClient()
        let error = failure(of: client.request(LiveJSONEndpoint(path: "status/503")))
        XCTAssertEqual((error as? NetworkError)?.statusCode, 503)
        XCTAssertEqual((error as? NetworkError)?.isConnectivityFailure, false)
        XCTAssertNil((error as? NetworkError)?.urlError)
    }
}
