import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: one `URLSession` with a delegate, shared by all requests of a client.
///
/// - A redirect within one origin (scheme, host and port) keeps every header. A redirect to
///   another origin (another host, another port of the same host, or `http` to `https`) drops
///   `Authorization`, `Cookie`, `Proxy-Authorization` and every other header that
///   ``NetworkError`` descriptions would redact (names containing "token", "secret", "api-key",
///   "signature" and the like, or ending in "key"),
///   because FoundationNetworking on Linux would forward them all. Each hop of a chain is judged
///   on its own.
/// - A redirect from `https` to `http`, at any hop, is refused: the request fails with
///   ``NetworkError/invalidRequest(reason:)`` rather than sending anything in clear text.
/// - A body larger than ``TransportContext/maximumResponseSize`` is not read to the end: the
///   task is cancelled and the request fails with
///   ``NetworkError/invalidRequest(reason:)`` ("response larger than N bytes"). A download
///   (``TransportContext/writesBodyToFile``) is not limited: its body is written to a temporary
///   file as it arrives, reported in ``HTTPResponse/bodyFileURL``. A write that fails (a full
///   disk) fails the request, and the file is deleted whenever the request fails.
/// - A fractional `timeoutInterval` is rounded up to whole seconds before the request is handed
///   to `URLSession` (FoundationNetworking truncates it), and an infinite, NaN, zero, negative
///   or longer than 7 days one becomes 7 days (FoundationNetworking traps on the extremes and
///   times out at once on zero or less); the client's own deadline keeps the exact value.
/// - `URLError`s are reported as they are; the client maps them (`.timedOut` to
///   ``NetworkError/timedOut``, `.cancelled` to ``NetworkError/cancelled``, others to
///   ``NetworkError/transport(underlying:)``).
///
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.httpMaximumConnectionsPerHost = 8
/// let client = NetworkClient(configuration: .init(baseURL: url),
///                            transport: URLSessionTransport(configuration: configuration))
/// ```
public final class URLSessionTransport: HTTPTransport {
    /// Which redirects the transport follows.
    public enum RedirectPolicy: Sendable, Equatable {
        /// Follow every redirect, under the rules above (the default, as `URLSession` does).
        case follow
        /// Follow only redirects to the same scheme, host and port; any other 3xx is delivered
        /// as the response (a tool that must talk to one server and nowhere else).
        case sameOrigin
        /// Follow none: every 3xx is delivered as the response. The client then fails the
        /// request with ``NetworkError/unexpectedStatus(statusCode:response:)``, whose response
        /// carries the `Location` header (unless the endpoint's ``Endpoint/acceptedStatusCodes``
        /// accepts that 3xx: then it is the response).
        case never
    }

    private let session: URLSession
    private let delegate: URLSessionTransportDelegate
    /// Credential headers taken out of the configuration's `httpAdditionalHeaders`; added to each
    /// request instead (see `init`).
    private let sessionCredentials: [String: String]
    /// The names of ``sessionCredentials``, sorted, for the transport's mirror.
    var credentialHeaderNames: [String] { sessionCredentials.keys.sorted() }

    /// Creates a transport with its own `URLSession`.
    ///
    /// ```swift
    /// let oneServerOnly = URLSessionTransport(redirects: .sameOrigin)
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: The session configuration. Default: `.ephemeral` (no persistent
    ///     cookies, cache or credentials). On Linux its `urlCache` is not used: FoundationNetworking
    ///     can trap when a task is cancelled during its cache lookup, so a cache policy that reads
    ///     the cache loads from the network there. Credential headers in its `httpAdditionalHeaders`
    ///     (`Authorization`, `Cookie`, API keys, tokens: the names the redaction rules hide) are
    ///     sent with each request rather than by the session, so that a redirect to another host
    ///     drops them like the request's own; a request's own header of the same name wins. The
    ///     configuration object you pass is not changed.
    ///   - redirects: Which redirects to follow. Default: ``RedirectPolicy/follow``.
    ///   - taskObserver: Hears of every `URLSessionTask` and what URLSession reports about it,
    ///     for task-level loggers such as Pulse (see ``URLSessionTaskObserver``). Default: `nil`.
    public convenience init(
        configuration: URLSessionConfiguration = .ephemeral, redirects: RedirectPolicy = .follow,
        taskObserver: (any URLSessionTaskObserver)? = nil
    ) {
        self.init(configuration: configuration, redirects: redirects, answering: nil, observer: taskObserver)
    }

    /// Creates a transport with its own `URLSession` whose authentication challenges
    /// `challengeHandler` answers: a user and password for a server that asks with
    /// `WWW-Authenticate: Basic`, or on Apple platforms your own evaluation of the server's
    /// certificate (pinning).
    ///
    /// ```swift
    /// let transport = URLSessionTransport(challengeHandler: { challenge in
    ///     guard challenge.protectionSpace.host == "intranet.example.com",
    ///           challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic,
    ///           challenge.previousFailureCount == 0 else { return .performDefaultHandling }
    ///     return .useCredential(URLCredential(user: "reporter", password: password, persistence: .forSession))
    /// })
    /// ```
    ///
    /// Check the host: after a redirect, the challenge may come from another server (on Linux a
    /// credential is not used after a redirect at all; see ``ChallengeAnswer``). Without a
    /// handler (the other initialiser) every challenge gets ``ChallengeAnswer/performDefaultHandling``.
    ///
    /// - Parameters:
    ///   - configuration: The session configuration, as in ``init(configuration:redirects:taskObserver:)``.
    ///     Default: `.ephemeral`.
    ///   - redirects: Which redirects to follow. Default: ``RedirectPolicy/follow``.
    ///   - taskObserver: Hears of every task; see ``URLSessionTaskObserver``. Default: `nil`.
    ///   - challengeHandler: Decides each challenge; see ``ChallengeHandler`` for where it runs and
    ///     when it is no longer asked.
    public convenience init(
        configuration: URLSessionConfiguration = .ephemeral, redirects: RedirectPolicy = .follow,
        taskObserver: (any URLSessionTaskObserver)? = nil, challengeHandler: @escaping ChallengeHandler
    ) {
        self.init(configuration: configuration, redirects: redirects, answering: challengeHandler, observer: taskObserver)
    }

    private init(
        configuration: URLSessionConfiguration, redirects: RedirectPolicy, answering challengeHandler: ChallengeHandler?,
        observer: (any URLSessionTaskObserver)?
    ) {
        // URLSession adds `httpAdditionalHeaders` to every request it sends, redirects included,
        // where the redirect rule cannot see (or strip) them.
        let configuration = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        var credentials: [String: String] = [:]
        if var additional = configuration.httpAdditionalHeaders {
            for (key, value) in additional {
                guard let name = key as? String, Redaction.isSensitive(headerName: name) else { continue }
                credentials[name] = value as? String ?? String(describing: value)
                additional.removeValue(forKey: key)
            }
            configuration.httpAdditionalHeaders = additional
        }
        self.sessionCredentials = credentials
        #if canImport(FoundationNetworking)
        // FoundationNetworking's cookie handling breaks cookie sessions (see `CookieJar`): the
        // transport keeps and sends the session's cookies itself, in the same storage.
        var cookies: CookieJar?
        if configuration.httpShouldSetCookies, let storage = configuration.httpCookieStorage {
            cookies = CookieJar(storage: storage, policy: configuration.httpCookieAcceptPolicy)
            configuration.httpShouldSetCookies = false
            configuration.httpCookieStorage = nil
        }
        // With no storage of its own, FoundationNetworking would still parse every header line
        // of every response for cookies it then drops (about 40 000 instructions a request); the
        // policy `.never` stops it before the parse. The transport's jar kept the real policy.
        if configuration.httpCookieStorage == nil { configuration.httpCookieAcceptPolicy = .never }
        // FoundationNetworking looks every data task up in the session's URL cache, on a
        // background queue, before the task can load; a cancel that lands meanwhile reports the
        // task's failure out of order with its removal from the session, and the process traps
        // ("Trying to access a behaviour for a task that in not in the registry"). A cancel right
        // after the start did so in every run of a few thousand; without a cache, in none.
        configuration.urlCache = nil
        #else
        let cookies: CookieJar? = nil
        #endif
        let delegate = URLSessionTransportDelegate(
            redirects: redirects, challengeHandler: challengeHandler, cookies: cookies, observer: observer)
        let queue = OperationQueue()
        queue.name = "courier.urlsession"
        queue.maxConcurrentOperationCount = 1
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    /// How many tasks the transport still tracks: started and not yet completed (for tests).
    var tasksInFlight: Int { delegate.tasks.withLock { $0.count } }

    /// The session's URL cache (for tests).
    var sessionURLCache: URLCache? { session.configuration.urlCache }
    /// The session's own cookie policy and storage, for tests.
    var sessionCookieHandling: (policy: HTTPCookie.AcceptPolicy, storage: HTTPCookieStorage?) {
        (session.configuration.httpCookieAcceptPolicy, session.configuration.httpCookieStorage)
    }

    /// The longest timeout handed to `URLSession` (7 days, its default resource timeout).
    static let longestSessionTimeout: TimeInterval = 7 * 24 * 60 * 60

    deinit {
        // Lets running tasks finish, then releases the delegate (a session retains it until then).
        // The delegate starts no new task after this (a 307's resend would trap on an invalidated session).
        delegate.invalidate(session)
    }

    /// Starts a data task for `request`; see ``HTTPTransport/send(_:context:completion:)``.
    public func send(
        _ request: URLRequest,
        context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            // A plugin may have removed the URL or set another scheme; URLSession must not see it.
            let reason = "URLSessionTransport sends http and https URLs only, not \(request.url.map { Redaction.redact($0) } ?? "a request without a URL")"
            let refusal = NetworkError.invalidRequest(reason: reason)
            // A saved start offered to this attempt goes back untouched (see `InterruptedDownload`).
            completion(.failure(context.partialDownload.map { InterruptedDownload(underlying: refusal, partial: $0) } ?? refusal))
            return NoTask()
        }
        var request = request
        for (name, value) in sessionCredentials where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        let timeout = request.timeoutInterval
        if !(timeout > 0 && timeout <= Self.longestSessionTimeout) {
            // Infinity, NaN, absurdly large, zero or negative (a plugin may set any value):
            // FoundationNetworking converts the timeout to an integer and traps on the extremes,
            // and fires its timer at once for zero or less. The client's deadline still applies;
            // the session only gets a long finite backstop.
            request.timeoutInterval = Self.longestSessionTimeout
        } else if timeout.rounded(.up) != timeout {
            // FoundationNetworking truncates a fractional timeout to whole seconds (0.8 s fires at
            // once, 1.9 s after 1 s). The client's own deadline is exact, so the session's timer is
            // only a backstop and must never fire first: round it up.
            request.timeoutInterval = timeout.rounded(.up)
        }
        let cookieHeader: CallerCookie?
        (request, cookieHeader) = delegate.addingCookies(to: request)
        // A file body is sent from the file (URLSession streams it; on Linux a file up to 64 MiB
        // is sent from memory, see `UploadFromMemory`); the request's own stream over it is left out.
        let task: URLSessionTask
        var memoryHeld: Int64 = 0
        var bodySize = request.httpBodyStream == nil ? Int64(request.httpBody?.count ?? 0) : nil
        if let file = context.uploadFile {
            bodySize = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
            request.httpBodyStream = nil
            (task, memoryHeld) = session.courierUploadTask(with: request, fromFile: file)
        } else {
            task = session.dataTask(with: request)
        }
        let handle = TaskHandle(task: task)
        delegate.register(
            taskIdentifier: task.taskIdentifier, originalURL: request.url,
            maximumSize: context.maximumResponseSize, bodySize: bodySize,
            toFile: context.writesBodyToFile, uploadFile: context.uploadFile, memoryHeld: memoryHeld, handle: handle,
            progress: context.progress, stream: context.bodyStream,
            resumable: context.resumesDownloads, resuming: context.partialDownload, cookieHeader: cookieHeader,
            redirectPolicy: context.redirectPolicy, completion: completion)
        delegate.observer?.taskCreated(task)
        task.resume()
        return handle
    }
}

/// The handle of a request that was never started.
private struct NoTask: TransportTask {
    func cancel() {}
}

/// Cancels the `URLSessionTask` (a data or an upload task) that currently carries a request: the
/// first one, or the one the transport started itself to follow a redirect with its body.
// @unchecked: `current` is only read and written while holding `lock`. URLSessionTask's `cancel()`
// is documented as safe to call from any thread (and after completion it does nothing).
final class TaskHandle: TransportTask, @unchecked Sendable {
    private let lock = NSLock()
    private var current: URLSessionTask
    private var isCancelled = false
    /// The file a download's body is being written to (see ``adopt(bodyFile:)``).
    private var bodyFile: URL?
    /// Cancelled by ``cancelDiscardingBody()``: no body file may be created or kept from now on.
    private var discardsBody = false

    init(task: URLSessionTask) {
        current = task
    }

    func cancel() {
        // Under the lock, so that ``answerUnlessCancelled(_:)`` never answers after this.
        lock.withLock {
            isCancelled = true
            current.cancel()   // only schedules the stop on the task's own queue
        }
    }

    /// ``cancel()`` for a download nobody will resume (its caller cancelled it, and no
    /// ``DownloadResumption`` keeps its part): the body's file is deleted before this returns,
    /// so that a program that exits as soon as the request settles leaves no file behind. The
    /// delegate queue may still be writing to it: it writes to the unlinked file, which goes away
    /// when the task ends and closes it.
    func cancelDiscardingBody() {
        let file = lock.withLock { () -> URL? in
            isCancelled = true
            discardsBody = true
            current.cancel()
            defer { bodyFile = nil }
            return bodyFile
        }
        if let file { try? FileManager.default.removeItem(at: file) }
    }

    /// Makes the file a download's body is written to, and records it for
    /// ``cancelDiscardingBody()``, under the lock that cancellation takes: the file is either made
    /// before it (and deleted by it) or not at all, so none exists once the caller has heard of the
    /// cancellation. `nil` when that cancellation came first.
    func makeBodyFile() throws -> BodyFileWriter? {
        try lock.withLock {
            guard !discardsBody else { return nil }
            let writer = try BodyFileWriter()
            bodyFile = writer.url
            return writer
        }
    }

    /// Records the file the body is being written to, for ``cancelDiscardingBody()``; `false`
    /// when that cancellation came first, and the caller must delete the file itself.
    func adopt(bodyFile url: URL) -> Bool {
        lock.withLock {
            guard !discardsBody else { return false }
            bodyFile = url
            return true
        }
    }

    /// Runs `answer` (a delegate's completion handler) unless the request was cancelled, and
    /// returns whether it ran. FoundationNetworking traps ("Received callback for HTTP
    /// redirection, but we're not waiting for it") when a redirect's completion handler is called
    /// after its task was cancelled; a cancelled task ends without the answer.
    func answerUnlessCancelled(_ answer: () -> Void) -> Bool {
        lock.withLock {
            guard !isCancelled else { return false }
            answer()
            return true
        }
    }

    /// Makes `task` the one ``cancel()`` stops; `false` (and nothing changed) once the handle was cancelled.
    func replace(with task: URLSessionTask) -> Bool {
        lock.withLock {
            guard !isCancelled else { return false }
            current = task
            return true
        }
    }
}
