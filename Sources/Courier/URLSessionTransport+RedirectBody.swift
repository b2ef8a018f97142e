import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A 307 or 308 keeps the method and must keep the body. FoundationNetworking sends the
/// redirected request without it (`Content-Length: 0`, a file upload's file left out), so on
/// Linux the transport lets FoundationNetworking deliver the redirect, then sends the next request
/// itself, body included, on a new task of the same session. The request keeps its completion,
/// progress listener and handle (a cancel reaches the new task); redirects the transport follows
/// this way count against FoundationNetworking's limit of 20.
extension URLSessionTransportDelegate {
    /// Redirects followed by a new task before the request fails (FoundationNetworking's own limit).
    static let maximumResentRedirects = 20

    /// `decision`, unless it follows a 307 or 308 of a request with a body on FoundationNetworking:
    /// then the redirect response is delivered to this delegate (`.deliver`) and `next`, with the
    /// body, is kept for ``resend(_:to:in:)``; or the request fails when the body cannot be sent again.
    ///
    /// - Parameter hop: The request that got the redirect (after a 303, a `GET` without a body).
    func keepingBody(
        _ decision: RedirectRule.Decision, of hop: URLRequest?, status: Int, identifier: Int
    ) -> RedirectRule.Decision {
        #if canImport(FoundationNetworking)
        guard case .follow(var next) = decision, status == 307 || status == 308 else { return decision }
        return tasks.withLock { tasks -> RedirectRule.Decision in
            guard let entry = tasks[identifier] else { return decision }
            let method = hop?.httpMethod?.uppercased() ?? "GET"
            let bodyStream = hop?.httpBodyStream != nil && !entry.uploadsFile
            guard method != "GET", method != "HEAD",
                  entry.uploadsFile || bodyStream || hop?.httpBody?.isEmpty == false else { return decision }
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

    /// Sends `next` (a 307's or 308's request, body included) on a new task of `session`, for the
    /// request `entry` describes; its redirect response, now complete, is dropped.
    func resend(_ entry: Entry, to next: URLRequest, in session: URLSession) {
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
        fresh.transfer.bytesSent = 0
        fresh.sentBeforeCredential = 0
        fresh.answeredWithCredential = false
        fresh.declinedChallenge = false
        entry.file?.discard()
        let task = entry.uploadFile.map { session.uploadTask(with: next, fromFile: $0) } ?? session.dataTask(with: next)
        tasks.withLock { $0[task.taskIdentifier] = fresh }
        task.resume()
        // Cancelled meanwhile: the new task stops at once and reports the cancellation.
        if let handle = entry.handle, !handle.replace(with: task) { task.cancel() }
    }
}
