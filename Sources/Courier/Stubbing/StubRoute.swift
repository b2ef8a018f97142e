import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a ``StubRoute`` gets its answer.
enum StubSource: Sendable {
    case fixed(StubResponse)
    case sequence([StubResponse])
    case responder(@Sendable (URLRequest) -> StubResponse)
}

/// A stub for one method and path. The path is the endpoint's `path` as written ("users/42"),
/// a leading "/" optional; a `*` segment matches any one segment ("users/*"), and a query
/// ("search?q=swift") must be contained in the request's query.
struct StubRoute: Sendable {
    let method: HTTPMethod
    let segments: [String]
    let query: [URLQueryItem]
    let source: StubSource
    /// Position among the builder's routes; later routes win ties.
    let order: Int

    init(method: HTTPMethod, path: String, source: StubSource, order: Int) {
        self.method = method
        // Empty parts kept: "?q=swift" is the root path with a query, not the path "q=swift".
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        segments = StubRoute.segments(of: parts.first ?? "")
        query = parts.count > 1 ? StubRoute.queryItems(parts[1]) : []
        self.source = source
        self.order = order
    }

    /// The `name=value` pairs of a route's query, each part percent-decoded when it can be and
    /// kept as written when it cannot (`"q=a b"`, `"d=100%"`): a query that `URLComponents`
    /// refuses still constrains the route instead of matching every request.
    static func queryItems(_ query: String) -> [URLQueryItem] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let name = parts[0].removingPercentEncoding ?? parts[0]
            let value = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : nil
            return URLQueryItem(name: name, value: value)
        }
    }

    /// Higher is more specific: every literal segment and every query item counts.
    var specificity: Int {
        segments.filter { $0 != "*" }.count * 2 + query.count
    }

    func matches(method requestMethod: HTTPMethod, path: [String], query requestQuery: [URLQueryItem]) -> Bool {
        guard requestMethod == method, path.count == segments.count else { return false }
        for (pattern, segment) in zip(segments, path) where pattern != "*" && pattern != segment {
            return false
        }
        return query.allSatisfy { requestQuery.contains($0) }
    }

    static func segments(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}
