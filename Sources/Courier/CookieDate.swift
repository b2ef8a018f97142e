import Foundation

/// Reads a cookie's `Expires` date as RFC 6265 §5.1.1 says: leniently, since servers write it in
/// many forms (`Wed, 21 Oct 2026 07:28:00 GMT`, `Wed, 21-Oct-26 07:28:00 GMT`, `Thu, 1 Jan 2099 …`,
/// a `UTC` zone). The text is split at delimiters; the first token that looks like a time, a day,
/// a month and a year gives each part, whatever the order.
enum CookieDate {
    /// Longer values are not dates (and are not worth reading).
    private static let maximumLength = 100

    /// The date `text` names, in UTC, or `nil` when a part is missing or out of range.
    static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= maximumLength else { return nil }
        var time: Int?, day: Int?, month: Int?, year: Int?
        for token in Array(text.utf8).split(whereSeparator: isDelimiter) {
            if time == nil, let seconds = timeOfDay(token) {
                time = seconds
            } else if day == nil, let number = leadingNumber(token, digits: 1...2) {
                day = number
            } else if month == nil, token.count >= 3,
                let index = HTTPDate.monthNames.firstIndex(of: String(decoding: token.prefix(3), as: UTF8.self).lowercased()) {
                month = index + 1
            } else if year == nil, let number = leadingNumber(token, digits: 2...4) {
                year = number
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601 else { return nil }
        return HTTPDate.date(year: year, month: month, day: day, seconds: time)
    }

    /// RFC 6265's delimiters: tab, space to `/`, `;` to `@`, `[` to `` ` ``, `{` to `~`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    /// `h:m:s` with one or two digits each (anything after a non-digit ignored), as seconds.
    private static func timeOfDay(_ token: ArraySlice<UInt8>) -> Int? {
        let parts = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3,
              let hour = number(parts[0], digits: 1...2, wholeToken: true),
              let minute = number(parts[1], digits: 1...2, wholeToken: true),
              let second = leadingNumber(parts[2], digits: 1...2),
              hour <= 23, minute <= 59, second <= 59
        else { return nil }
        return hour * 3600 + minute * 60 + second
    }

    /// The number at the start of `token`, of a digit count in `digits`, followed by a non-digit or the end.
    private static func leadingNumber(_ token: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        number(token, digits: digits, wholeToken: false)
    }

    private static func number(_ token: ArraySlice<UInt8>, digits: ClosedRange<Int>, wholeToken: Bool) -> Int? {
        let run = token.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard digits.contains(run.count), !wholeToken || run.count == token.count else { return nil }
        return run.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
