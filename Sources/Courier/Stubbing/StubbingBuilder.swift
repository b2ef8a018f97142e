import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Builds a ``NetworkClient`` whose transport answers from canned responses. Everything else —
/// queue, pause, plugins, authenticator, retry, status classification, decoding, callback
/// queue — runs exactly as with the network.
///
/// Each method returns a changed copy, so a base builder can be shared between tests.
///
/// ```swift
/// let client = NetworkClient.stubbing()
///     .status(404)
///     .body(json: #"{"metadata":{"status":"404","desc":"Not found"}}"#)
///     .delay(0.2)
///     .makeClient()
/// ```
///
/// How an answer is chosen, first match wins:
/// 1. a route from ``stub(_:_:_:)`` (the most specific match; on a tie the one added last);
/// 2. the ``respond(_:)`` responder;
/// 3. the ``sequence(_:)`` (successive requests, the last response repeats);
/// 4. a response seeded with ``seeded(from:)`` for the request's absolute URL;
/// 5. a file in the ``fixtures(in:)`` folder (a missing file is a ``StubError/missingFixture(request:searched:)``
///    unless a default below was configured);
/// 6. the default built from ``status(_:)``, ``body(_:)``, ``headers(_:)``, ``delay(_:)``
///    and ``failure(_:)``: 200, the endpoint's `sampleData`, no delay unless configured; or,
///    with ``passthrough(to:)``, the real answer of that transport.
public struct StubbingBuilder: Sendable {
    var defaultResponse = StubResponse()
    var hasExplicitDefault = false
    var routes: [StubRoute] = []
    var responder: (@Sendable (URLRequest) -> StubResponse)?
    var sequenceResponses: [StubResponse] = []
    var seeds: [String: String] = [:]
    var fixtureFolder: URL?
    var clockScheduler: (any RequestScheduler)?
    var recorder: StubRecorder?
    var passthroughTransport: (any HTTPTransport)?

    /// Creates a builder whose default answer is 200 with the endpoint's `sampleData`.
    public init() {}

    /// The status code of the default response. Default: 200.
    public func status(_ code: Int) -> StubbingBuilder {
        changingDefault { $0.status = code }
    }

    /// The body of the default response. Default: the endpoint's `sampleData`.
    public func body(_ data: Data) -> StubbingBuilder {
        changingDefault { $0.body = data }
    }

    /// A JSON body for the default response, with `Content-Type: application/json`.
    public func body(json: String) -> StubbingBuilder {
        changingDefault {
            $0.body = Data(json.utf8)
            $0.headers["Content-Type"] = "application/json"
        }
    }

    /// Headers of the default response, added to any already set.
    public func headers(_ headers: [String: String]) -> StubbingBuilder {
        changingDefault { $0.headers.merge(headers) { _, new in new } }
    }

    /// Seconds before the default response arrives; it obeys the request's timeout. Default: 0.
    public func delay(_ seconds: TimeInterval) -> StubbingBuilder {
        changingDefault { $0.delay = seconds }
    }

    /// Makes the default answer a transport failure (no HTTP response), for example
    /// `URLError(.notConnectedToInternet)`.
    public func failure(_ error: any Error) -> StubbingBuilder {
        changingDefault { $0.failure = error }
    }

    /// Answers one route with `response`.
    ///
    /// - Parameters:
    ///   - method: The HTTP method to match.
    ///   - path: The endpoint's `path` as written (`"user/42"`, leading `/` optional); `*` matches
    ///     one segment; a `?query` must be contained in the request's query.
    ///   - response: The answer.
    public func stub(_ method: HTTPMethod, _ path: String, _ response: StubResponse) -> StubbingBuilder {
        adding(method, path, .fixed(response))
    }

    /// Answers one route with successive responses; the last one repeats.
    public func stub(_ method: HTTPMethod, _ path: String, sequence responses: [StubResponse]) -> StubbingBuilder {
        adding(method, path, .sequence(responses))
    }

    /// Answers one route by calling `responder` with the request as it would be sent.
    public func stub(
        _ method: HTTPMethod, _ path: String, responder: @escaping @Sendable (URLRequest) -> StubResponse
    ) -> StubbingBuilder {
        adding(method, path, .responder(responder))
    }

    /// Answers successive requests (those no route matched) with successive responses; the last repeats.
    public func sequence(_ responses: [StubResponse]) -> StubbingBuilder {
        changed { $0.sequenceResponses = responses }
    }

    /// Answers requests no route matched by calling `responder` with the request as it would be sent
    /// (credentials and plugin changes included).
    public func respond(_ responder: @escaping @Sendable (URLRequest) -> StubResponse) -> StubbingBuilder {
        changed { $0.responder = responder }
    }

    /// Seeds JSON responses from an environment, for UI tests that launch the app with canned data.
    ///
    /// - Parameter environment: Keys are absolute request URLs (base URL + path, with or without the
    ///   query); values are JSON bodies answered with status 200. Other keys are ignored, so
    ///   `ProcessInfo.processInfo.environment` can be passed as is.
    public func seeded(from environment: [String: String]) -> StubbingBuilder {
        changed { $0.seeds.merge(environment.filter { $0.key.contains("://") }) { _, new in new } }
    }

    /// Answers from JSON files in `folder`: `<folder>/<method>/<path>.json` (method in lower case),
    /// else `<folder>/<path>.json`. A request with no file fails with
    /// ``StubError/missingFixture(request:searched:)`` unless a default answer was configured.
    public func fixtures(in folder: URL) -> StubbingBuilder {
        changed { $0.fixtureFolder = folder }
    }

    /// Runs stub delays, request deadlines and retry pauses on `clock` instead of real time.
    public func clock(_ clock: VirtualClock) -> StubbingBuilder {
        changed { $0.clockScheduler = clock }
    }

    /// Records every request that reaches the stub transport into `recorder`.
    public func recording(into recorder: StubRecorder) -> StubbingBuilder {
        changed { $0.recorder = recorder }
    }

    /// Sends the requests no stub answers to `transport` instead of the default answer (and
    /// instead of failing for a missing fixture), as well as every request answered with
    /// ``StubResponse/passthrough``: stub the endpoints you are testing and let the rest reach a
    /// real or loopback server, like Moya's per-target `stubClosure`. The default answer's
    /// ``status(_:)``, ``body(_:)`` and the like no longer apply once this is set.
    ///
    /// A passed-through request still runs the client's whole pipeline, and the transport gets
    /// the same context a real client gives it (deadline, progress, downloads and streams work as
    /// without stubs). Use a configuration with the real server's base URL:
    /// ``makeClient()``'s `https://stub.courier.invalid` never resolves. A passed-through download
    /// does not resume from a ``DownloadResumption`` (it starts from the first byte).
    ///
    /// ```swift
    /// let client = NetworkClient.stubbing()
    ///     .stub(.post, "checkout", .json(#"{"metadata":{"status":"5001","desc":"Card declined"}}"#, status: 402))
    ///     .passthrough(to: URLSessionTransport())   // everything else: the staging server
    ///     .makeClient(configuration: NetworkClient.Configuration(baseURL: staging))
    /// ```
    ///
    /// - Parameter transport: Where unanswered requests go, for example ``URLSessionTransport``.
    public func passthrough(to transport: any HTTPTransport) -> StubbingBuilder {
        changed { $0.passthroughTransport = transport }
    }

    /// What a request gets when nothing more specific answers it: the default response, or,
    /// with ``passthrough(to:)``, the passthrough transport's answer.
    var fallbackResponse: StubResponse {
        passthroughTransport == nil ? defaultResponse : .passthrough
    }

    private func adding(_ method: HTTPMethod, _ path: String, _ source: StubSource) -> StubbingBuilder {
        changed { $0.routes.append(StubRoute(method: method, path: path, source: source, order: $0.routes.count)) }
    }

    private func changingDefault(_ change: (inout StubResponse) -> Void) -> StubbingBuilder {
        changed {
            change(&$0.defaultResponse)
            $0.hasExplicitDefault = true
        }
    }

    private func changed(_ change: (inout StubbingBuilder) -> Void) -> StubbingBuilder {
        var copy = self
        change(&copy)
        return copy
    }
}
