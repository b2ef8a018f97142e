import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The caller's own `Cookie` header of a request whose cookies ``CookieJar`` handles (`value` is
/// `nil` when it had none): the jar's cookies are added after it, and replaced at each redirect.
struct CallerCookie: Sendable {
    let value: String?
}

extension URLSessionTransportDelegate {
    /// `request` with the jar's cookies added, and what the caller's own `Cookie` header was;
    /// `request` unchanged and `nil` when the jar does not handle it (no jar, or the request's
    /// `httpShouldHandleCookies` is `false`).
    func addingCookies(to request: URLRequest) -> (URLRequest, CallerCookie?) {
        guard let cookies, request.httpShouldHandleCookies else { return (request, nil) }
        let own = request.value(forHTTPHeaderField: "Cookie").flatMap { $0.isEmpty ? nil : $0 }
        return (cookies.applying(to: request, own: own), CallerCookie(value: own))
    }

    /// Keeps the cookies a redirect response sets, then gives a followed redirect's next request
    /// the cookies of its own URL (FoundationNetworking would send the previous URL's, without
    /// those the redirect just set). The caller's own `Cookie` header stays only while the
    /// redirect rule keeps it (within one origin): once a hop to another origin dropped it, it
    /// is gone for the rest of the chain, as `Authorization` is, even on a hop back.
    func withCookies(
        _ decision: RedirectRule.Decision, after response: HTTPURLResponse, caller: CallerCookie?, identifier: Int
    ) -> RedirectRule.Decision {
        guard let cookies, let caller else { return decision }
        cookies.store(from: response)
        guard case .follow(let next) = decision else { return decision }
        var own = caller.value
        if own != nil, next.value(forHTTPHeaderField: "Cookie") == nil {
            own = nil
            tasks.withLock { $0[identifier]?.cookieHeader = CallerCookie(value: nil) }
        }
        return .follow(cookies.applying(to: next, own: own))
    }
}
