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
    private let partial = PartialDownload(
        fileURL: URL(fileURLWithPath: "/tmp/part"), length: 1_000, validator: "\"v1\"", totalLength: 5_000)

    func test_givenAStrongETag_thenItIsTheValidator_andAWeakOrMalformedOneIsNot() {
        func validator(_ tag: String) -> String? {
            PartialDownload.validator(status: 200, headers: ["etag": tag], callerSetRange: false)
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
            return PartialDownload.validator(status: 200, headers: headers, callerSetRange: false)
        }
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        XCTAssertEqual(validator(modified: modified, date: "Sun, 06 Nov 1994 08:49:38 GMT"), modified)
        XCTAssertNil(validator(modified: modified, date: "Sun, 06 Nov 1994 08:49:37 GMT"), "the same second: may be weak")
        XCTAssertNil(validator(modified: modified, date: nil))
        XCTAssertNil(validator(modified: "yesterday", date: "Sun, 06 Nov 1994 08:49:38 GMT"))
    }

    func test_givenAResponseThatIsNotAWholeUncompressedBody_thenItHasNoValidator() {
        let tag = ["ETag": "\"abc\""]
        func validator(_ status: Int, _ headers: [String: String], callerSetRange: Bool = false) -> String? {
            PartialDownload.validator(status: status, headers: headers, callerSetRange: callerSetRange)
        }
        XCTAssertNil(validator(206, tag))
        XCTAssertNil(validator(404, tag))
        XCTAssertNil(validator(200, tag.merging(["Content-Encoding": "gzip"]) { $1 }))
        XCTAssertEqual(validator(200, tag.merging(["Content-Encoding": "identity"]) { $1 }), "\"abc\"")
        XCTAssertNil(validator(200, tag, callerSetRange: true), "the caller asked for a range itself")
        XCTAssertNil(validator(200, [:]))
        XCTAssertNil(validator(200, ["ETag": "W/\"abc\"", "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT",
                                     "Date": "Sun, 06 Nov 1994 09:49:37 GMT"]), "a weak tag rules out the date too")
    }

    func test_givenContentRanges_thenOnlyTheWellFormedOnesAreRead() {
        func range(_ text: String) -> [Int64?]? {
            PartialDownload.contentRange(text).map { [$0.first, $0.last, $0.complete] }
        }
        XCTAssertEqual(range("bytes 1000-1999/2000"), [1_000, 1_999, 2_000])
        XCTAssertEqual(range("bytes 1000-1999/*"), [1_000, 1_999, nil])
        XCTAssertEqual(range("Bytes 0-0/1"), [0, 0, 1])
        for bad in ["bytes */2000", "bytes 1000-/2000", "bytes -1999/2000", "bytes 1999-1000/2000", "items 1-2/3",
                    "bytes 1000-1999", "bytes +1-2/3", "bytes ١-٢/٣", "bytes 99999999999999999999-1/2", "",
                    "bytes 1000-1999/1999", "bytes 0-9223372036854775807/9223372036854775807", "bytes 1-2/+3", "bytes 1-2/"] {
            XCTAssertNil(range(bad), bad)
        }
    }

    func test_givenAnswersToTheRetry_thenOnlyA206ForExactlyTheWholeRestOfTheSameBodyResumes() {
        func answer(_ status: Int, _ headers: [String: String]) -> Int64? {
            partial.answer(status: status, headers: headers)
        }
        XCTAssertEqual(answer(206, ["Content-Range": "bytes 1000-4999/5000"]), 5_000)
        XCTAssertEqual(answer(206, ["Content-Range": "bytes 1000-4999/5000", "ETag": "\"v1\""]), 5_000)
        XCTAssertNil(answer(206, ["Content-Range": "bytes 0-4999/5000"]))
        XCTAssertNil(answer(206, ["Content-Range": "bytes 999-4999/5000"]))
        XCTAssertNil(answer(206, ["Content-Range": "bytes 1000-2999/5000"]), "a short part (a capped range)")
        XCTAssertNil(answer(206, ["Content-Range": "bytes 1000-4999/*"]), "no complete length to check the end against")
        XCTAssertNil(answer(206, ["Content-Range": "bytes 1000-5999/6000"]), "another length than the one declared first")
        XCTAssertNil(answer(206, ["Content-Range": "bytes 1000-4999/5000", "ETag": "\"v2\""]), "another body's tag")
        XCTAssertNil(answer(206, [:]))
        XCTAssertNil(answer(200, ["Content-Range": "bytes 1000-4999/5000"]))
        XCTAssertNil(answer(206, ["Content-Range": "bytes 1000-4999/5000", "Content-Encoding": "br"]))
    }

    func test_givenARequest_thenTheRetryAsksForTheRestOfTheSameBody() {
        let retry = partial.requestingRest(of: request)
        XCTAssertEqual(retry.value(forHTTPHeaderField: "Range"), "bytes=1000-")
        XCTAssertEqual(retry.value(forHTTPHeaderField: "If-Range"), "\"v1\"")
        XCTAssertEqual(retry.url, request.url)
    }
}
