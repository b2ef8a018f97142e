import Foundation

/// One cookie of a `Set-Cookie` header, read as RFC 6265 §5.2 says, with its attributes checked
/// against the URL that sent it (§5.3). Used by ``CookieJar``.
struct SetCookie: Equatable {
    var name: String
    var value: String
    /// Lower-cased. For a host-only cookie, the host itself; otherwise the `Domain` attribute.
    var domain: String
    /// Sent to `domain` only, not to its subdomains (no `Domain` attribute).
    var hostOnly: Bool
    var path: String
    var secure: Bool
    /// `nil`: a session cookie. A date not after the response's: the cookie is to be removed.
    var expires: Date?

    /// The longest name plus value kept (RFC 6265bis §5.6: 4096 bytes).
    static let maximumSize = 4096
    /// The longest lifetime kept (RFC 6265bis §5.5: 400 days).
    static let maximumAge: TimeInterval = 400 * 24 * 60 * 60

    /// The cookies of a `Set-Cookie` value sent by `url`; several may share one value (joined by
    /// commas, as URLSession joins repeated headers). A cookie that `url` may not set (a `Domain`
    /// that does not cover its host, a single-label domain such as `com`, a domain for an IP
    /// address other than the address itself) is left out.
    static func parse(_ header: String, from url: URL, now: Date) -> [SetCookie] {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return [] }
        let path = CookieJar.requestPath(of: url)
        return split(header).compactMap { parse(line: $0, host: host, requestPath: path, now: now) }
    }

    /// Splits joined `Set-Cookie` values: a comma starts a new cookie only when the text after it
    /// (up to the next `;`) holds a `=`, so the comma of `Expires=Wed, 21 Oct 2099 …` does not.
    static func split(_ header: String) -> [Substring] {
        var lines: [Substring] = []
        var start = header.startIndex
        var index = header.startIndex
        while let comma = header[index...].firstIndex(of: ",") {
            let after = header.index(after: comma)
            let next = header[after...].prefix { $0 != ";" && $0 != "," }
            if next.contains("=") {
                lines.append(header[start..<comma])
                start = after
            }
            index = after
        }
        lines.append(header[start...])
        return lines
    }

    private static func parse(line: Substring, host: String, requestPath: String, now: Date) -> SetCookie? {
        var parts = line.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let pair = parts.next(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maximumSize,
              (name + value).unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { return nil }
        var cookie = SetCookie(
            name: name, value: value, domain: host, hostOnly: true, path: defaultPath(of: requestPath),
            secure: false, expires: nil)
        var maxAge: TimeInterval?
        var expires: Date?
        var domainAttribute: String?
        for attribute in parts {
            let (key, argument) = keyAndValue(attribute)
            switch key {
            case "max-age":
                maxAge = Self.maxAge(argument) ?? maxAge
            case "expires":
                expires = CookieDate.parse(argument) ?? expires
            case "domain":
                let domain = argument.lowercased().drop { $0 == "." }
                domainAttribute = domain.isEmpty ? nil : String(domain)
            case "path":
                if argument.hasPrefix("/") { cookie.path = argument }
            case "secure":
                cookie.secure = true
            default:
                break
            }
        }
        if let maxAge {
            cookie.expires = maxAge < 0 ? Date(timeIntervalSince1970: 0) : now.addingTimeInterval(maxAge)
        } else if let expires {
            cookie.expires = min(expires, now.addingTimeInterval(maximumAge))
        }
        if let domain = domainAttribute {
            if isIPAddress(host) || !domain.contains(".") {
                // An address, or a single label (`localhost`, `com`): the host itself or nothing.
                // (No list of public suffixes here: `co.uk` is not refused.)
                guard domain == host else { return nil }
            } else {
                // A domain cookie, also sent to the domain's subdomains: `host` must lie inside it.
                guard host == domain || host.hasSuffix("." + domain) else { return nil }
                cookie.domain = domain
                cookie.hostOnly = false
            }
        }
        return cookie
    }

    /// RFC 6265 §5.2.2: `-` or a digit first, then digits; zero or less expires the cookie
    /// (`-1`), anything else is capped at ``maximumAge`` (a number too long for `Int` included).
    static func maxAge(_ text: String) -> TimeInterval? {
        let digits = text.first == "-" ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        if text.first == "-" { return -1 }
        guard let seconds = Int(digits) else { return maximumAge }
        return seconds == 0 ? -1 : min(TimeInterval(seconds), maximumAge)
    }

    private static func keyAndValue(_ attribute: Substring) -> (String, String) {
        guard let equals = attribute.firstIndex(of: "=") else {
            return (attribute.trimmingCharacters(in: .whitespaces).lowercased(), "")
        }
        return (attribute[..<equals].trimmingCharacters(in: .whitespaces).lowercased(),
                attribute[attribute.index(after: equals)...].trimmingCharacters(in: .whitespaces))
    }

    /// RFC 6265 §5.1.4: the request path up to its last `/` (`/` when that is the first one).
    static func defaultPath(of path: String) -> String {
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }

    /// A dotted IPv4 address or a bracketed or bare IPv6 one (no domain matching for these).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count == 4 && labels.allSatisfy { UInt8($0) != nil }
    }
}
