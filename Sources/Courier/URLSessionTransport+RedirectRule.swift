import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to do with a redirect: a hop within one origin keeps headers, a hop to another origin
/// loses the sensitive ones, https to http is refused; a policy may deliver the 3xx instead of
/// following it.
enum RedirectRule {
    enum Decision {
        case follow(URLRequest)
        /// Do not follow: the 3xx response is delivered as the answer.
        case deliver
        case refuse(NetworkError)
    }

    /// Decides one hop of a redirect chain.
    ///
    /// - Parameters:
    ///   - original: The URL the request was sent to (what ``URLSessionTransport/RedirectPolicy/sameOrigin`` compares with).
    ///   - hop: The URL that answered with this redirect; `nil` means `original` (the first hop).
    ///   - next: The request URLSession proposes to send next.
    ///   - policy: Which redirects to follow.
    static func decide(
        from original: URL?, hop: URL? = nil, to next: URLRequest, policy: URLSessionTransport.RedirectPolicy = .follow
    ) -> Decision {
        let from = Origin(hop ?? original)
        let to = Origin(next.url)
        switch policy {
        case .never:
            return .deliver
        case .sameOrigin where Origin(original) != to:
            return .deliver
        case .follow, .sameOrigin:
            break
        }
        // Judged per hop: http → https → http must not go back to clear text either.
        if from.scheme == "https" && to.scheme == "http" {
            return .refuse(.invalidRequest(
                reason: "redirect from https to http refused (\(next.url.map { Redaction.redact($0) } ?? "?"))"))
        }
        // As curl does since CVE-2022-27774: credentials stay only within one scheme, host and
        // port; another port on the same host may be another service.
        guard from != to else { return .follow(next) }
        var stripped = next
        for name in (next.allHTTPHeaderFields ?? [:]).keys where Redaction.isSensitive(headerName: name) {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        return .follow(stripped)
    }

    /// Scheme, host (both lower-cased) and port, with the scheme's default port filled in.
    private struct Origin: Equatable {
        let scheme: String?
        let host: String?
        let port: Int?

        init(_ url: URL?) {
            scheme = url?.scheme?.lowercased()
            host = url?.host?.lowercased()
            switch (url?.port, scheme) {
            case (let port?, _): self.port = port
            case (nil, "http"): port = 80
            case (nil, "https"): port = 443
            default: port = nil
            }
        }
    }
}
