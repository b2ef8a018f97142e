import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A redirect that keeps the method (a 307 or 308, and on FoundationNetworking also a 301 or 302
/// of a method other than `POST`) must keep the body. FoundationNetworking sends the redirected
/// request without it (`Content-Length: 0`, a file upload's file left out), so on Linux the
/// transport lets FoundationNetworking deliver the redirect, then sends the next request itself,
/// body included, on a new task of the same session. The request keeps its completion, progress
/// listener and handle (a cancel reaches the new task). At most ``maximumResentRedirects`` such
/// redirects are followed for one request; FoundationNetworking counts the redirects it follows
/// itself separately, per task.
extension URLSessionTransportDelegate {
    /// Redirects followed by a new task before the request fails (FoundationNetworking's own limit per task).
    static let maximumResentRedirects = 20

    /// `decision`, unless it follows a redirect that keeps the method of a request with a body on
    /// FoundationNetworking: then the redirect response is delivered to this delegate (`.deliver`)
    /// and the next request, with the body, is kept for ``resend(_:to:in:)``; or the request fails
    /// when the body cannot be sent again.
    ///
    /// - Parameter hop: The request that got the redirect (after a 303, a `GET` without a body).
    func keepingBody(
        _ decision: RedirectRule.Decision, of hop: URLRequest?, status: Int, identifier: Int
    ) -> RedirectRule.Decision {
        #if canImport(FoundationNetworking)
        guard case .follow(var next) = decision else { return decision }
        let method = hop?.httpMethod?.uppercased() ?? "GET"
        // A 303 (or a 301 or 302 of a POST) turns the request into a GET without a body, as everywhere.
        guard method != "GET", method != "HEAD", next.httpMethod?.uppercased() == method else { return decision }
        return tasks.withLock { tasks -> RedirectRule.Decision in
            guard let entry = tasks[identifier] else { return decision }
            let bodyStream = hop?.httpBodyStream != nil && !entry.uploadsFile
            guard entry.uploadsFile || bodyStream || hop?.httpBody?.isEmpty == false else { return decision }
            let refusal = "a \(status) redirect of a request with a body is not followed"
            if bodyStream || entry.toFile || entry.stream != nil {
                // A stream cannot be read twice; a download's or a stream's response state is not
                // worth rebuilding for a case this rare.
                let why = bodyStream ? "its body is a stream, which can be read only once"
                    : "FoundationNetworking would send it without its body"
                return .refuse(.invalidRequest(reason: "\(refusal) (\(why))"))
            }
            guard entry.resentRedirects < Self.maximumResentRedirects else {
                return .refuse(.transport(underlying: URLError(.httpTooManyRedirects)))
            }
            if next.httpBody == nil, !entry.uploadsFile { next.httpBody = hop?.httpBody }
            tasks[identifier]?.resendTo = next
            return .deliver
        }
        #else
        return decision
        #endif
    }

    /// Sends `next` (the redirected request, body included) on a new task of `session`, for the
    /// request `entry` describes; the redirect response, now complete, is dropped.
    func resend(_ entry: Entry, to next: URLRequest, in session: URLSession) {
        entry.file?.discard()
        var fresh = entry
        fresh.resendTo = nil
        fresh.resentRedirects += 1
        fresh.redirected = true
        fresh.statusCode = nil
        fresh.headers = [:]
        fresh.url = nil
        fresh.body = Data()
        fresh.file = nil
        fresh.transfer.bytesReceived = 0
        fresh.transfer.totalBytesToReceive = nil
        fresh.transfer.bytesSent = 0
        fresh.sentBeforeCredential = 0
        fresh.answeredWithCredential = false
        fresh.declinedChallenge = false
        // Made under the lock the transport's deinit invalidates the session in: a task made on
        // an invalidated session traps.
        let made = sessionInvalidated.withLock { invalidated -> (task: URLSessionTask, memory: Int64)? in
            guard !invalidated else { return nil }
            return entry.uploadFile.map { session.courierUploadTask(with: next, fromFile: $0) } ?? (session.dataTask(with: next), 0)
        }
        guard let (task, memory) = made else {
            return finish(entry, with: .invalidRequest(reason: "the transport was released before it could follow a redirect"))
        }
        fresh.memoryHeld = memory
        observer?.taskCreated(task)   // before anything can cancel it: its end is reported either way
        tasks.withLock { $0[task.taskIdentifier] = fresh }
        // The handle first: a request cancelled meanwhile never sends its body again.
        if let handle = entry.handle, !handle.replace(with: task) {
            tasks.withLock { $0[task.taskIdentifier] = nil }
            UploadFromMemory.release(memory)
            task.cancel()
            return finish(entry, with: .cancelled)
        }
        task.resume()
    }

    /// Reports `error` to the request of `entry`, whose task is already gone.
    private func finish(_ entry: Entry, with error: NetworkError) {
        let completion = entry.completion
        DispatchQueue.global().async { completion(.failure(error)) }
    }

    /// Invalidates `session` (letting its running tasks finish); no task is made on it afterwards.
    func invalidate(_ session: URLSession) {
        sessionInvalidated.withLock { invalidated in
            invalidated = true
            session.finishTasksAndInvalidate()
        }
    }
}
