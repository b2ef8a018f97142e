import Courier
import Foundation
import Promises

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the demo's requests go: Courier's stub transport, or a real server.
enum DemoBackend {
    case stubs
    case server(URL)

    var name: String {
        switch self {
        case .stubs: "built-in stubs (no network)"
        case .server(let url): "server at \(Self.printable(url))"
        }
    }

    /// `url` without a user name, password, query or fragment: the demo prints no credential
    /// that came in on the command line.
    static func printable(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "<the given URL>" }
        let hidden = components.user != nil || components.password != nil || components.query != nil
            || components.fragment != nil
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return (components.string ?? "<the given URL>") + (hidden ? " (credentials and query not shown)" : "")
    }

    /// A client for this backend with `configure` applied to its configuration.
    func makeClient(_ configure: (inout NetworkClient.Configuration) -> Void = { _ in }) -> NetworkClient {
        switch self {
        case .stubs:
            var configuration = NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL)
            configuration.timeout = 10
            configure(&configuration)
            return StubServer().builder().makeClient(configuration: configuration)
        case .server(let url):
            var configuration = NetworkClient.Configuration(baseURL: url)
            configuration.timeout = 10
            configure(&configuration)
            // The demo talks to the server it was given and nowhere else: a redirect to another
            // origin comes back as the 3xx instead of being followed.
            return NetworkClient(configuration: configuration, transport: URLSessionTransport(redirects: .sameOrigin))
        }
    }
}

/// The stub backend's behaviour: the same routes as the test server, answered in memory.
///
/// `@unchecked Sendable`: the valid token and the rotation count are only touched under `lock`.
final class StubServer: @unchecked Sendable {
    private let lock = NSLock()
    private var validToken = "server-secret-0"
    private var rotations = 0

    func builder() -> StubbingBuilder {
        NetworkClient.stubbing()
            .stub(.get, "anything/products", .json(#"{"products":[{"id":42,"name":"Macbook Pro"},{"id":7,"name":"iPad"}]}"#, delay: 0.05))
            .stub(.get, "anything/products/*", responder: { request in
                let id = request.url?.lastPathComponent ?? "?"
                return .json(#"{"id":\#(id),"name":"Macbook Pro","price":2499}"#, delay: 0.05)
            })
            .stub(.get, "bearer", responder: { [self] request in bearer(request) })
            .stub(.post, "auth/token", responder: { [self] _ in rotate() })
            .stub(.get, "delay/3", .json(#"{"slow":true}"#, delay: 3))
            .stub(.get, "status/404", .json(#"{"metadata":{"status":"404","desc":"No such user"}}"#, status: 404, delay: 0.02))
    }

    private func bearer(_ request: URLRequest) -> StubResponse {
        let presented = request.value(forHTTPHeaderField: "Authorization")
        let valid = lock.withLock { validToken }
        return presented == "Bearer \(valid)"
            ? .json(#"{"authenticated":true}"#, delay: 0.05)
            : .json(#"{"metadata":{"status":"401","desc":"token expired"}}"#, status: 401, delay: 0.05)
    }

    private func rotate() -> StubResponse {
        let token = lock.withLock { () -> String in
            rotations += 1
            validToken = "server-secret-\(rotations)-\(UUID().uuidString.prefix(8).lowercased())"
            return validToken
        }
        return .json(#"{"token":"\#(token)"}"#, delay: 0.3)
    }
}

/// Logs every request as it leaves and every answer as it arrives, with the credential redacted
/// to its last four characters.
struct DemoTracePlugin: RequestPlugin {
    let trace: Trace
    let headerField: String

    func willSend(_ request: URLRequest) {
        let number = request.value(forHTTPHeaderField: "X-Demo-Request").map { " #\($0)" } ?? ""
        let credential = request.value(forHTTPHeaderField: headerField).map(redacted) ?? "(no credential)"
        trace.log("→ \(request.httpMethod ?? "GET") /\(pathOf(request))\(number)  \(headerField): \(credential)")
    }

    func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {
        let number = request.value(forHTTPHeaderField: "X-Demo-Request").map { " #\($0)" } ?? ""
        switch result {
        case .success(let response): trace.log("← \(response.statusCode) /\(pathOf(request))\(number)")
        case .failure(let error): trace.log("← \(error.statusCode.map(String.init) ?? "no response") /\(pathOf(request))\(number)")
        }
    }

    private func pathOf(_ request: URLRequest) -> String {
        String((request.url?.path ?? "").drop { $0 == "/" })
    }
}

/// "Bearer …1a2b": enough to tell tokens apart, never enough to use one (a token of 12
/// characters or fewer shows none of them).
func redacted(_ value: String) -> String {
    let parts = value.split(separator: " ", maxSplits: 1)
    let token = parts.last.map(String.init) ?? value
    let scheme = parts.count == 2 ? "\(parts[0]) " : ""
    return scheme + "…" + (token.count > 12 ? String(token.suffix(4)) : "")
}
