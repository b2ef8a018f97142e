import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects each task's response and body, applies the redirect and size rules, and reports
/// the outcome to the task's completion handler exactly once.
// @unchecked: NSObject subclasses cannot be checked; the only mutable state, `tasks`, lives in a
// `Protected` lock-box and is touched only inside `withLock`.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Entry: Sendable {
        let originalURL: URL?
        /// The request's own redirect policy (``TransportContext/redirectPolicy``); the stricter
        /// of it and the transport's `redirects` applies. Kept by the transport's own 307/308 resend.
        var redirectPolicy: URLSessionTransport.RedirectPolicy?
        let maximumSize: Int
        let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
        var statusCode: Int?
        var headers: [String: String] = [:]
        var url: URL?
        var body = Data()
        /// A download: the body goes to ``file`` as it arrives, and no size limit applies.
        let toFile: Bool
        /// A download's file, created when the first chunk of the body arrives (or reopened
        /// when the server sends the rest of ``resume``).
        var file: BodyFileWriter?
        /// A download's retry: the start of the body the previous attempt saved, until the head
        /// says whether the server sends its rest.
        var resume: PartialDownload?
        /// A download's `If-Range` validator, when a transport error would leave its body to be resumed.
        var validator: String?
        /// A download that keeps a body cut short for the next attempt (``TransportContext/resumesDownloads``).
        let resumable: Bool
        /// The whole body's length, when the server declared it (a download).
        var totalLength: Int64?
        /// The body is the rest of a saved start: the file must end at ``totalLength``.
        var appendsToSavedStart = false
        /// The file the body is sent from (an upload task, or on Linux its bytes; see `UploadFromMemory`).
        let uploadFile: URL?
        /// The bytes of `UploadFromMemory`'s budget this task's body holds, given back when it ends.
        var memoryHeld: Int64
        var uploadsFile: Bool { uploadFile != nil }
        /// What cancels the request's current task (`nil` in unit tests that register by hand).
        let handle: TaskHandle?
        /// The next request of a 307 or 308 that the transport sends itself with its body, once the
        /// redirect response is complete (FoundationNetworking; `URLSessionTransport+RedirectBody.swift`).
        var resendTo: URLRequest?
        /// Redirects followed by sending a new task.
        var resentRedirects = 0
        /// Set when a rule (size, redirect) ended the task: reported instead of what URLSession says.
        var failure: NetworkError?
        /// Where progress goes (`nil`: nobody listens), and what has been reported so far.
        let progress: (@Sendable (TransferProgress) -> Void)?
        var transfer = TransferProgress()
        /// Where a streamed request's body may go (``NetworkClient/stream(_:)``).
        let stream: ResponseBodyStream?
        /// The head was delivered and the body goes to `stream`: the completion has been called.
        var streaming = false
        /// An authentication challenge was declined to get the response it came with (FoundationNetworking).
        var declinedChallenge = false
        /// A challenge was answered with a credential: FoundationNetworking resends the original
        /// request, and would send it again instead of any later redirect.
        var answeredWithCredential = false
        /// A redirect was followed: FoundationNetworking would send a credential to the original URL.
        var redirected = false
        /// The bytes FoundationNetworking counted as sent before it resent the request with a credential.
        var sentBeforeCredential: Int64 = 0
        /// Set when ``URLSessionTransportDelegate/cookies`` handles this request's cookies: the
        /// caller's own `Cookie` header (`nil` inside when it had none), kept apart from the jar's.
        var cookieHeader: CallerCookie?

        /// The listener and the current report, or `nil` when nobody listens.
        var report: ProgressReport? { progress.map { ($0, transfer) } }
    }

    /// A progress listener and the report to give it, taken under the lock and made after it.
    typealias ProgressReport = (listener: @Sendable (TransferProgress) -> Void, transfer: TransferProgress)

    let tasks = Protected<[Int: Entry]>([:])
    /// Which redirects are followed at all (the rule below still applies to those that are).
    let redirects: URLSessionTransport.RedirectPolicy
    /// The user's answers to authentication challenges (`URLSessionTransport+Challenge.swift`).
    let challengeHandler: URLSessionTransport.ChallengeHandler?
    /// Held while the session is invalidated and while a new task is made on it; `true` once invalidated.
    let sessionInvalidated = Protected(false)
    /// Keeps and sends the session's cookies in FoundationNetworking's place (Linux; `nil` elsewhere,
    /// and when the session handles no cookies).
    let cookies: CookieJar?
    /// Hears of every task and what URLSession reports about it (``URLSessionTaskObserver``).
    let observer: (any URLSessionTaskObserver)?

    init(
        redirects: URLSessionTransport.RedirectPolicy = .follow, challengeHandler: URLSessionTransport.ChallengeHandler? = nil,
        cookies: CookieJar? = nil, observer: (any URLSessionTaskObserver)? = nil
    ) {
        self.redirects = redirects
        self.challengeHandler = challengeHandler
        self.cookies = cookies
        self.observer = observer
    }

    func register(
        taskIdentifier: Int, originalURL: URL?, maximumSize: Int, bodySize: Int64? = nil, toFile: Bool = false,
        uploadFile: URL? = nil, memoryHeld: Int64 = 0, handle: TaskHandle? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil, stream: ResponseBodyStream? = nil,
        resumable: Bool = false, resuming partial: PartialDownload? = nil, cookieHeader: CallerCookie? = nil,
        redirectPolicy: URLSessionTransport.RedirectPolicy? = nil,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) {
        var entry = Entry(
            originalURL: originalURL, maximumSize: maximumSize, completion: completion, toFile: toFile,
            resumable: toFile && resumable, uploadFile: uploadFile, memoryHeld: memoryHeld, handle: handle,
            progress: progress, stream: stream)
        entry.cookieHeader = cookieHeader
        entry.redirectPolicy = redirectPolicy
        entry.transfer.totalBytesToSend = bodySize
        entry.resume = toFile ? partial : nil
        if !toFile { partial?.discard() }
        // A retry's saved part is the body's file from the start: a caller who cancels before
        // the head arrives must find it (see ``TaskHandle/cancelDiscardingBody()``).
        if toFile, let partial, handle?.adopt(bodyFile: partial.fileURL) == false { partial.discard() }
        tasks.withLock { $0[taskIdentifier] = entry }
    }

    /// Updates task `identifier`'s progress with `change` and reports it, if anybody listens.
    /// The report is made outside the lock.
    func updateProgress(_ identifier: Int, _ change: (inout Entry) -> Void) {
        let report = tasks.withLock { tasks -> ProgressReport? in
            guard var entry = tasks[identifier], entry.progress != nil else { return nil }
            change(&entry)
            tasks[identifier] = entry
            return entry.report
        }
        if let report { report.listener(report.transfer) }
    }

    func fail(_ identifier: Int, with error: NetworkError) {
        tasks.withLock { tasks in
            if tasks[identifier]?.failure == nil { tasks[identifier]?.failure = error }
        }
    }

    // MARK: URLSessionDataDelegate (the response head: URLSessionTransport+ResponseHead.swift)

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        observer?.task(dataTask, didReceive: data)
        let identifier = dataTask.taskIdentifier
        var report: ProgressReport?
        var download: BodyFileWriter??   // a download's file (`.some(nil)`: not created yet)
        var stream: ResponseBodyStream?
        let overLimit = tasks.withLock { tasks -> Bool in
            guard var entry = tasks[identifier] else { return false }
            // Already failed (too large, or a refused redirect): the task was cancelled, and a
            // chunk that still arrives cancels it again (`cancel()` does nothing the second time).
            if entry.failure != nil { return true }
            if entry.resendTo != nil { return false }   // a redirect's body, dropped (see `resend`)
            if entry.streaming {
                // No size limit on the whole: the stream bounds what its reader has not read yet.
                stream = entry.stream
                return false
            }
            if entry.toFile {
                download = .some(entry.file)
                return false
            }
            tasks[identifier] = nil  // avoid a copy-on-write of the body while appending
            if entry.body.count + data.count > entry.maximumSize {
                entry.failure = NetworkError.responseTooLarge(limit: entry.maximumSize)
                entry.body = Data()
                tasks[identifier] = entry
                return true
            }
            entry.body.append(data)
            entry.transfer.bytesReceived = Int64(entry.body.count)
            report = entry.report
            tasks[identifier] = entry
            return false
        }
        if overLimit {
            dataTask.cancel()
        } else if let stream {
            stream.yield(data)   // in order: the delegate queue runs one callback at a time
        } else if let download {
            receive(data, into: download, task: dataTask)
        } else if let report {
            report.listener(report.transfer)
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        updateProgress(task.taskIdentifier) { entry in
            // FoundationNetworking keeps counting across a resend with a credential.
            entry.transfer.bytesSent = max(0, totalBytesSent - entry.sentBeforeCredential)
            // (FoundationNetworking reports 0 for a body it streams: the size the transport knows stays.)
            if totalBytesExpectedToSend > 0 { entry.transfer.totalBytesToSend = totalBytesExpectedToSend }
        }
    }

    // MARK: URLSessionTaskDelegate

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let identifier = task.taskIdentifier
        let registered = tasks.withLock { tasks in
            tasks[identifier].map { entry in
                (originalURL: entry.originalURL, answeredWithCredential: entry.answeredWithCredential,
                 handle: entry.handle, cookieHeader: entry.cookieHeader, redirectPolicy: entry.redirectPolicy)
            }
        }
        let original = registered?.originalURL ?? task.originalRequest?.url
        let decision = keepingBody(
            withCookies(
                Self.checkingAnsweredChallenge(
                    RedirectRule.decide(
                        from: original, hop: response.url, to: request,
                        location: response.value(forHTTPHeaderField: "Location"), policy: redirects.tightened(by: registered?.redirectPolicy)),
                    answeredWithCredential: registered?.answeredWithCredential == true),
                after: response, caller: registered?.cookieHeader, identifier: identifier),
            of: task.currentRequest ?? task.originalRequest, status: response.statusCode, identifier: identifier)
        // A request cancelled meanwhile gets no answer: FoundationNetworking would trap on it.
        let answer = { (reply: () -> Void) in Self.answer(through: registered?.handle, reply) }
        switch decision {
        case .follow(let next):
            tasks.withLock { $0[identifier]?.redirected = true }
            answer { completionHandler(next) }
        case .deliver:
            answer { completionHandler(nil) }   // the 3xx response itself is the answer
        case .refuse(let error):
            fail(identifier, with: error)
            answer {
                completionHandler(nil)
                task.cancel()
            }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        observer?.task(task, didFinishCollecting: metrics)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        observer?.task(task, didCompleteWithError: error)
        let identifier = task.taskIdentifier
        guard var entry = tasks.withLock({ $0.removeValue(forKey: identifier) }) else { return }
        UploadFromMemory.release(entry.memoryHeld)
        let error = Self.ignoringDeclinedChallenge(error, of: entry)
        if let next = entry.resendTo, error == nil, entry.failure == nil {
            return resend(entry, to: next, in: session)   // a 307 or 308 with its body (FoundationNetworking)
        }
        if entry.streaming {
            // The head went out already: only the stream hears how the body ended.
            entry.stream?.finish(throwing: entry.failure ?? error)
            return
        }
        if entry.statusCode == nil, let http = task.response as? HTTPURLResponse {
            // FoundationNetworking finishes some tasks (a 3xx without `Location`) without a
            // `didReceive response` callback: the response is read from the task.
            entry.statusCode = http.statusCode
            entry.headers = Self.headers(of: http)
            entry.url = http.url
            if entry.cookieHeader != nil { cookies?.store(from: http) }
        }
        if error == nil, entry.failure == nil, let writer = entry.file {
            if entry.appendsToSavedStart, writer.length != entry.totalLength {
                // The rest ended early (or ran long): the file is not the body.
                entry.failure = .transport(underlying: URLError(.badServerResponse))
            }
            do {
                try writer.finish()
            } catch {
                entry.failure = .transport(underlying: error)
            }
        }
        var result: Result<HTTPResponse, any Error>
        if let failure = entry.failure {
            result = .failure(failure)
        } else if let error {
            // A download cut short may leave what it saved for the next attempt.
            result = .failure(Self.partial(after: &entry).map { InterruptedDownload(underlying: error, partial: $0) } ?? error)
        } else if let statusCode = entry.statusCode {
            var response = HTTPResponse(
                statusCode: statusCode, headers: entry.headers, body: entry.body, url: entry.url ?? entry.originalURL,
                bodyFileURL: entry.file?.url)
            // An error answer to a resuming request hands the saved start back (see `resumeOrStartOver`).
            response.unresumedPart = entry.resume.map(UnresumedPart.init(part:))
            entry.resume = nil
            result = .success(response)
        } else {
            result = .failure(URLError(.badServerResponse))
        }
        if case .failure(let failure) = result {
            entry.file?.discard()
            // A saved start offered to an attempt that failed before using it (a refused
            // redirect, say) goes back untouched, for the next attempt.
            if let offered = entry.resume, !(failure is InterruptedDownload) {
                result = .failure(InterruptedDownload(underlying: failure, partial: offered))
                entry.resume = nil
            }
        }
        // Off the session's serial delegate queue: the client classifies and decodes in the
        // completion, which must not hold up the other tasks' callbacks.
        let completion = entry.completion
        let outcome = result
        DispatchQueue.global().async { completion(outcome) }
    }
}
