import Courier
import Foundation
import Promises
import XCTest

/// Every status class against a real server: success decodes, 4xx/5xx carry the server's metadata,
/// anything else is `unexpectedStatus`, and a body that does not decode is `decodingFailed`.
final class StatusIntegrationTests: IntegrationTestCase {
    /// `/status/<code>`, with `?body=<shape>` when given.
    private func status(_ code: Int, body shape: String? = nil) -> LiveJSONEndpoint {
        LiveJSONEndpoint(path: "status/\(code)", query: shape.map { [URLQueryItem(name: "body", value: $0)] } ?? [])
    }

    func test_given200JSON_whenRequested_thenItDecodesAsJSON() throws {
        let client = try makeClient()
        let endpoint = LiveJSONEndpoint(path: "anything/items", query: [URLQueryItem(name: "id", value: "7")])
        let json = try value(of: client.request(endpoint))
        XCTAssertEqual(json["method"].string, "GET")
        XCTAssertEqual(json["path"].string, "/anything/items")
        XCTAssertEqual(json["query"]["id"].string, "7")
    }

    /// An endpoint that accepts some statuses beyond 2xx (`Endpoint.acceptedStatusCodes`).
    private struct Accepting: Endpoint {
        typealias Response = HTTPResponse
        let code: Int
        let accepted: StatusCodeSet
        var path: String { "status/\(code)" }
        var acceptedStatusCodes: StatusCodeSet { accepted }
    }

    func test_givenAcceptedNon2xxStatuses_whenAnsweredOverURLSession_thenTheyAreResponses() throws {
        let client = try makeClient()
        let notModified = try value(of: client.request(Accepting(code: 304, accepted: .successful.union([304]))))
        XCTAssertEqual(notModified.statusCode, 304)
        let missing = try value(of: client.request(Accepting(code: 404, accepted: [200, 404])))
        XCTAssertEqual(missing.statusCode, 404)
        XCTAssertEqual(try JSON(data: missing.body)["metadata"]["desc"].string, "not found")
        let refused = failure(of: client.request(Accepting(code: 404, accepted: .successfulAndRedirection)))
        XCTAssertEqual(refused.map(errorKind), "clientError(404)")
    }

    func test_given201_thenItIsASuccess() throws {
        let client = try makeClient()
        let json = try value(of: client.request(status(201)))
        XCTAssertEqual(json["status"].int, 201)
    }

    func test_given204NoContent_thenJSONIsNull() throws {
        let client = try makeClient()
        let json = try value(of: client.request(status(204)))
        XCTAssertTrue(json.isNull)
    }

    func test_given404WithMetadataBody_thenClientErrorCarriesStatusAndDesc() throws {
        let client = try makeClient()
        let error = failure(of: client.request(status(404, body: "metadata")))
        XCTAssertEqual(error.map(errorKind), "clientError(404)")
        let networkError = error as? NetworkError
        XCTAssertEqual(networkError?.statusCode, 404)
        XCTAssertEqual(networkError?.metadata?.status, "404")
        XCTAssertEqual(networkError?.metadata?.message, "not found")
        XCTAssertEqual(networkError?.response?.statusCode, 404)
        XCTAssertEqual(networkError?.metadata?.body?["metadata"]["desc"].string, "not found")
    }

    func test_given503WithErrorBody_thenServerErrorCarriesCodeAndMessage() throws {
        let client = try makeClient()
        let error = failure(of: client.request(status(503, body: "error")))
        XCTAssertEqual(error.map(errorKind), "serverError(503)")
        XCTAssertEqual((error as? NetworkError)?.metadata?.status, "503")
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "service unavailable")
    }

    func test_given422WithMessageBody_thenClientErrorCarriesTheMessage() throws {
        let client = try makeClient()
        let error = failure(of: client.request(status(422, body: "message")))
        XCTAssertEqual(error.map(errorKind), "clientError(422)")
        XCTAssertEqual((error as? NetworkError)?.metadata?.message, "unprocessable entity")
    }

    func test_given500WithHTMLBody_thenServerErrorKeepsTheRawBody() throws {
        let client = try makeClient()
        let error = failure(of: client.request(status(500, body: "html")))
        XCTAssertEqual(error.map(errorKind), "serverError(500)")
        let body = (error as? NetworkError)?.response?.body ?? Data()
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("<h1>500"))
        XCTAssertNil((error as? NetworkError)?.metadata?.status)
    }

    func test_given502WithEmptyBody_thenServerErrorWithoutMetadataBody() throws {
        let client = try makeClient()
        let error = failure(of: client.request(status(502, body: "empty")))
        XCTAssertEqual(error.map(errorKind), "serverError(502)")
        XCTAssertNil((error as? NetworkError)?.metadata?.body)
    }

    func test_given300WithoutLocation_thenUnexpectedStatus() throws {
        let client = try makeClient()
        let error = failure(of: client.request(status(300)))
        XCTAssertEqual(error.map(errorKind), "unexpectedStatus(300)")
    }

    func test_givenACustomErrorMetadataParser_thenItsResultIsAttached() throws {
        let client = try makeClient { configuration in
            configuration.errorMetadataParser = { response in
                ServerMetadata(status: "custom-\(response.statusCode)", message: nil, body: nil)
            }
        }
        let error = failure(of: client.request(status(409)))
        XCTAssertEqual((error as? NetworkError)?.metadata?.status, "custom-409")
    }

    func test_givenAnHTMLSuccessBody_whenDecodingAStruct_thenDecodingFailedKeepsTheResponse() throws {
        struct Profile: Decodable, Sendable { let name: String }
        let client = try makeClient()
        let endpoint = LiveEndpoint<Profile>(path: "status/200", query: [.init(name: "body", value: "html")])
        let error = failure(of: client.request(endpoint))
        XCTAssertEqual(error.map(errorKind), "decodingFailed")
        XCTAssertEqual((error as? NetworkError)?.response?.statusCode, 200)
    }

    func test_givenAnErrorStatus_whenAskingForTheResponse_thenItIsStillClassified() throws {
        let client = try makeClient()
        let error = failure(of: client.response(for: status(418)))
        XCTAssertEqual(error.map(errorKind), "clientError(418)")
    }
}
