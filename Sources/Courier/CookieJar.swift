import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps and sends cookies for ``URLSessionTransport`` on Linux, in the session's
/// `HTTPCookieStorage`, by the rules of RFC 6265.
///
/// FoundationNetworking's own handling differs from Apple's URLSession in ways that break
/// cookie sessions: a redirect's next request does not carry the cookies of its URL (so a login
/// `302` with `Set-Cookie` leads to a page that does not see the session), and cookies are picked
/// by host alone (a `Secure` cookie goes out over `http`, a `Path` is ignored, an expired cookie is
/// still sent). It also ignores `Max-Age` (so `Max-Age=0` does not remove a cookie) and accepts a
/// `Domain` of `com`. The transport turns that off and uses this type instead.
// @unchecked: the only state is `storage`, and HTTPCookieStorage is thread-safe (Apple documents it;
// FoundationNetworking serialises every access on a queue of its own).
final class CookieJar: @unchecked Sendable {
    let storage: HTTPCookieStorage
    let acceptsCookies: Bool

    init(storage: HTTPCookieStorage, policy: HTTPCookie.AcceptPolicy) {
        self.storage = storage
        acceptsCookies = policy != .never
    }

    /// The `Cookie` header value for `url`: every stored cookie whose domain and path match it, not
    /// expired, `Secure` ones only over `https`; longer paths first, then by name (the storage
    /// keeps no order). `nil` when there is none.
    func header(for url: URL, now: Date = Date()) -> String? {
        // Most sessions hold no cookies: the URL's parts (thousands of instructions to read on
        // Linux) are read only when there is something to match.
        guard let stored = storage.cookies, !stored.isEmpty, let host = url.host?.lowercased() else { return nil }
        let path = Self.requestPath(of: url)
        let secure = url.scheme?.lowercased() == "https"
        let matching = stored.filter { cookie in
            (cookie.expiresDate.map { $0 > now } ?? true) && (secure || !cookie.isSecure)
                && Self.domain(cookie.domain, matches: host) && Self.path(cookie.path, matches: path)
        }
        guard !matching.isEmpty else { return nil }
        return matching.sorted { ($0.path.count, $1.name) > ($1.path.count, $0.name) }.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// `request` with the cookies for its URL after `own` (the caller's own `Cookie` header, or
    /// `nil`); the header is removed when there is neither.
    func applying(to request: URLRequest, own: String?) -> URLRequest {
        let stored = request.url.flatMap { header(for: $0) }
        let value = [own, stored].compactMap { $0 }.joined(separator: "; ")
        let wanted = value.isEmpty ? nil : value
        // Setting a header costs about 12 000 instructions on Linux (FoundationNetworking copies
        // and re-normalises every field): most requests have no cookie to add or remove.
        guard request.value(forHTTPHeaderField: "Cookie") != wanted else { return request }
        var request = request
        request.setValue(wanted, forHTTPHeaderField: "Cookie")
        return request
    }

    /// Keeps the cookies `response` sets (every `Set-Cookie` of it), and removes those it expires.
    func store(from response: HTTPURLResponse, now: Date = Date()) {
        guard acceptsCookies, let url = response.url,
              let header = response.value(forHTTPHeaderField: "Set-Cookie"), !header.isEmpty
        else { return }
        for cookie in SetCookie.parse(header, from: url, now: now) {
            let domain = Self.storedDomain(of: cookie)
            let stored = storage.cookies ?? []
            let existing = stored.first { $0.name == cookie.name && $0.path == cookie.path && $0.domain.lowercased() == domain }
            if let expires = cookie.expires, expires <= now {
                if let existing { storage.deleteCookie(existing) }
                continue
            }
            // A new cookie past the limits is dropped (a server cannot fill memory with them);
            // one that replaces a stored cookie always goes in. `setCookie` replaces in one step.
            if existing == nil, stored.count >= Self.maximumCookies
                || stored.lazy.filter({ $0.domain.lowercased() == domain }).count >= Self.maximumCookiesPerDomain {
                continue
            }
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: cookie.name, .value: cookie.value, .domain: domain, .path: cookie.path,
            ]
            if cookie.secure { properties[.secure] = "TRUE" }
            if let expires = cookie.expires { properties[.expires] = expires } else { properties[.discard] = "TRUE" }
            if let made = HTTPCookie(properties: properties) { storage.setCookie(made) }
        }
    }

    /// The most cookies kept for one domain, and in all (what browsers allow, roughly).
    static let maximumCookiesPerDomain = 180
    static let maximumCookies = 3000

    /// The path cookies are matched against: percent-encoded as sent, trailing `/` kept (`URL.path`
    /// decodes and drops it), `/` when empty.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// How `HTTPCookie` tells the two kinds apart: a domain cookie's domain starts with a dot.
    private static func storedDomain(of cookie: SetCookie) -> String {
        cookie.hostOnly ? cookie.domain : "." + cookie.domain
    }

    /// RFC 6265 §5.1.3, with host-only cookies (no leading dot) matching their host alone.
    static func domain(_ domain: String, matches host: String) -> Bool {
        let domain = domain.lowercased()
        guard domain.hasPrefix(".") else { return host == domain }
        let bare = domain.dropFirst()
        return host == bare || (!SetCookie.isIPAddress(host) && host.hasSuffix(domain))
    }

    /// RFC 6265 §5.1.4.
    static func path(_ cookiePath: String, matches path: String) -> Bool {
        guard path.hasPrefix(cookiePath) else { return false }
        return path.count == cookiePath.count || cookiePath.hasSuffix("/")
            || path[path.index(path.startIndex, offsetBy: cookiePath.count)] == "/"
    }
}
