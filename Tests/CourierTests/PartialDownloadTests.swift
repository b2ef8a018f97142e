import Foundation
import XCTest
@testable import Courier

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which responses a download may be resumed from, and which answers resume it: the rules a
/// retry relies on to append the rest of a body to the start it saved, and never another body.
final class PartialDownloadTests: XCTestCase {
    private let request = URLRequest(url: URL(string: "http://127.0.0.1/file")!)
    private let partial = PartialDownload(fileURL: URL(fileURLWithPath: "/tmp/part"), length: 1_000, validator: "\"v1\"")

    func test_givenAStrongETag_thenItIsTheValidator_andAWeakOrMalformedOneIsNot() {
        func validator(_ tag: String) -> String? {
            PartialDownload.validator(status: 200, headers: ["etag": tag], request: request)
        }
        XCTAssertEqual(validator("\"abc\""), "\"abc\"")
        XCTAssertEqual(validator("  \"abc\" "), "\"abc\"")
        XCTAssertNil(validator("W/\"abc\""), "a weak tag may not be used in If-Range")
        XCTAssertNil(validator("abc"), "not quoted")
        XCTAssertNil(validator("\""))
        XCTAssertNil(validator("\"a\r\nX-Evil: 1\""), "a control character would make the retry's header invalid")
        XCTAssertNil(validator("\"a b\""))
    }

    func test_givenOnlyDates_thenLastModifiedCountsWhenTheResponseDateIsASecondLater() {
        func validator(modified: String, date: String?) -> String? {
            var headers = ["Last-Modified": modified]
            headers["Date"] = date
            return PartialDownload.validator(status: 200, headers: headers, request: request)
        }
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        XCTAssertEqual(validator(modified: modified, date: "Sun, 06 Nov 1994 08:49:38 GMT"), modified)
        XCTAssertNil(validator(modified: modified, date: "Sun, 06 Nov 1994 08:49:37 GMT"), "the same second: may be weak")
        XCTAssertNil(validator(modified: modified, date: nil))
        XCTAssertNil(validator(modified: "yesterday", date: "Sun, 06 Nov 1994 08:49:38 GMT"))
    }

    func test_givenAResponseThatIsNotAWholeUncompressedBody_thenItHasNoValidator() {
        let tag = ["ETag": "\"abc\""]
        XCTAssertNil(PartialDownload.validator(status: 206, headers: tag, request: request))
        XCTAssertNil(PartialDownload.validator(status: 404, headers: tag, request: request))
        XCTAssertNil(PartialDownload.validator(status: 200, headers: tag.merging(["Content-Encoding": "gzip"]) { $1 }, request: request))
        XCTAssertEqual(PartialDownload.validator(status: 200, headers: tag.merging(["Content-Encoding": "identity"]) { $1 }, request: request), "\"abc\"")
        var ranged = request
        ranged.setValue("bytes=0-99", forHTTPHeaderField: "Range")
        XCTAssertNil(PartialDownload.validator(status: 200, headers: tag, request: ranged), "the caller asked for a range itself")
        XCTAssertNil(PartialDownload.validator(status: 200, headers: [:], request: request))
    }

    func test_givenContentRanges_thenOnlyTheWellFormedOnesGiveTheirFirstByte() {
        XCTAssertEqual(PartialDownload.firstByte(ofContentRange: "bytes 1000-1999/2000"), 1_000)
        XCTAssertEqual(PartialDownload.firstByte(ofContentRange: "bytes 1000-1999/*"), 1_000)
        XCTAssertEqual(PartialDownload.firstByte(ofContentRange: "Bytes 0-0/1"), 0)
        for bad in ["bytes */2000", "bytes 1000-/2000", "bytes -1999/2000", "bytes 1999-1000/2000", "items 1-2/3",
                    "bytes 1000-1999", "bytes +1-2/3", "bytes ١-٢/٣", "bytes 99999999999999999999-1/2", ""] {
            XCTAssertNil(PartialDownload.firstByte(ofContentRange: bad), bad)
        }
    }

    func test_givenAnswersToTheRetry_thenOnlyA206ForExactlyTheRestResumes() {
        XCTAssertTrue(partial.isAnsweredBy(status: 206, headers: ["Content-Range": "bytes 1000-4999/5000"]))
        XCTAssertFalse(partial.isAnsweredBy(status: 206, headers: ["Content-Range": "bytes 0-4999/5000"]))
        XCTAssertFalse(partial.isAnsweredBy(status: 206, headers: ["Content-Range": "bytes 999-4999/5000"]))
        XCTAssertFalse(partial.isAnsweredBy(status: 206, headers: [:]))
        XCTAssertFalse(partial.isAnsweredBy(status: 200, headers: ["Content-Range": "bytes 1000-4999/5000"]))
        XCTAssertFalse(partial.isAnsweredBy(
            status: 206, headers: ["Content-Range": "bytes 1000-4999/5000", "Content-Encoding": "br"]))
    }

    func test_givenARequest_thenTheRetryAsksForTheRestOfTheSameBody() {
        let retry = partial.requestingRest(of: request)
        XCTAssertEqual(retry.value(forHTTPHeaderField: "Range"), "bytes=1000-")
        XCTAssertEqual(retry.value(forHTTPHeaderField: "If-Range"), "\"v1\"")
        XCTAssertEqual(retry.url, request.url)
    }
}
