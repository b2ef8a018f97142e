import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransportDelegate {
    // MARK: URLSessionDataDelegate: the response head

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let identifier = dataTask.taskIdentifier
        let http = response as? HTTPURLResponse
        if let cookies, let http, dataTask.originalRequest?.httpShouldHandleCookies != false { cookies.store(from: http) }
        let headers = Self.headers(of: http)
        var report: ProgressReport?
        // A HEAD answer, a 1xx, 204 or 304 has no body, whatever its Content-Length says (RFC 9110
        // lets a 304 or a HEAD answer declare the size of the body a GET would get).
        let status = http?.statusCode ?? 0
        let hasBody = !(100...199 ~= status || status == 204 || status == 304)
            && dataTask.originalRequest?.httpMethod?.uppercased() != "HEAD"
        if streamBody(of: dataTask, head: http, status: status, headers: headers) {
            return completionHandler(.allow)
        }
        var staleFile: BodyFileWriter?   // an earlier response's body (a second response replaces it)
        var resumed: PartialDownload?    // the saved start of a body whose rest is arriving
        var unused: PartialDownload?     // the saved start of a body the server sends whole (or not at all)
        let refused = tasks.withLock { tasks -> Bool in
            // (A redirect the transport follows itself: its response is dropped, see `resend`.)
            guard var entry = tasks[identifier], entry.resendTo == nil else { return false }
            entry.statusCode = http?.statusCode
            entry.headers = headers
            entry.url = response.url
            let expected = hasBody ? response.expectedContentLength : 0
            if entry.progress != nil {
                // A compressed body's Content-Length counts compressed bytes, but the chunks
                // arrive decompressed: no total then, rather than a wrong one.
                let encoding = headers.headerValue("Content-Encoding")?.lowercased()
                let compressed = encoding.map { !$0.isEmpty && $0 != "identity" } ?? false
                entry.transfer.totalBytesToReceive = expected >= 0 && !compressed ? expected : nil
            }
            if entry.toFile {
                // No size limit: the body goes to a file, created when its first chunk arrives.
                swap(&staleFile, &entry.file)
                let refused = Self.resumeOrStartOver(
                    &entry, status: status, headers: headers, declaredLength: expected, request: dataTask.originalRequest,
                    resumed: &resumed, unused: &unused)
                tasks[identifier] = entry
                report = entry.report
                return refused
            }
            if expected > Int64(entry.maximumSize) {
                entry.failure = entry.failure ?? NetworkError.responseTooLarge(limit: entry.maximumSize)
                tasks[identifier] = entry
                return true
            }
            // The declared length is the server's word, not a fact: reserve at most 1 MiB up
            // front (a huge reservation traps in Foundation or wastes memory); the body grows
            // as it arrives, and the limit is checked on every chunk.
            // A second response (after an answered authentication challenge) replaces the first.
            entry.body = Data()
            entry.transfer.bytesReceived = 0
            if expected > 0 { entry.body.reserveCapacity(Int(min(expected, Self.largestReservation))) }
            tasks[identifier] = entry
            report = entry.report
            return false
        }
        staleFile?.discard()
        unused?.discard()
        let reopened = resumed.map { reopen($0, for: identifier) } ?? true
        if let report { report.listener(report.transfer) }
        completionHandler(refused || !reopened ? .cancel : .allow)
        // FoundationNetworking ignores the disposition and keeps receiving the body until it ends
        // (or the client's deadline reports a retryable `.timedOut`): cancel the task outright.
        if refused || !reopened { dataTask.cancel() }
    }

    /// For a ``NetworkClient/stream(_:)`` request whose stream takes this head: the head goes to
    /// the client now, and the body will go to the stream as it arrives. `false` otherwise.
    ///
    /// The stream is asked outside the lock: it runs the client's authenticator, which is user
    /// code. No chunk can arrive meanwhile (the delegate queue runs one callback at a time).
    private func streamBody(of task: URLSessionDataTask, head http: HTTPURLResponse?, status: Int, headers: [String: String]) -> Bool {
        let identifier = task.taskIdentifier
        let candidate = tasks.withLock { tasks -> (ResponseBodyStream, URL?, @Sendable (Result<HTTPResponse, any Error>) -> Void)? in
            guard let entry = tasks[identifier], let stream = entry.stream, !entry.streaming, entry.failure == nil else {
                return nil
            }
            return (stream, entry.originalURL, entry.completion)
        }
        guard let (stream, originalURL, completion) = candidate else { return false }
        let head = HTTPResponse(statusCode: status, headers: headers, url: http?.url ?? originalURL)
        guard stream.shouldStream(head) else { return false }
        tasks.withLock { tasks in
            tasks[identifier]?.streaming = true
            tasks[identifier]?.statusCode = status
            tasks[identifier]?.headers = headers
            tasks[identifier]?.url = head.url
        }
        // Off the delegate queue, as every completion (see `didCompleteWithError`).
        DispatchQueue.global().async { completion(.success(head)) }
        return true
    }

    /// The header fields of `response` as strings.
    static func headers(of response: HTTPURLResponse?) -> [String: String] {
        guard let fields = response?.allHeaderFields else { return [:] }
        var headers: [String: String] = [:]
        headers.reserveCapacity(fields.count)
        // `key.base` skips `AnyHashable`'s own cast machinery: about a fifth cheaper per field.
        for (key, value) in fields {
            if let key = key.base as? String, let value = value as? String { headers[key] = value }
        }
        return headers
    }

    /// The most memory set aside for a body before it arrives, whatever its declared length.
    static let largestReservation: Int64 = 1 << 20
}
