import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download's body on disk: written chunk by chunk, and resumed by a retry when a transport
/// error cut it short (see ``PartialDownload``).
extension URLSessionTransportDelegate {
    /// A download's head: when it answers for the rest of the body the previous attempt saved,
    /// that start is `resumed` (reopened after the lock) and progress counts from it; otherwise
    /// the saved start is `unused` (deleted after the lock), and the body starts over in a new
    /// file. Either way the entry learns whether this body could be resumed in turn.
    /// `true` when the head must be refused (the attempt fails with a retryable transport error,
    /// and the next one starts over): a `206` that is not exactly the rest asked for, or a `416`.
    static func resumeOrStartOver(
        _ entry: inout Entry, status: Int, headers: [String: String], declaredLength: Int64, request: URLRequest?,
        resumed: inout PartialDownload?, unused: inout PartialDownload?
    ) -> Bool {
        let offered = entry.resume
        entry.resume = nil
        entry.transfer.bytesReceived = 0   // a second response (after a challenge) starts the count again
        if let offered, let complete = offered.answer(status: status, headers: headers) {
            resumed = offered
            entry.validator = offered.validator
            entry.totalLength = complete
            entry.appendsToSavedStart = true
            entry.transfer.bytesReceived = offered.length
            entry.transfer.totalBytesToReceive = complete
            return false
        }
        if offered != nil, !(200...299).contains(status), status != 416 {
            // An error answer (a 401 before a credential refresh, a 503 before a retry) says
            // nothing about the saved start: it goes back with the response, for the next attempt.
            entry.resume = offered
            entry.totalLength = nil
            entry.validator = nil
            return false
        }
        unused = offered
        if offered != nil && (status == 206 || status == 416) {
            // Not the whole rest that was asked for (saved, it would make a wrong file), or
            // nothing to send (the saved start may have been the whole body): start over.
            entry.failure = entry.failure ?? .transport(underlying: URLError(.badServerResponse))
            return true
        }
        entry.totalLength = status == 200 && declaredLength >= 0 ? declaredLength : nil
        // A Range on a request that resumes nothing is the caller's own.
        let callerSetRange = offered == nil && request?.value(forHTTPHeaderField: "Range") != nil
        entry.validator = entry.resumable
            ? PartialDownload.validator(status: status, headers: headers, callerSetRange: callerSetRange) : nil
        return false
    }

    /// Reopens the saved start of a body for the rest to be appended; `false` (the file deleted
    /// and the task failed) when it cannot be written.
    func reopen(_ partial: PartialDownload, for identifier: Int) -> Bool {
        do {
            let writer = try BodyFileWriter(resuming: partial)
            let kept = tasks.withLock { tasks -> Bool in
                guard let entry = tasks[identifier], entry.handle?.adopt(bodyFile: writer.url) ?? true else { return false }
                tasks[identifier]?.file = writer
                return true
            }
            if !kept { writer.discard() }
            return true
        } catch {
            partial.discard()
            fail(identifier, with: .transport(underlying: error))
            return false
        }
    }

    /// A download's chunk: written to its file outside the lock (the delegate queue runs one
    /// callback at a time, so chunks are written in order), the file created for the first one.
    /// A file that cannot be created or written ends the task.
    func receive(_ data: Data, into existing: BodyFileWriter?, task: URLSessionDataTask) {
        let identifier = task.taskIdentifier
        do {
            let writer: BodyFileWriter
            if let existing {
                writer = existing
            } else {
                // Cancelled for good (``TaskHandle/cancelDiscardingBody()``): no file is made for
                // the chunks still arriving. The handle makes the file under its lock, so that such
                // a cancellation either deletes it or comes before it.
                guard let entry = tasks.withLock({ $0[identifier] }) else { return }
                if let handle = entry.handle {
                    guard let made = try handle.makeBodyFile() else { return }
                    writer = made
                } else {
                    writer = try BodyFileWriter()
                }
                // Not kept (and deleted) once the task is gone.
                let kept = tasks.withLock { tasks -> Bool in
                    guard tasks[identifier] != nil else { return false }
                    tasks[identifier]?.file = writer
                    return true
                }
                guard kept else { return writer.discard() }
            }
            try writer.write(data)
        } catch {
            fail(identifier, with: .transport(underlying: error))
            return task.cancel()
        }
        updateProgress(identifier) { $0.transfer.bytesReceived += Int64(data.count) }
    }

    /// What a transport error leaves to resume: the earlier attempt's saved start when no head
    /// arrived, or the body saved so far when it can be resumed (the entry lets go of either).
    static func partial(after entry: inout Entry) -> PartialDownload? {
        if let offered = entry.resume {
            entry.resume = nil
            return offered
        }
        guard let validator = entry.validator, let writer = entry.file else { return nil }
        entry.file = nil
        return writer.keep(validator: validator, totalLength: entry.totalLength)
    }
}
