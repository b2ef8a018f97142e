import Foundation
import Promises
import XCTest
@testable import Courier
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class NetworkErrorTests: XCTestCase {
    private let url = URL(string: "https://api.example.com/users/9?access_token=SECRET1&page=2")
    private func response(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8), url: url)
    }

    // MARK: classify

    func test_givenStatus_whenClassified_thenCaseMatchesRange() {
        let table: [(Int, String)] = [
            (200, "success"), (204, "success"), (299, "success"),
            (400, "client"), (404, "client"), (499, "client"),
            (500, "server"), (503, "server"), (599, "server"),
            (0, "unexpected"), (100, "unexpected"), (199, "unexpected"), (301, "unexpected"), (304, "unexpected"),
            (399, "unexpected"), (600, "unexpected"), (-1, "unexpected"), (999, "unexpected"),
        ]
        for (status, expected) in table {
            let error = NetworkError.classify(response(status), parser: ServerMetadata.parse)
            let kind: String
            switch error {
            case nil: kind = "success"
            case .clientError(let code, _, let carried)?:
                kind = "client"; XCTAssertEqual(code, status); XCTAssertEqual(carried.statusCode, status)
            case .serverError(let code, _, let carried)?:
                kind = "server"; XCTAssertEqual(code, status); XCTAssertEqual(carried.statusCode, status)
            case .unexpectedStatus(let code, let carried)?:
                kind = "unexpected"; XCTAssertEqual(code, status); XCTAssertEqual(carried.statusCode, status)
            default: kind = "other"
            }
            XCTAssertEqual(kind, expected, "status \(status)")
        }
    }

    func test_givenErrorStatus_whenClassified_thenParserMetadataAttached() {
        let body = #"{"metadata": {"status": "USR404", "desc": "User not found"}}"#
        let error = NetworkError.classify(response(404, body), parser: ServerMetadata.parse)
        XCTAssertEqual(error?.metadata?.status, "USR404")
        XCTAssertEqual(error?.statusCode, 404)
        XCTAssertEqual(error?.response?.body, Data(body.utf8))
        let custom = NetworkError.classify(response(500)) { _ in ServerMetadata(status: "X", message: nil, body: nil) }
        XCTAssertEqual(custom?.metadata?.status, "X")
    }

    func test_givenSuccess_whenClassified_thenParserNotCalled() {
        let error = NetworkError.classify(response(200)) { _ in
            XCTFail("parser must not run for a success")
            return nil
        }
        XCTAssertNil(error)
    }

    // MARK: fromTransport

    func test_givenTransportErrors_whenMapped_thenTimeoutsCancellationsAndOthersSeparated() {
        struct Offline: Error {}
        let table: [(any Error, String)] = [
            (URLError(.timedOut), "timedOut"), (PromiseError.timedOut, "timedOut"),
            (URLError(.cancelled), "cancelled"), (CancellationError(), "cancelled"), (PromiseError.cancelled, "cancelled"),
            (URLError(.notConnectedToInternet), "transport"), (URLError(.cannotConnectToHost), "transport"),
            (Offline(), "transport"), (PromiseError.resolverReleased, "transport"),
            (NetworkError.invalidRequest(reason: "r"), "invalidRequest"),
            (NetworkError.clientError(statusCode: 404, metadata: nil, response: response(404)), "clientError"),
        ]
        for (input, expected) in table {
            let kind: String
            switch NetworkError.fromTransport(input) {
            case .timedOut: kind = "timedOut"
            case .cancelled: kind = "cancelled"
            case .transport(let underlying): kind = "transport"; XCTAssertEqual("\(underlying)", "\(input)")
            case .invalidRequest: kind = "invalidRequest"
            case .clientError: kind = "clientError"
            default: kind = "other"
            }
            XCTAssertEqual(kind, expected, "\(input)")
        }
    }

    // MARK: computed properties and cancellation

    func test_givenEachCase_whenComputedPropertiesRead_thenOnlyResponseCasesAnswer() {
        let metadata = ServerMetadata(status: "S", message: "M", body: nil)
        let withResponse: [NetworkError] = [
            .clientError(statusCode: 418, metadata: metadata, response: response(418)),
            .serverError(statusCode: 418, metadata: metadata, response: response(418)),
            .unexpectedStatus(statusCode: 418, response: response(418)),
            .decodingFailed(underlying: URLError(.cannotDecodeContentData), response: response(418)),
        ]
        for error in withResponse {
            XCTAssertEqual(error.statusCode, 418, "\(error)")
            XCTAssertEqual(error.response, response(418), "\(error)")
        }
        XCTAssertEqual(withResponse[0].metadata, metadata)
        XCTAssertEqual(withResponse[1].metadata, metadata)
        XCTAssertNil(withResponse[2].metadata)
        let without: [NetworkError] = [.transport(underlying: URLError(.badURL)), .timedOut, .cancelled,
                                       .authenticationFailed(underlying: URLError(.badURL)), .invalidRequest(reason: "x")]
        for error in without {
            XCTAssertNil(error.statusCode)
            XCTAssertNil(error.response)
            XCTAssertNil(error.metadata)
        }
    }

    func test_givenCancelled_whenAskedIsCancelled_thenOnlyCancelledSaysYes() {
        XCTAssertTrue(NetworkError.cancelled.isCancelled)
        XCTAssertTrue(isCancellation(NetworkError.cancelled))
        XCTAssertFalse(NetworkError.timedOut.isCancelled)
        XCTAssertFalse(isCancellation(NetworkError.transport(underlying: URLError(.cancelled))))
    }

    // MARK: descriptions

    func test_givenClientErrorWithMetadata_whenDescribed_thenReadableLineWithRedactedURL() {
        let body = #"{"metadata": {"status": "USR404", "desc": "User not found"}}"#
        let error = NetworkError.classify(response(404, body), parser: ServerMetadata.parse)
        XCTAssertEqual(error?.description,
                       #"HTTP 404 Not Found — "User not found" (status "USR404") https://api.example.com/users/9?access_token=<redacted>&page=2"#)
        XCTAssertEqual(error?.localizedDescription, error?.description)
    }

    func test_givenLongNonJSONBody_whenDescribed_thenCutToAbout200Characters() {
        let html = "<html>\n<body>" + String(repeating: "x", count: 5_000) + "</body></html>"
        let error = NetworkError.classify(response(502, html), parser: ServerMetadata.parse)
        let text = error?.description ?? ""
        XCTAssertTrue(text.hasPrefix("HTTP 502 Bad Gateway — body: <html> <body>xxx"), text)
        XCTAssertLessThan(text.count, 320, text)
        XCTAssertTrue(text.contains("…"), text)
    }

    func test_givenJSONBodyWithSecrets_whenDescribed_thenSecretMembersRedacted() {
        let body = #"{"access_token": "SECRET2", "detail2": {"refresh_token": "SECRET3"}, "reason": "expired"}"#
        let error = NetworkError.classify(response(401, body), parser: ServerMetadata.parse)
        let text = error?.description ?? ""
        XCTAssertFalse(text.contains("SECRET"), text)
        XCTAssertTrue(text.contains("expired"), text)
    }

    func test_givenEveryCase_whenDescribed_thenNoSecretsAndMeaningfulText() {
        struct RefreshDenied: Error {}
        var failing = URLError(.notConnectedToInternet)
        if let url { failing = URLError(.notConnectedToInternet, userInfo: [NSURLErrorFailingURLErrorKey: url]) }
        let decoding = DecodingError.keyNotFound(
            AnyKey("id"), .init(codingPath: [AnyKey("data"), AnyKey(0)], debugDescription: "missing"))
        let table: [(NetworkError, String)] = [
            (.unexpectedStatus(statusCode: 302, response: response(302)), "HTTP 302 Found"),
            (.serverError(statusCode: 503, metadata: nil, response: response(503)), "HTTP 503 Service Unavailable"),
            (.decodingFailed(underlying: decoding, response: response(200, "{}")), #"missing key "id" at data.[0]"#),
            (.transport(underlying: failing), "URLError \(URLError.Code.notConnectedToInternet.rawValue)"),
            (.timedOut, "timed out"), (.cancelled, "cancelled"),
            (.authenticationFailed(underlying: RefreshDenied()), "RefreshDenied"),
            (.invalidRequest(reason: "bad path"), "Invalid request: bad path"),
        ]
        for (error, expected) in table {
            XCTAssertTrue(error.description.contains(expected), error.description)
            XCTAssertFalse(error.description.contains("SECRET"), error.description)
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int?
        init(_ string: String) { stringValue = string }
        init(_ int: Int) { stringValue = "\(int)"; intValue = int }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { self.init(intValue) }
    }
}
