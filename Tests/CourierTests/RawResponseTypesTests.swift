import Foundation
import XCTest
@testable import Courier
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Data`, `String` and optional responses: the raw body, its text, and `nil` for an empty body.
final class RawResponseTypesTests: XCTestCase {
    private struct User: Codable, Sendable, Equatable { let name: String }

    private let bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF, 0xFE, 0x7B])  // not UTF-8, not JSON

    private func client(_ routes: [(String, StubResponse)]) -> NetworkClient {
        routes.reduce(NetworkClient.stubbing()) { builder, route in builder.stub(.get, route.0, route.1) }.makeClient()
    }

    func test_givenBinaryBody_whenResponseIsData_thenTheBytesArriveUnchangedInEveryStyle() async throws {
        let client = client([("logo", StubResponse(headers: ["Content-Type": "image/png"], body: bytes))])
        XCTAssertEqual(try XCTUnwrap(settle(client.request(Request<Data>("logo")))).get(), bytes)
        let sent = try await client.send(Request<Data>("logo"))
        XCTAssertEqual(sent, bytes)
        let done = expectation(description: "completion")
        let received = SharedValue<Data?>(nil)
        client.request(Request<Data>("logo")) { result in
            received.withLock { $0 = try? result.get() }
            done.fulfill()
        }
        await fulfillment(of: [done], timeout: 5)
        XCTAssertEqual(received.withLock { $0 }, bytes)
    }

    func test_givenTextWithCharsets_whenResponseIsString_thenEachIsDecodedWithItsCharset() async throws {
        let cafe = "café €"
        let client = client([
            ("plain", StubResponse(headers: ["Content-Type": "text/plain"], body: Data(cafe.utf8))),
            ("latin1", StubResponse(headers: ["content-type": "text/plain; Charset=\"ISO-8859-1\""], body: Data([0x63, 0x61, 0x66, 0xE9]))),
            ("utf16", StubResponse(headers: ["Content-Type": "text/plain;charset=utf-16le"], body: try XCTUnwrap(cafe.data(using: .utf16LittleEndian)))),
            ("json", .json(#""quoted""#)),
        ])
        let plain = try await client.send(Request<String>("plain"))
        XCTAssertEqual(plain, cafe)
        let latin1 = try await client.send(Request<String>("latin1"))
        XCTAssertEqual(latin1, "café")
        let utf16 = try await client.send(Request<String>("utf16"))
        XCTAssertEqual(utf16, cafe)
        let json = try await client.send(Request<String>("json"))
        XCTAssertEqual(json, #""quoted""#, "a String response is the raw text, not a decoded JSON string")
    }

    func test_givenBytesThatAreNotUTF8_whenResponseIsString_thenDecodingFailedCarriesTheResponse() {
        let client = client([("bad", StubResponse(headers: ["Content-Type": "text/plain"], body: bytes))])
        guard case .decodingFailed(let underlying, let response)? = networkError(settle(client.request(Request<String>("bad")))) else {
            return XCTFail("expected decodingFailed")
        }
        XCTAssertTrue(underlying is UndecodableText)
        XCTAssertEqual(response.body, bytes)
    }

    func test_givenAnEmptyBody_whenResponseIsOptional_thenNil() async throws {
        let client = client([
            ("gone", StubResponse(status: 204)),
            ("user", .json(#"{"name":"Ada"}"#)),
            ("null", .json("null")),
            ("text", StubResponse(body: Data("hi".utf8))),
        ])
        let none = try await client.send(Request<User?>("gone"))
        XCTAssertNil(none)
        let user = try await client.send(Request<User?>("user"))
        XCTAssertEqual(user, User(name: "Ada"))
        let null = try await client.send(Request<User?>("null"))
        XCTAssertNil(null)
        let noText = try await client.send(Request<String?>("gone"))
        XCTAssertNil(noText)
        let text = try await client.send(Request<String?>("text"))
        XCTAssertEqual(text, "hi")
        let noData = try await client.send(Request<Data?>("gone"))
        XCTAssertNil(noData)
    }

    func test_givenABodyThatIsNotTheWrappedType_whenResponseIsOptional_thenDecodingFailed() {
        let client = client([("user", .json(#"{"nom":"Ada"}"#))])
        guard case .decodingFailed? = networkError(settle(client.request(Request<User?>("user")))) else {
            return XCTFail("expected decodingFailed: an optional is nil only for an empty body or null")
        }
    }

    func test_givenWithHTTPResponse_whenValueIsStringOrOptional_thenTheSameRulesApply() async throws {
        let client = client([
            ("text", StubResponse(headers: ["ETag": "\"v1\""], body: Data("hello".utf8))),
            ("gone", StubResponse(status: 204)),
        ])
        let text = try await client.send(Request<String>("text").withHTTPResponse())
        XCTAssertEqual(text.value, "hello")
        XCTAssertEqual(text.header("etag"), "\"v1\"")
        let gone = try await client.send(Request<User?>("gone").withHTTPResponse())
        XCTAssertNil(gone.value)
        XCTAssertEqual(gone.statusCode, 204)
    }

    func test_givenContentTypes_whenTextIsRead_thenTheCharsetPicksTheEncoding() {
        func text(_ contentType: String?, _ body: Data) -> String? {
            HTTPResponse(statusCode: 200, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: body).text
        }
        XCTAssertEqual(text(nil, Data("ü".utf8)), "ü")
        XCTAssertEqual(text("text/html; charset=windows-1252", Data([0x80])), "€")
        XCTAssertEqual(text("text/plain; format=flowed; charset = latin1", Data([0xFC])), "ü")
        XCTAssertEqual(text("text/plain; charset=x-unknown", Data("ok".utf8)), "ok", "an unknown charset falls back to UTF-8")
        XCTAssertNil(text("text/plain; charset=us-ascii", Data([0xC3, 0xBC])))
        XCTAssertNil(text("text/plain", Data([0xFF])))
    }
}
