import Foundation
import XCTest
@testable import Courier

final class ServerMetadataTests: XCTestCase {
    private func parse(_ body: String, status: Int = 400) -> ServerMetadata? {
        ServerMetadata.parse(HTTPResponse(statusCode: status, body: Data(body.utf8)))
    }

    func test_givenEachSupportedShape_whenParsed_thenStatusAndMessageFound() {
        let table: [(body: String, status: String?, message: String?)] = [
            (#"{"metadata": {"status": "USR404", "desc": "User not found"}}"#, "USR404", "User not found"),
            (#"{"metadata": {"status": 404, "desc": "User not found"}}"#, "404", "User not found"),
            (#"{"metadata": {"status": "E1", "message": "alt message"}}"#, "E1", "alt message"),
            (#"{"error": {"code": 1042, "message": "Quota exceeded"}}"#, "1042", "Quota exceeded"),
            (#"{"error": {"code": "QUOTA", "message": "Quota exceeded"}}"#, "QUOTA", "Quota exceeded"),
            (#"{"error": {"status": "DENIED"}}"#, "DENIED", nil),
            (#"{"error": "invalid_grant"}"#, nil, "invalid_grant"),
            (#"{"error": "invalid_grant", "code": 7}"#, "7", "invalid_grant"),
            (#"{"message": "Slow down"}"#, nil, "Slow down"),
            (#"{"message": "Slow down", "status": 429}"#, "429", "Slow down"),
            (#"{"detail": "Not authenticated", "status": "401"}"#, "401", "Not authenticated"),
            (#"{"status": 12.5}"#, "12.5", nil),
        ]
        for row in table {
            let metadata = parse(row.body)
            XCTAssertNotNil(metadata, row.body)
            XCTAssertEqual(metadata?.status, row.status, row.body)
            XCTAssertEqual(metadata?.message, row.message, row.body)
        }
    }

    func test_givenJSONBody_whenParsed_thenWholeBodyKept() throws {
        let body = #"{"metadata": {"status": "USR404", "desc": "User not found"}, "trace": "abc"}"#
        let metadata = try XCTUnwrap(parse(body))
        XCTAssertEqual(metadata.body?["trace"].string, "abc")
        XCTAssertEqual(metadata.body, try JSON(data: Data(body.utf8)))
    }

    func test_givenNonJSONBody_whenParsed_thenNilWithoutCrash() {
        let html = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
        XCTAssertNil(parse(html, status: 502))
        XCTAssertNil(parse("", status: 500))
        XCTAssertNil(parse("Internal Server Error", status: 500))
        XCTAssertNil(ServerMetadata.parse(HTTPResponse(statusCode: 500, body: Data([0xFF, 0xFE, 0x00]))))
    }

    func test_givenJSONOfAnotherShape_whenParsed_thenFieldsNilButBodyKept() {
        let table = [#"{"errors": [{"reason": "x"}]}"#, "[1, 2]", #""just text""#, "42", #"{"metadata": "flat"}"#,
                     #"{"error": {"code": null, "message": 5}}"#]
        for body in table {
            let metadata = parse(body)
            XCTAssertNil(metadata?.status, body)
            XCTAssertNil(metadata?.message, body)
            XCTAssertNotNil(metadata?.body, body)
        }
    }

    func test_givenMetadataAndErrorBoth_whenParsed_thenMetadataWins() {
        let metadata = parse(#"{"metadata": {"status": "M", "desc": "from metadata"}, "error": {"code": "E", "message": "from error"}}"#)
        XCTAssertEqual(metadata?.status, "M")
        XCTAssertEqual(metadata?.message, "from metadata")
    }

    func test_givenMemberwiseValues_whenCompared_thenEquatable() {
        XCTAssertEqual(ServerMetadata(status: "1", message: "m", body: nil), ServerMetadata(status: "1", message: "m", body: nil))
        XCTAssertNotEqual(ServerMetadata(status: "1", message: "m", body: nil), ServerMetadata(status: "2", message: "m", body: nil))
    }
}
