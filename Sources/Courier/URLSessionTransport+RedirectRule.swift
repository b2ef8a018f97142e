import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to do with a redirect: a hop within one origin keeps headers, a hop to another origin
/// loses the sensitive ones, https to http is refused; a policy may deliver the 3xx instead of
/// following it.
extension URLSessionTransport.RedirectPolicy {
    /// The stricter of this policy and `other` (`nil`: this one): `.never` over `.sameOrigin`
    /// over `.follow`. An endpoint's policy can tighten the transport's, never loosen it.
    func tightened(by other: URLSessionTransport.RedirectPolicy?) -> URLSessionTransport.RedirectPolicy {
        guard let other else { return self }
        return other.strictness > strictness ? other : self
    }

    private var strictness: Int {
        switch self {
        case .follow: 0
        case .sameOrigin: 1
        case .never: 2
        }
    }
}

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
    ///   - location: The redirect's `Location` header; when given, the URL of `next` is replaced
    ///     by the one it names (see ``target(of:from:proposed:)``).
    ///   - policy: Which redirects to follow.
    static func decide(
        from original: URL?, hop: URL? = nil, to proposed: URLRequest, location: String? = nil,
        policy: URLSessionTransport.RedirectPolicy = .follow
    ) -> Decision {
        if case .never = policy { return .deliver }
        let next: URLRequest
        switch target(of: location, from: hop ?? original, proposed: proposed) {
        case .success(let corrected):
            next = corrected
        case .failure(let refusal):
            if case .sameOrigin = policy { return .deliver }   // another scheme is another origin
            return .refuse(refusal)
        }
        let from = URLOrigin(hop ?? original)
        let to = URLOrigin(next.url)
        if case .sameOrigin = policy, URLOrigin(original) != to { return .deliver }
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

    /// `proposed` sent to the URL that `location` names, resolved against `base` (the URL that
    /// answered with the redirect) as RFC 3986 says, with its scheme lower-cased.
    ///
    /// FoundationNetworking (Linux) resolves a relative `Location` against the server's root
    /// instead: `next` from `/a/b` became `/next`, `?page=2` became `/?page=2`, and `../up` was
    /// sent as `/../up`; and it turned a `Location` of another scheme into a path on the same
    /// server (`file:///etc/hostname` became `/etc/hostname`). On Apple platforms URLSession
    /// resolves as RFC 3986 does, and its proposal is kept; only the refusal applies there.
    /// - Returns: `proposed` as it is when there is no `Location` or Foundation cannot read it;
    ///   a refusal when it names something other than an `http` or `https` URL with a host (such
    ///   as `file:`, `data:` or an app's own scheme), which the client could not send anyway.
    static func target(of location: String?, from base: URL?, proposed: URLRequest) -> Result<URLRequest, NetworkError> {
        guard let location, let resolved = URL(string: location, relativeTo: base)?.absoluteURL,
            let components = URLComponents(url: resolved, resolvingAgainstBaseURL: false)
        else { return .success(proposed) }
        let scheme = components.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", components.host?.isEmpty == false else {
            return .failure(.invalidRequest(
                reason: "redirect to a URL that is not http or https with a host refused (\(Redaction.redact(resolved)))"))
        }
        #if canImport(FoundationNetworking)
        var lowered = components
        lowered.scheme = scheme
        guard let url = lowered.url else { return .success(proposed) }
        var next = proposed
        next.url = url
        return .success(next)
        #else
        // URLSession resolves as RFC 3986 does, and may have changed the URL for reasons of its
        // own (an HSTS upgrade to https): its proposal stands.
        return .success(proposed)
        #endif
    }
}
