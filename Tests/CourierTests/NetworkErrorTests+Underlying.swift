import Foundation
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `underlyingError`, `urlError` and `isConnectivityFailure`.
final class NetworkErrorUnderlyingTests: XCTestCase {
    private let response = HTTPResponse(statusCode: 500, headers: [:], body: Data(), url: nil)

    func test_givenEachCase_whenAskedForTheUnderlyingError_thenOnlyWrappingCasesHaveOne() {
        struct Refresh: Error {}
        let decoding = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad"))
        XCTAssertEqual(NetworkError.transport(underlying: URLError(.badURL)).underlyingError as? URLError, URLError(.badURL))
        XCTAssertNotNil(NetworkError.decodingFailed(underlying: decoding, response: response).underlyingError as? DecodingError)
        XCTAssertTrue(NetworkError.authenticationFailed(underlying: Refresh()).underlyingError is Refresh)
        let without: [NetworkError] = [
            .clientError(statusCode: 404, metadata: nil, response: response),
            .serverError(statusCode: 500, metadata: nil, response: response),
            .unexpectedStatus(statusCode: 302, response: response), .timedOut, .cancelled, .invalidRequest(reason: "r"),
        ]
        for error in without { XCTAssertNil(error.underlyingError, "\(error)") }
    }

    func test_givenURLErrorsAndNSErrorsInTheURLDomain_whenRead_thenBothGiveTheURLError() {
        XCTAssertEqual(NetworkError.transport(underlying: URLError(.secureConnectionFailed)).urlError?.code, .secureConnectionFailed)
        let nsError = NSError(domain: NSURLErrorDomain, code: URLError.Code.notConnectedToInternet.rawValue,
                              userInfo: [NSLocalizedDescriptionKey: "offline"])
        let converted = NetworkError.transport(underlying: nsError).urlError
        XCTAssertEqual(converted?.code, .notConnectedToInternet)
        XCTAssertEqual(converted?.localizedDescription, "offline", "the user info is kept")
        XCTAssertEqual(NetworkError.authenticationFailed(underlying: URLError(.serverCertificateUntrusted)).urlError?.code,
                       .serverCertificateUntrusted)
        XCTAssertNil(NetworkError.transport(underlying: NSError(domain: "Other", code: -1009)).urlError, "another domain")
        XCTAssertNil(NetworkError.decodingFailed(underlying: CocoaError(.fileNoSuchFile), response: response).urlError)
    }

    func test_givenTransportFailures_whenAskedIfConnectivity_thenOnlyUnreachableServersAre() {
        for code in NetworkError.connectivityFailureCodes {
            XCTAssertTrue(NetworkError.transport(underlying: URLError(code)).isConnectivityFailure, "\(code)")
        }
        let otherTransport: [URLError.Code] = [.secureConnectionFailed, .serverCertificateUntrusted, .badURL,
                                               .httpTooManyRedirects, .cannotParseResponse, .unknown]
        for code in otherTransport {
            XCTAssertFalse(NetworkError.transport(underlying: URLError(code)).isConnectivityFailure, "\(code)")
        }
        XCTAssertFalse(NetworkError.authenticationFailed(underlying: URLError(.notConnectedToInternet)).isConnectivityFailure,
                       "only a transport failure counts")
        XCTAssertFalse(NetworkError.timedOut.isConnectivityFailure)
        XCTAssertFalse(NetworkError.serverError(statusCode: 503, metadata: nil, response: response).isConnectivityFailure)
        let nsOffline = NSError(domain: NSURLErrorDomain, code: URLError.Code.notConnectedToInternet.rawValue)
        XCTAssertTrue(NetworkError.transport(underlying: nsOffline).isConnectivityFailure)
    }

    func test_givenAStubbedOfflineFailure_whenRequested_thenTheCallerSeesAConnectivityFailure() throws {
        let client = NetworkClient.stubbing().failure(URLError(.notConnectedToInternet)).makeClient()
        let result = settle(client.request(Request<JSON>("feed")))
        guard case .failure(let error as NetworkError)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertTrue(error.isConnectivityFailure, "\(error)")
        XCTAssertEqual(error.urlError?.code, .notConnectedToInternet)
    }
}
