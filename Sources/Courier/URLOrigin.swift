import Foundation

/// A URL's origin: scheme, host (both lower-cased) and port, with the scheme's default port
/// filled in. Credentials stay within one (redirects, endpoints with their own base URL).
struct URLOrigin: Equatable, Sendable {
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
