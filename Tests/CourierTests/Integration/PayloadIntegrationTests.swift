import Courier
import Foundation
import Promises
import XCTest

/// Bodies in both directions against a real server: large downloads arrive intact, request bodies
/// and query items arrive as encoded, and the response size limit is enforced.
final class PayloadIntegrationTests: IntegrationTestCase {
    private struct LargeDocument: Decodable, Sendable {
        struct Item: Decodable, Sendable {
            let id: Int
            let name: String
            let active: Bool
            let tags: [String]
        }
        let count: Int
        let items: [Item]
    }

    private struct Greeting: Encodable, Sendable {
        let name: String
        let count: Int
    }

    func test_givenA1MiBBody_whenFetched_thenEveryByteArrives() throws {
        let client = try makeClient()
        let size = 1 << 20
        let response = try value(of: client.response(for: LiveJSONEndpoint(path: "bytes/\(size)")))
        XCTAssertEqual(response.body.count, size)
        let mismatch = response.body.enumerated().first { $0.element != UInt8($0.offset % 256) }
        XCTAssertNil(mismatch, "byte \(mismatch?.offset ?? -1) differs from the pattern")
    }

    func test_givenAHalfMegabyteJSONDocument_whenDecoded_thenEveryItemArrives() throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<LargeDocument>(path: "json/large", query: [.init(name: "kb", value: "512")])
        let document = try value(of: client.request(endpoint))
        XCTAssertGreaterThan(document.count, 1000)
        XCTAssertEqual(document.items.count, document.count)
        XCTAssertEqual(document.items.last?.name, "item-\(document.count - 1)")
    }

    func test_givenAnEndpointReturningHTTPResponse_thenTheRawResponseIsDelivered() throws {
        let client = try makeClient()
        let response = try value(of: client.request(LiveEndpoint<HTTPResponse>(path: "bytes/64")))
        XCTAssertEqual(response.body.count, 64)
        XCTAssertEqual(response.header("content-type"), "application/octet-stream")
    }

    func test_givenAJSONBody_whenPosted_thenTheServerReceivesItWithItsContentType() throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", method: .post,
                                                body: .json(Greeting(name: "courier", count: 3)))
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.method, "POST")
        XCTAssertEqual(echo.json?["name"].string, "courier")
        XCTAssertEqual(echo.json?["count"].int, 3)
        XCTAssertEqual(echo.header("Content-Type")?.hasPrefix("application/json"), true)
    }

    func test_givenAFormBody_whenPut_thenTheServerReceivesURLEncodedFields() throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", method: .put, body: .form(["q": "a b&c"]))
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.method, "PUT")
        XCTAssertEqual(echo.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded"), true)
        let decoded = echo.body.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        XCTAssertEqual(decoded, "q=a b&c")
    }

    func test_givenADataBody_whenDeleted_thenTheBytesArriveWithTheGivenContentType() throws {
        let client = try makeClient()
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", method: .delete,
                                          body: .data(Data("raw payload".utf8), contentType: "text/plain"))
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.method, "DELETE")
        XCTAssertEqual(echo.body, "raw payload")
        XCTAssertEqual(echo.header("Content-Type"), "text/plain")
    }

    func test_givenQueryItemsWithReservedCharacters_thenTheServerDecodesThemExactly() throws {
        let client = try makeClient()
        let query = [URLQueryItem(name: "plus", value: "1+1=2"), URLQueryItem(name: "space", value: "a b"),
                     URLQueryItem(name: "amp", value: "x&y")]
        let echo = try value(of: client.request(LiveEndpoint<ServerEcho>(path: "anything", query: query)))
        XCTAssertEqual(echo.query["plus"].string, "1+1=2")
        XCTAssertEqual(echo.query["space"].string, "a b")
        XCTAssertEqual(echo.query["amp"].string, "x&y")
    }

    func test_givenDefaultAndEndpointHeaders_thenTheEndpointWinsAndBothArrive() throws {
        let client = try makeClient {
            $0.defaultHeaders = ["Accept": "application/json", "X-Client": "courier", "X-Mode": "default"]
        }
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", headers: ["x-mode": "endpoint"])
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.header("X-Client"), "courier")
        XCTAssertEqual(echo.header("X-Mode"), "endpoint")
        XCTAssertEqual(echo.header("Accept"), "application/json")
    }

    func test_givenAResponseLargerThanTheLimit_thenTheRequestFails() throws {
        let client = try makeClient { $0.maximumResponseSize = 10_000 }
        let error = failure(of: client.response(for: LiveJSONEndpoint(path: "bytes/200000")))
        XCTAssertEqual(error.map(errorKind), "invalidRequest")
        XCTAssertTrue("\(error.map { String(describing: $0) } ?? "")".contains("10000"), "the reason names the limit")
    }

    /// The body keeps coming for up to a minute; the limit must end the request, not the deadline.
    /// (FoundationNetworking ignores the delegate's "cancel" answer to an oversized declared length:
    /// the transfer went on until the deadline, which then reported a retryable `.timedOut`.)
    func test_givenADeclaredLengthOverTheLimit_whenTheBodyKeepsComing_thenItFailsAsTooLargeNotTimedOut() throws {
        let client = try makeClient {
            $0.maximumResponseSize = 10_000
            $0.timeout = 30
        }
        for length in ["1000000", "none"] {
            let endpoint = LiveJSONEndpoint(path: "drip", query: [URLQueryItem(name: "length", value: length)])
            let error = failure(of: client.response(for: endpoint), within: 40)
            XCTAssertEqual(error.map(errorKind), "invalidRequest", "length \(length)")
            XCTAssertTrue(String(describing: error).contains("10000"), "the reason names the limit: \(String(describing: error))")
        }
    }

    /// A 304 (or a HEAD answer) may declare the size of the body it does not send (RFC 9110);
    /// that size is not a body over the limit.
    func test_givenABodilessStatusDeclaringALargeLength_thenTheLimitDoesNotApply() throws {
        struct Raw304: Endpoint {
            typealias Response = HTTPResponse
            var path: String { "raw" }
            var method: HTTPMethod { .post }
            var body: RequestBody {
                .data(Data("HTTP/1.1 304 Not Modified\r\nContent-Length: 100000000\r\nETag: \"v1\"\r\n\r\n".utf8),
                      contentType: "application/octet-stream")
            }
            var acceptedStatusCodes: StatusCodeSet { .successful.union([304]) }
        }
        let client = try makeClient { $0.maximumResponseSize = 10_000 }
        let response = try value(of: client.request(Raw304()))
        XCTAssertEqual(response.statusCode, 304)
        XCTAssertEqual(response.header("ETag"), "\"v1\"")
        XCTAssertTrue(response.body.isEmpty)
    }

    func test_givenAGzipEncodedBody_thenItArrivesDecompressed() throws {
        let client = try makeClient()
        let json = try value(of: client.request(LiveJSONEndpoint(path: "gzip")))
        XCTAssertEqual(json["gzipped"].bool, true)
    }

    /// The limit counts the body as it arrives decompressed, not the bytes on the wire: 64 KiB of
    /// gzip that inflate to 64 MiB (a "zip bomb") must not be held in memory.
    func test_givenAGzipBodyThatInflatesPastTheLimit_thenTheRequestFailsAsTooLarge() throws {
        let client = try makeClient { $0.maximumResponseSize = 1 << 20 }
        let bomb = LiveJSONEndpoint(path: "gzip", query: [URLQueryItem(name: "expand_mb", value: "64")])
        let error = failure(of: client.response(for: bomb), within: 20)
        XCTAssertEqual(error.map(errorKind), "invalidRequest")
        XCTAssertTrue(String(describing: error).contains("1048576"), "the reason names the limit: \(String(describing: error))")
    }

    func test_givenA1MiBUpload_thenTheServerReceivesEveryByte() throws {
        let client = try makeClient()
        let payload = Data((0..<(1 << 20)).map { UInt8(ascii: "a") + UInt8($0 % 26) })
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", method: .post,
                                                body: .data(payload, contentType: "text/plain"))
        let echo = try value(of: client.request(endpoint), within: 20)
        XCTAssertEqual(echo.body.utf8.count, payload.count)
        XCTAssertEqual(Data(echo.body.utf8), payload)
    }

    func test_givenAMultipartBody_thenTheServerReceivesEveryPart() throws {
        let client = try makeClient()
        var form = MultipartFormData()
        form.append("courier", name: "title")
        form.append(Data("file contents".utf8), name: "file", filename: "notes.txt", contentType: "text/plain")
        let endpoint = LiveEndpoint<ServerEcho>(path: "anything", method: .post, body: .multipart(form))
        let echo = try value(of: client.request(endpoint))
        XCTAssertEqual(echo.header("Content-Type"), form.contentType)
        XCTAssertTrue(echo.body.contains("name=\"title\""), echo.body)
        XCTAssertTrue(echo.body.contains("courier"), echo.body)
        XCTAssertTrue(echo.body.contains("filename=\"notes.txt\""), echo.body)
        XCTAssertTrue(echo.body.contains("file contents"), echo.body)
    }
}
