import Courier
import Foundation

/// The product list: `GET /anything/products` (httpbin echoes it; the stub serves products).
struct ProductList: Endpoint {
    var path: String { "anything/products" }
}

/// One product: `GET /anything/products/<id>`.
struct ProductDetail: Endpoint {
    let id: Int
    var path: String { "anything/products/\(id)" }
}

/// A protected resource: `GET /bearer` answers 200 for the current token and 401 otherwise.
struct Protected: Endpoint {
    let number: Int
    var path: String { "bearer" }
    var headers: [String: String] { ["X-Demo-Request": "\(number)"] }
}

/// The refresh call: `POST /auth/token` returns `{"token": "..."}`. It needs no credential,
/// so it takes the lane past the paused queue.
struct RefreshToken: Endpoint {
    var path: String { "auth/token" }
    var method: HTTPMethod { .post }
    var requiresAuthentication: Bool { false }
    var timeout: TimeInterval? { 5 }
}

/// A slow call: the server answers after 3 s, but the request allows 0.5 s.
struct SlowReport: Endpoint {
    var path: String { "delay/3" }
    var timeout: TimeInterval? { 0.5 }
}

/// A missing resource: `GET /status/404?body=metadata`.
struct MissingUser: Endpoint {
    var path: String { "status/404" }
    var query: [URLQueryItem] { [URLQueryItem(name: "body", value: "metadata")] }
}
