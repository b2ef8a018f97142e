import Foundation
import XCTest
@testable import Courier

final class RequestBodyTests: XCTestCase {
    private struct User: Encodable, Sendable { let name: String; let joinedAt: Date }
    private struct Exploding: Encodable, Sendable {
        struct Boom: Error {}
        func encode(to encoder: any Encoder) throws { throw Boom() }
    }
    private struct Measurement: Encodable, Sendable { let value: Double }

    func test_givenNone_whenEncoded_thenNoDataNoContentType() throws {
        let encoded = try RequestBody.none.encoded(using: JSONEncoder())
        XCTAssertNil(encoded.data)
        XCTAssertNil(encoded.contentType)
    }

    func test_givenJSON_whenEncoded_thenUsesClientsEncoderAndJSONContentType() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        let body = RequestBody.json(User(name: "Ada", joinedAt: Date(timeIntervalSince1970: 100)))
        let encoded = try body.encoded(using: encoder)
        XCTAssertEqual(encoded.contentType, "application/json")
        let json = try JSON(data: XCTUnwrap(encoded.data))
        XCTAssertEqual(json, ["name": "Ada", "joined_at": 100])
    }

    func test_givenData_whenEncoded_thenBytesAndContentTypeUnchanged() throws {
        let bytes = Data([0, 1, 2, 255])
        let encoded = try RequestBody.data(bytes, contentType: "image/png").encoded(using: JSONEncoder())
        XCTAssertEqual(encoded.data, bytes)
        XCTAssertEqual(encoded.contentType, "image/png")
    }

    func test_givenForm_whenEncoded_thenSortedAndPercentEncoded() throws {
        let body = RequestBody.form(["q": "swift promises", "b": "1&2=3+4", "a": "żółw/?#", "é key": "~._-"])
        let encoded = try body.encoded(using: JSONEncoder())
        XCTAssertEqual(encoded.contentType, "application/x-www-form-urlencoded")
        let text = try XCTUnwrap(encoded.data.flatMap { String(data: $0, encoding: .utf8) })
        XCTAssertEqual(text, "a=%C5%BC%C3%B3%C5%82w%2F%3F%23&b=1%262%3D3%2B4&q=swift%20promises&%C3%A9%20key=~._-")
    }

    func test_givenFormItems_whenEncoded_thenOrderAndRepeatsAreKeptAndNilIsABareName() throws {
        let body = RequestBody.form([
            URLQueryItem(name: "z", value: "last&first"), URLQueryItem(name: "tags[]", value: "a b"),
            URLQueryItem(name: "tags[]", value: "c+d"), URLQueryItem(name: "flag", value: nil),
            URLQueryItem(name: "empty", value: ""),
        ])
        let encoded = try body.encoded(using: JSONEncoder())
        XCTAssertEqual(encoded.contentType, "application/x-www-form-urlencoded")
        let text = try XCTUnwrap(encoded.data.flatMap { String(data: $0, encoding: .utf8) })
        XCTAssertEqual(text, "z=last%26first&tags%5B%5D=a%20b&tags%5B%5D=c%2Bd&flag&empty=")
    }

    func test_givenFormItems_whenLoggedAsCurl_thenCredentialFieldsAreRedacted() throws {
        let client = NetworkClient(baseURL: try XCTUnwrap(URL(string: "https://api.example.com")))
        struct Login: Endpoint {
            var path: String { "login" }
            var method: HTTPMethod { .post }
            var body: RequestBody {
                .form([URLQueryItem(name: "user", value: "ada"), URLQueryItem(name: "password", value: "hunter2")])
            }
        }
        let curl = try client.curlCommand(for: Login())
        XCTAssertFalse(curl.contains("hunter2"), curl)
        XCTAssertTrue(curl.contains("user=ada"), curl)
    }

    func test_givenEmptyForm_whenEncoded_thenEmptyBody() throws {
        let encoded = try RequestBody.form([:]).encoded(using: JSONEncoder())
        XCTAssertEqual(encoded.data, Data())
    }

    func test_givenNonFiniteNumber_whenEncodedAsJSON_thenInvalidRequestNamingProblem() {
        XCTAssertThrowsError(try RequestBody.json(Measurement(value: .nan)).encoded(using: JSONEncoder())) { error in
            guard case NetworkError.invalidRequest(let reason) = error else {
                return XCTFail("expected invalidRequest, got \(error)")
            }
            XCTAssertTrue(reason.contains("Measurement"), reason)
            XCTAssertTrue(reason.contains("value"), reason)
        }
    }

    func test_givenThrowingEncodable_whenEncodedAsJSON_thenInvalidRequest() {
        XCTAssertThrowsError(try RequestBody.json(Exploding()).encoded(using: JSONEncoder())) { error in
            guard case NetworkError.invalidRequest(let reason) = error else {
                return XCTFail("expected invalidRequest, got \(error)")
            }
            XCTAssertTrue(reason.contains("Exploding"), reason)
            XCTAssertTrue(reason.contains("Boom"), reason)
        }
    }

    func test_givenMultipart_whenEncoded_thenFramedPartsAndBoundaryContentType() throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.append("Ada", name: "name")
        form.append(Data([1, 2]), name: "avatar", filename: "a\"b.png", contentType: "image/png")
        let encoded = try RequestBody.multipart(form).encoded(using: JSONEncoder())
        XCTAssertEqual(encoded.contentType, "multipart/form-data; boundary=XyZ")
        var expected = Data("""
        --XyZ\r
        Content-Disposition: form-data; name="name"\r
        \r
        Ada\r
        --XyZ\r
        Content-Disposition: form-data; name="avatar"; filename="a%22b.png"\r
        Content-Type: image/png\r
        \r

        """.utf8)
        expected.append(Data([1, 2]))
        expected.append(Data("\r\n--XyZ--\r\n".utf8))
        XCTAssertEqual(encoded.data, expected)
    }

    func test_givenDefaultBoundary_whenCreated_thenRandomAndUnique() throws {
        let first = MultipartFormData(), second = MultipartFormData()
        XCTAssertNotEqual(first.boundary, second.boundary)
        XCTAssertTrue(first.boundary.hasPrefix("courier-"))
        XCTAssertEqual(try first.encoded(), Data("--\(first.boundary)--\r\n".utf8))
    }

    func test_givenFieldNameWithLineBreak_whenEncoded_thenCannotInjectHeaders() throws {
        var form = MultipartFormData(boundary: "B")
        form.append("v", name: "x\r\nContent-Type: evil")
        let text = try XCTUnwrap(String(data: form.encoded(), encoding: .utf8))
        XCTAssertTrue(text.contains(#"name="x%0D%0AContent-Type: evil""#), text)
        XCTAssertFalse(text.contains("\r\nContent-Type: evil"), text)
    }

    /// A CR LF pair in a part's content type (or name) must not add a header to the part: as
    /// `Character`s, "\r\n" is one character, which a per-character filter for "\r" and "\n" misses.
    func test_givenLineBreaksInAPartsContentTypeAndName_whenEncoded_thenNoHeaderIsInjected() throws {
        var form = MultipartFormData(boundary: "XyZ")
        form.append(Data("x".utf8), name: "f\r\nX-Name: 1", filename: "a\r\nb",
                    contentType: "text/plain\r\nX-Injected: 1\u{0}")
        let text = String(decoding: try form.encoded(), as: UTF8.self)
        XCTAssertFalse(text.contains("\r\nX-Injected"), text.debugDescription)
        XCTAssertFalse(text.contains("\r\nX-Name"), text.debugDescription)
        XCTAssertFalse(text.contains("\u{0}"), text.debugDescription)
        XCTAssertTrue(text.contains("Content-Type: text/plainX-Injected: 1\r\n"), text.debugDescription)
        XCTAssertTrue(text.contains("name=\"f%0D%0AX-Name: 1\"; filename=\"a%0D%0Ab\""), text.debugDescription)
    }
}
