import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transport may want to know about a request besides the `URLRequest` itself.
///
/// Built by the client for every attempt; a stub transport uses ``sampleData`` and
/// ``scheduler`` to answer with the endpoint's sample body on the client's clock.
public struct TransportContext: Sendable {
    /// The endpoint's method.
    public let method: HTTPMethod
    /// The endpoint's `path` exactly as written (before it was joined to the base URL).
    public let endpointPath: String
    /// The endpoint's ``Endpoint/sampleData``.
    public let sampleData: Data
    /// The client's scheduler (``NetworkClient/Configuration/scheduler``), for simulated delays.
    public let scheduler: any RequestScheduler
    /// The largest response body, in bytes, the client accepts.
    public let maximumResponseSize: Int
    /// Where to report the transfer's progress, or `nil` when nobody asked for it (skip the
    /// bookkeeping then). Call it from any thread, as often as the engine tells you, before
    /// calling the completion; the client queues each report for the caller's
    /// ``ProgressHandler`` and drops reports that arrive after the request settled. With an
    /// ``Endpoint/idleTimeout`` the reports are also what shows the attempt is alive: a transport
    /// that never reports has its attempts time out after one idle period.
    ///
    /// ```swift
    /// context.progress?(TransferProgress(bytesSent: sent, totalBytesToSend: total))
    /// ```
    public internal(set) var progress: (@Sendable (TransferProgress) -> Void)?
    /// `true` for a download (``NetworkClient/download(_:to:progress:)-(_,URL,_)``): the caller wants the
    /// body on disk, not in memory. A transport that can stream it writes it to a file of its own
    /// (in a temporary directory; the client moves or deletes it) and reports that file in
    /// ``HTTPResponse/bodyFileURL`` with an empty ``HTTPResponse/body``; such a body is not held to
    /// ``maximumResponseSize``. A transport that ignores this answers in memory as usual, and the
    /// client writes the body to the destination itself.
    public internal(set) var writesBodyToFile: Bool
    /// The file the body streams from, with its symbolic links resolved: the file of a
    /// ``RequestBody/file(_:contentType:)`` body, or the client's temporary copy of a multipart
    /// form larger than 1 MiB with file parts (deleted once the request is over and the
    /// transport has released its completion); `nil` otherwise. The request's `httpBodyStream`
    /// reads the same file (opened afresh for each attempt), so a transport may use either;
    /// ``URLSessionTransport`` sends the file itself.
    public internal(set) var uploadFile: URL?
    /// Which redirects this request follows, when its endpoint chose
    /// (``Endpoint/redirectPolicy``); `nil` leaves it to the transport. ``URLSessionTransport``
    /// applies the stricter of it and its own policy; a transport that follows redirects itself
    /// should too, and one that follows none may ignore it.
    public internal(set) var redirectPolicy: URLSessionTransport.RedirectPolicy?
    /// Where to stream the body as it arrives, for a ``NetworkClient/stream(_:)`` request;
    /// `nil` otherwise. A transport that can stream asks
    /// ``ResponseBodyStream/shouldStream(_:)`` when the head arrives (see
    /// ``ResponseBodyStream``); one that ignores it answers with the whole body, which the caller
    /// then reads as a single piece. Each attempt gets its own.
    public internal(set) var bodyStream: ResponseBodyStream?
    /// For a download's retry: the start of the body the previous attempt saved, whose rest the
    /// request asks for (`Range`, `If-Range`). Only ``URLSessionTransport`` makes one (when a
    /// transport error cuts a resumable body short), so only it is ever given one; it owns the
    /// file for the attempt and appends a `206` answering for exactly the rest to it.
    var partialDownload: PartialDownload?
    /// Whether a download's body that a transport error cuts short is kept for the next attempt
    /// (``partialDownload``): set by the client for a download whose endpoint retries and accepts
    /// `206`. Off for every other caller of a transport, who gets the transport's error as is.
    var resumesDownloads = false

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - method: The endpoint's method.
    ///   - endpointPath: The endpoint's path as written.
    ///   - sampleData: The endpoint's sample data. Default: empty.
    ///   - scheduler: The clock for simulated delays. Default: ``DispatchScheduler``.
    ///   - maximumResponseSize: The body size limit in bytes. Default: 50 MiB.
    ///   - progress: Where the transport reports progress. Default: `nil`, nobody listens.
    ///   - writesBodyToFile: Whether the body should go to a file (a download). Default: `false`.
    ///   - uploadFile: The file the request body streams from. Default: `nil`, none.
    public init(
        method: HTTPMethod,
        endpointPath: String,
        sampleData: Data = Data(),
        scheduler: any RequestScheduler = DispatchScheduler(),
        maximumResponseSize: Int = 50 * 1024 * 1024,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        writesBodyToFile: Bool = false,
        uploadFile: URL? = nil
    ) {
        self.method = method
        self.endpointPath = endpointPath
        self.sampleData = sampleData
        self.scheduler = scheduler
        self.maximumResponseSize = maximumResponseSize
        self.progress = progress
        self.writesBodyToFile = writesBodyToFile
        self.uploadFile = uploadFile
    }
}

/// A request a transport has started; the client cancels it on timeout or when the caller cancels.
public protocol TransportTask: Sendable {
    /// Stops the request. Calling it after the request completed, or twice, does nothing.
    func cancel()
}

/// Sends one HTTP request and reports the response: the only step that differs between the
/// network (``URLSessionTransport``), stubs, and any other HTTP engine you plug in.
///
/// Everything else (building, the pause gate, credentials, plugins, the deadline, status
/// classification, retries, decoding) is done by ``NetworkClient`` around the transport.
///
/// ```swift
/// struct EchoTransport: HTTPTransport {
///     struct Task: TransportTask { func cancel() {} }
///     func send(_ request: URLRequest, context: TransportContext,
///               completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> any TransportTask {
///         completion(.success(HTTPResponse(statusCode: 200, body: request.httpBody ?? Data(), url: request.url)))
///         return Task()
///     }
/// }
/// let client = NetworkClient(configuration: .init(baseURL: url), transport: EchoTransport())
/// ```
public protocol HTTPTransport: Sendable {
    /// Starts sending `request`.
    ///
    /// - Parameters:
    ///   - request: The request exactly as it should go out (credentials and plugins applied).
    ///   - context: Facts about the endpoint and the client's limits.
    ///   - completion: Call it exactly once with any HTTP response (whatever its status) or with
    ///     the error that prevented one, on any thread, possibly before `send` returns.
    ///     After the task was cancelled, report `URLError(.cancelled)` or nothing at all: the
    ///     client settles a cancelled request itself and ignores late completions. A response
    ///     whose ``HTTPResponse/bodyFileURL`` is set hands that file over: the client moves it
    ///     (a download) or reads and deletes it, even when the completion comes late.
    /// - Returns: A handle the client uses to cancel the request.
    func send(
        _ request: URLRequest,
        context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask
}
