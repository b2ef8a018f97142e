import Foundation

/// Parses the three HTTP-date forms of RFC 9110 §5.6.7, by hand:
///
/// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
/// - obsolete RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT`
/// - obsolete asctime: `Sun Nov  6 08:49:37 1994`
///
/// Not `DateFormatter`: a header value is untrusted input, and FoundationNetworking's formatter
/// traps on some of it (a combining mark after the day, found by fuzzing `Retry-After`). Day and
/// month names are matched without regard to case; the weekday is not checked against the date.
enum HTTPDate {
    /// The longest valid form is the RFC 850 one with a Wednesday: 33 bytes.
    private static let maximumLength = 40

    /// The date `text` names, or `nil` when it is not an HTTP-date.
    ///
    /// - Parameter now: Resolves the two-digit year of the RFC 850 form to the year with those
    ///   last two digits in the century that ends 50 years after `now`: more than 50 years
    ///   ahead means the most recent past year with the same digits (RFC 9110 §5.6.7).
    static func parse(_ text: String, now: Date) -> Date? {
        let bytes = Array(text.utf8.prefix(maximumLength + 1))
        guard bytes.count <= maximumLength, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return imfFixdate(bytes) ?? rfc850Date(bytes, now: now) ?? asctimeDate(bytes)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    private static func imfFixdate(_ bytes: [UInt8]) -> Date? {
        var scanner = DateScanner(bytes)
        guard scanner.name(in: shortDayNames) != nil, scanner.literal(", "),
              let day = scanner.number(digits: 2), scanner.literal(" "),
              let month = scanner.name(in: monthNames), scanner.literal(" "),
              let year = scanner.number(digits: 4), scanner.literal(" "),
              let time = scanner.timeOfDay(), scanner.literal(" GMT"), scanner.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, seconds: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`
    private static func rfc850Date(_ bytes: [UInt8], now: Date) -> Date? {
        var scanner = DateScanner(bytes)
        guard scanner.name(in: longDayNames) != nil, scanner.literal(", "),
              let day = scanner.number(digits: 2), scanner.literal("-"),
              let month = scanner.name(in: monthNames), scanner.literal("-"),
              let shortYear = scanner.number(digits: 2), scanner.literal(" "),
              let time = scanner.timeOfDay(), scanner.literal(" GMT"), scanner.isAtEnd
        else { return nil }
        let currentYear = year(of: now)
        var year = currentYear - currentYear % 100 + shortYear
        if year > currentYear + 50 { year -= 100 }
        if year <= currentYear - 50 { year += 100 }
        return date(year: year, month: month + 1, day: day, seconds: time)
    }

    /// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space).
    private static func asctimeDate(_ bytes: [UInt8]) -> Date? {
        var scanner = DateScanner(bytes)
        guard scanner.name(in: shortDayNames) != nil, scanner.literal(" "),
              let month = scanner.name(in: monthNames), scanner.literal(" ")
        else { return nil }
        let day = scanner.literal(" ") ? scanner.number(digits: 1) : scanner.number(digits: 2)
        guard let day, scanner.literal(" "),
              let time = scanner.timeOfDay(), scanner.literal(" "),
              let year = scanner.number(digits: 4), scanner.isAtEnd
        else { return nil }
        return date(year: year, month: month + 1, day: day, seconds: time)
    }

    /// The instant, or `nil` when the day does not exist in that month.
    static func date(year: Int, month: Int, day: Int, seconds: Int) -> Date? {
        guard (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        // In floating point: on a 32-bit `Int` (watchOS devices) `days * 86_400` overflows past 2038.
        return Date(timeIntervalSince1970: TimeInterval(days) * 86_400 + TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year     // years counted from March
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian year (UTC) of `date`.
    private static func year(of date: Date) -> Int {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 2000 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar.component(.year, from: date)
    }

    private static let shortDayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
}

/// Reads an HTTP-date's printable ASCII bytes left to right; every method consumes only on success.
private struct DateScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    /// Consumes `text` if the bytes continue with it exactly.
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        let matches = text.withUTF8Buffer { expected in
            expected.indices.allSatisfy { bytes[index + $0] == expected[$0] }
        }
        if matches { index += count }
        return matches
    }

    /// Consumes exactly `digits` ASCII digits and returns their value.
    mutating func number(digits: Int) -> Int? {
        guard bytes.count - index >= digits else { return nil }
        var value = 0
        for byte in bytes[index..<index + digits] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        index += digits
        return value
    }

    /// Consumes the name from `names` (lowercase ASCII) that the bytes continue with, ignoring
    /// case, and returns its index. Longer names are not prefixes of shorter ones in the tables.
    mutating func name(in names: [String]) -> Int? {
        for (position, name) in names.enumerated() {
            let count = name.utf8.count
            guard bytes.count - index >= count else { continue }
            if zip(bytes[index..<index + count], name.utf8).allSatisfy({ $0 | 0x20 == $1 }) {
                index += count
                return position
            }
        }
        return nil
    }

    /// Consumes `HH:mm:ss` and returns the seconds since midnight (a leap second 60 is kept).
    mutating func timeOfDay() -> Int? {
        let start = index
        guard let hour = number(digits: 2), literal(":"), let minute = number(digits: 2), literal(":"),
              let second = number(digits: 2), hour < 24, minute < 60, second <= 60
        else {
            index = start
            return nil
        }
        return hour * 3_600 + minute * 60 + second
    }
}
