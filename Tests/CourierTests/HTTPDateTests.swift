import Foundation
import XCTest
@testable import Courier

final class HTTPDateTests: XCTestCase {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example instant.
    private let example: TimeInterval = 784_111_777
    private let now = Date(timeIntervalSince1970: 1_445_412_470)  // Wed, 21 Oct 2015 07:27:50 GMT

    private func seconds(_ text: String, now: Date? = nil) -> TimeInterval? {
        HTTPDate.parse(text, now: now ?? self.now)?.timeIntervalSince1970
    }

    func test_givenTheThreeFormsOfRFC9110_whenParsed_thenTheSameInstant() {
        XCTAssertEqual(seconds("Sun, 06 Nov 1994 08:49:37 GMT"), example)
        XCTAssertEqual(seconds("Sunday, 06-Nov-94 08:49:37 GMT"), example)
        XCTAssertEqual(seconds("Sun Nov  6 08:49:37 1994"), example)
    }

    func test_givenNamesInAnyCase_whenParsed_thenAccepted() {
        XCTAssertEqual(seconds("SUN, 06 NOV 1994 08:49:37 GMT"), example)
        XCTAssertEqual(seconds("sunday, 06-nov-94 08:49:37 GMT"), example)
    }

    func test_givenDatesAcrossTheCalendar_whenParsed_thenMatchFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(secondsFromGMT: 0))
        let table: [(String, DateComponents)] = [
            ("Thu, 01 Jan 1970 00:00:00 GMT", DateComponents(year: 1970, month: 1, day: 1)),
            ("Tue, 29 Feb 2000 23:59:59 GMT", DateComponents(year: 2000, month: 2, day: 29, hour: 23, minute: 59, second: 59)),
            ("Thu, 29 Feb 2024 12:00:00 GMT", DateComponents(year: 2024, month: 2, day: 29, hour: 12)),
            ("Fri, 31 Dec 1999 23:59:59 GMT", DateComponents(year: 1999, month: 12, day: 31, hour: 23, minute: 59, second: 59)),
            ("Mon, 01 Mar 2100 00:00:00 GMT", DateComponents(year: 2100, month: 3, day: 1)),
            ("Wed, 31 Dec 1969 23:59:59 GMT", DateComponents(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59)),
        ]
        for (text, components) in table {
            let expected = try XCTUnwrap(calendar.date(from: components)).timeIntervalSince1970
            XCTAssertEqual(seconds(text), expected, text)
        }
    }

    func test_givenATwoDigitYear_whenMoreThan50YearsAhead_thenTheMostRecentPastYear() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(secondsFromGMT: 0))
        func year(_ text: String) -> Int? {
            HTTPDate.parse(text, now: now).map { calendar.component(.year, from: $0) }
        }
        XCTAssertEqual(year("Wednesday, 21-Oct-15 07:28:05 GMT"), 2015)
        XCTAssertEqual(year("Friday, 21-Oct-65 07:28:05 GMT"), 2065)   // 50 years ahead: kept
        XCTAssertEqual(year("Monday, 21-Oct-66 07:28:05 GMT"), 1966)   // 51 years ahead: a century back
        XCTAssertEqual(year("Friday, 21-Oct-99 07:28:05 GMT"), 1999)
        // Late in a century, a small two-digit year is the coming century's.
        let late = Date(timeIntervalSince1970: 4_070_908_800)  // 2099-01-01
        func yearLate(_ text: String) -> Int? { HTTPDate.parse(text, now: late).map { calendar.component(.year, from: $0) } }
        XCTAssertEqual(yearLate("Friday, 01-Jan-00 00:00:00 GMT"), 2100)
        XCTAssertEqual(yearLate("Friday, 01-Jan-49 00:00:00 GMT"), 2149)
        XCTAssertEqual(yearLate("Friday, 01-Jan-50 00:00:00 GMT"), 2050)
        XCTAssertEqual(yearLate("Friday, 01-Jan-98 00:00:00 GMT"), 2098)
    }

    func test_givenMalformedDates_whenParsed_thenNil() {
        let malformed = [
            "", "GMT", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 30 Feb 1994 08:49:37 GMT", "Sun, 29 Feb 1900 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT",
            "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nox 1994 08:49:37 GMT", "Sxn, 06 Nov 1994 08:49:37 GMT",
            "Sun,06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT", "Sun Nov 6 08:49:37 1994",
            "Sunday, 06 Nov 1994 08:49:37 GMT",
        ]
        for text in malformed {
            XCTAssertNil(seconds(text), text)
        }
    }

    /// Found by fuzzing `Retry-After`: `DateFormatter.date(from:)` trapped ("Incorrect range") on
    /// a combining mark after the day. Hostile values must give `nil`, never a trap.
    func test_givenHostileValues_whenParsed_thenNilWithoutTrapping() {
        let hostile = [
            "Wed, 21\u{0730}" + String(repeating: "\u{0}", count: 38) + " G",
            "Wed, 21\u{0730} Oct 2015 07:28:00 GMT", "Wed, 2\u{0301}1 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 07:28:00 GMT\r\n", "Wed,\r\n21 Oct 2015 07:28:00 GMT",
            "Wed, 21 Oct 2015 07:28:00 GMT\u{0}", "Wéd, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT👍",
            String(repeating: "Wed, 21 Oct 2015 07:28:00 GMT", count: 1_000),
        ]
        for text in hostile {
            XCTAssertNil(seconds(text), text.debugDescription)
        }
    }

    func test_givenALeapSecond_whenParsed_thenCountedAsTheNextSecond() {
        XCTAssertEqual(seconds("Sat, 31 Dec 2016 23:59:60 GMT"), 1_483_228_800)
        XCTAssertEqual(seconds("Sun, 01 Jan 2017 00:00:00 GMT"), 1_483_228_800)
    }
}
