import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` that sends Courier's requests with AsyncHTTPClient's `HTTPClient`.
///
/// This is the worked example of plugging another HTTP engine into Courier: the client still
/// builds the request, holds it while paused, adds credentials, runs plugins, enforces the
/// deadline, classifies the status, retries and decodes; the transport only turns a
/// `URLRequest` into an `HTTPClient.Request`, sends it, and turns the answer into an
/// ``HTTPResponse``. It lives in the benchmark package so that Courier itself keeps no
/// dependencies; copy it into your own package next to an `async-http-client` dependency.
///
/// You own the `HTTPClient`: create it once, share it, and shut it down after the last request.
/// Create it with `redirectConfiguration: .disallow` (see ``makeHTTPClient(eventLoopGroup:)``):
/// `URLSessionTransport` strips credentials on a cross-host redirect and refuses https → http,
/// and the simplest way to keep those rules with another engine is not to follow redirects,
/// so that a `3xx` reaches the caller as `NetworkError.unexpectedStatus`.
///
/// ```swift
/// let http = AsyncHTTPClientTransport.makeHTTPClient()
/// let client = NetworkClient(
///     configuration: .init(baseURL: URL(string: "https://api.example.com")!),
///     transport: AsyncHTTPClientTransport(client: http))
/// // … requests …
/// try await http.shutdown()
/// ```
///
/// What it maps:
/// - method, URL, every header and `httpBody` of the request (a streamed `httpBodyStream` is
///   not supported and fails the request with `NetworkError.invalidRequest`);
/// - a `NetworkClient.stream(_:)` request's body, piece by piece as AsyncHTTPClient receives it
///   (`context.bodyStream`; see ``StreamingResponseDelegate``);
/// - the response's status, headers (repeated fields joined with ", "), body and URL;
/// - `context.maximumResponseSize`: the body is accumulated with that limit, and a larger one
///   fails with `NetworkError.invalidRequest(reason: "response larger than N bytes")`, the same
///   error `URLSessionTransport` reports;
/// - errors: AsyncHTTPClient's cancellation becomes `URLError(.cancelled)`, its deadline and
///   read/connect timeouts `URLError(.timedOut)`; the client maps those to
///   `NetworkError.cancelled` and `.timedOut`. Anything else becomes
///   `NetworkError.transport(underlying:)` in the client, with AsyncHTTPClient's error inside;
/// - progress: when the caller listens (`context.progress`: a `ProgressHandler`, or an
///   `idleTimeout`), a report once the request body is sent, when the head arrives and with each
///   body part (see ``ProgressReportingDelegate``), so an idle timeout sees the transfer move.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The AsyncHTTPClient instance that sends the requests; owned and shut down by the caller.
    public let client: HTTPClient

    /// Wraps an existing `HTTPClient`.
    ///
    /// - Parameter client: The engine. Create it with `redirectConfiguration: .disallow`
    ///   unless you have made its redirect handling as strict as `URLSessionTransport`'s; shut it
    ///   down yourself when no request is left.
    public init(client: HTTPClient) {
        self.client = client
    }

    /// Makes an `HTTPClient` configured the way Courier expects: redirects are not followed
    /// (a `3xx` reaches the caller), everything else is AsyncHTTPClient's default.
    ///
    /// - Parameter eventLoopGroup: The loops it runs on. Default: AsyncHTTPClient's shared
    ///   singleton group.
    /// - Returns: A client that the caller must shut down (`try await client.shutdown()`).
    public static func makeHTTPClient(
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }

    /// Sends `request` and calls `completion` exactly once with the response or the error.
    ///
    /// - Parameters:
    ///   - request: The request as the client prepared it (credentials and plugins applied).
    ///   - context: The client's per-request context; only `maximumResponseSize` is used here.
    ///   - completion: Called once, on one of AsyncHTTPClient's event loops.
    /// - Returns: A handle whose `cancel()` cancels the AsyncHTTPClient task.
    public func send(
        _ request: URLRequest,
        context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        let outgoing: HTTPClient.Request
        do {
            outgoing = try Self.makeRequest(from: request)
        } catch {
            completion(.failure(error))
            return CompletedTask()
        }
        let url = request.url
        let limit = min(max(context.maximumResponseSize, 0), Int(UInt32.max))
        if let stream = context.bodyStream {
            return sendStreaming(outgoing, url: url, limit: limit, stream: stream, completion: completion)
        }
        let deadline = Self.deadline(for: request.timeoutInterval)
        if let progress = context.progress {
            let sent = Int64(request.httpBody?.count ?? 0)
            let reporting = ProgressReportingDelegate(url: url, limit: limit, sent: sent, progress: progress)
            let task = client.execute(request: outgoing, delegate: reporting, deadline: deadline)
            task.futureResult.whenComplete { result in
                completion(result.mapError { Self.translate($0, limit: context.maximumResponseSize) })
            }
            return ProgressReportingTask(task: task)
        }
        let delegate = ResponseAccumulator(request: outgoing, maxBodySize: limit)
        let task = client.execute(request: outgoing, delegate: delegate, deadline: deadline)
        task.futureResult.whenComplete { result in
            switch result {
            case .success(let response):
                completion(.success(Self.makeResponse(from: response, url: url)))
            case .failure(let error):
                completion(.failure(Self.translate(error, limit: context.maximumResponseSize)))
            }
        }
        return AsyncHTTPClientTask(task: task)
    }

    /// A `NetworkClient.stream(_:)` request: the body goes to `stream` as it arrives (see
    /// ``StreamingResponseDelegate``). No AsyncHTTPClient deadline: the client's own deadline
    /// covers the wait for the head, and its idle timeout the body, which may last as long as
    /// data keeps coming.
    private func sendStreaming(
        _ outgoing: HTTPClient.Request, url: URL?, limit: Int, stream: ResponseBodyStream,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        let delegate = StreamingResponseDelegate(stream: stream, url: url, limit: limit, completion: completion)
        let task = client.execute(request: outgoing, delegate: delegate)
        task.futureResult.whenComplete { delegate.finish($0) }
        return StreamingTask(task: task)
    }

    // MARK: Translation

    /// The `HTTPClient.Request` for a `URLRequest`: method, URL, headers and body.
    static func makeRequest(from request: URLRequest) throws -> HTTPClient.Request {
        guard let url = request.url else {
            throw NetworkError.invalidRequest(reason: "the request has no URL")
        }
        if request.httpBodyStream != nil {
            throw NetworkError.invalidRequest(reason: "AsyncHTTPClientTransport does not send httpBodyStream bodies")
        }
        var headers = HTTPHeaders()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers.add(name: name, value: value)
        }
        let body = request.httpBody.map { HTTPClient.Body.bytes($0) }
        let method = NIOHTTP1.HTTPMethod(rawValue: request.httpMethod ?? "GET")
        return try HTTPClient.Request(url: url, method: method, headers: headers, body: body)
    }

    /// Courier's response for AsyncHTTPClient's: repeated header fields are joined with ", ".
    static func makeResponse(from response: HTTPClient.Response, url: URL?) -> HTTPResponse {
        let body = response.body.map { Data($0.readableBytesView) } ?? Data()
        return makeResponse(status: response.status, headers: response.headers, body: body, url: response.url ?? url)
    }

    /// Courier's response for a status, header fields (repeated ones joined with ", ") and body.
    static func makeResponse(status: HTTPResponseStatus, headers fields: HTTPHeaders, body: Data, url: URL?) -> HTTPResponse {
        var headers: [String: String] = [:]
        for field in fields {
            if let existing = headers[field.name] {
                headers[field.name] = existing + ", " + field.value
            } else {
                headers[field.name] = field.value
            }
        }
        return HTTPResponse(statusCode: Int(status.code), headers: headers, body: body, url: url)
    }

    /// AsyncHTTPClient's errors in the terms Courier's client understands.
    static func translate(_ error: any Error, limit: Int) -> any Error {
        if error is ResponseAccumulator.ResponseTooBigError || error is StreamingResponseDelegate.TooLarge {
            return NetworkError.invalidRequest(reason: "response larger than \(limit) bytes")
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .cancelled:
                return URLError(.cancelled)
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout:
                return URLError(.timedOut)
            default:
                return client
            }
        }
        return error
    }

    /// A backstop deadline matching the request's timeout (the client's own deadline is the
    /// one that settles the request); none for a non-finite or non-positive timeout.
    static func deadline(for timeout: TimeInterval) -> NIODeadline? {
        guard timeout.isFinite, timeout > 0, timeout < 365 * 24 * 3600 else { return nil }
        return .now() + .nanoseconds(Int64((timeout * 1_000_000_000).rounded(.up)))
    }
}

/// The handle of a request in flight; cancelling it cancels AsyncHTTPClient's task.
struct AsyncHTTPClientTask: TransportTask {
    let task: HTTPClient.Task<HTTPClient.Response>

    func cancel() {
        task.cancel()
    }
}

/// The handle of a streamed request; cancelling it cancels AsyncHTTPClient's task.
struct StreamingTask: TransportTask {
    let task: HTTPClient.Task<Void>

    func cancel() {
        task.cancel()
    }
}

/// The handle of a request that failed before it was sent: nothing to cancel.
struct CompletedTask: TransportTask {
    func cancel() {}
}
