import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubbingBuilder {
    /// The base URL of ``makeClient()``: `https://stub.courier.invalid` (a reserved name that never
    /// resolves, so a stub can never leak to the network).
    public static let defaultBaseURL = URL(string: "https://stub.courier.invalid") ?? URL(fileURLWithPath: "/")

    /// A stubbed client with the default configuration and base URL ``defaultBaseURL``.
    public func makeClient() -> NetworkClient {
        makeClient(configuration: NetworkClient.Configuration(baseURL: StubbingBuilder.defaultBaseURL))
    }

    /// A stubbed client with your configuration (base URL, plugins, authenticator, timeout, …).
    /// Only the transport differs from a real client; with ``clock(_:)`` its scheduler is the clock.
    public func makeClient(configuration: NetworkClient.Configuration) -> NetworkClient {
        var configuration = configuration
        if let clockScheduler { configuration.scheduler = clockScheduler }
        return NetworkClient(configuration: configuration, transport: StubTransport(plan: self))
    }

    /// A client whose every request succeeds with `mockData` after `responseTime` seconds.
    ///
    /// ```swift
    /// let client = NetworkClient.stubbing().setSuccess(mockData: Data(#"{"ok":true}"#.utf8))
    /// ```
    /// - Parameters:
    ///   - mockData: The body of every response.
    ///   - statusCode: The status. Default: 200.
    ///   - responseTime: Seconds before each response. Default: 0.3.
    public func setSuccess(mockData: Data, statusCode: Int = 200, responseTime: TimeInterval = 0.3) -> NetworkClient {
        status(statusCode).body(mockData).delay(responseTime).makeClient()
    }

    /// A client whose every request fails with HTTP `statusCode` and `mockData` as the error body,
    /// which becomes ``NetworkError/clientError(statusCode:metadata:response:)`` or
    /// ``NetworkError/serverError(statusCode:metadata:response:)`` with the server metadata parsed.
    ///
    /// - Parameters:
    ///   - mockData: The error body, e.g. `{"metadata":{"status":"4001","desc":"Bad token"}}`.
    ///   - statusCode: The status. Default: 400.
    ///   - responseTime: Seconds before each response. Default: 0.3.
    public func setFailure(mockData: Data, statusCode: Int = 400, responseTime: TimeInterval = 0.3) -> NetworkClient {
        status(statusCode).body(mockData).delay(responseTime).makeClient()
    }
}

extension NetworkClient {
    /// Starts building a stubbed client for tests, previews and demos: see ``StubbingBuilder``.
    ///
    /// ```swift
    /// let client = NetworkClient.stubbing().body(json: #"{"name":"Ada"}"#).makeClient()
    /// ```
    public static func stubbing() -> StubbingBuilder {
        StubbingBuilder()
    }
}
