import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Downloads in the async style: the same pipeline as `download(_:to:progress:)`, awaited
// without a promise, so that a cancelled task throws `NetworkError.cancelled` as `send` does
// (Get's `download(for:)`, Alamofire's `serializingDownloadedFileURL()`).
extension NetworkClient {
    /// Downloads `endpoint`'s body to `destination` and returns the saved file, in the async style
    /// of ``send(_:)``: everything ``download(_:to:progress:)-(_,URL,_)`` does (streamed to disk,
    /// retries that resume, the file replaced only by a complete body), awaited.
    ///
    /// ```swift
    /// let file = try await client.send(Backup(id: 42), downloadingTo: target)
    /// print(file.fileURL.path, file.response.statusCode)
    /// ```
    ///
    /// Cancelling the calling `Task` cancels the download and deletes what arrived of it before
    /// this throws.
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used.
    ///   - destination: The file URL to save the body to.
    ///   - progress: Where progress reports go (see ``ProgressHandler``); with one, this returns
    ///     from the reports' queue after the last report ran. Default: `nil`, none.
    /// - Returns: The saved file and the response it came with.
    /// - Throws: A ``NetworkError``; ``NetworkError/cancelled`` when the task was cancelled.
    @discardableResult
    public func send<E: Endpoint>(
        _ endpoint: E, downloadingTo destination: URL, progress: ProgressHandler? = nil
    ) async throws -> DownloadedFile {
        try await send(endpoint, downloadingTo: .file(destination), progress: progress)
    }

    /// ``send(_:downloadingTo:progress:)-(_,URL,_)`` to a destination that may depend on the
    /// response, such as the file name the server suggests (see ``DownloadDestination``).
    ///
    /// ```swift
    /// let file = try await client.send(Report(id: 7), downloadingTo: .suggested(in: reports))
    /// print(file.fileURL.lastPathComponent)   // "Q3 results.pdf"
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used.
    ///   - destination: Where to save the body.
    ///   - progress: Where progress reports go. Default: `nil`, none.
    /// - Returns: The saved file and the response it came with.
    /// - Throws: A ``NetworkError``; ``NetworkError/cancelled`` when the task was cancelled.
    @discardableResult
    public func send<E: Endpoint>(
        _ endpoint: E, downloadingTo destination: DownloadDestination, progress: ProgressHandler? = nil
    ) async throws -> DownloadedFile {
        let queue = progress.map { $0.queue ?? core.configuration.callbackQueue }
        return try await awaiting(on: queue) { handler throws(NetworkError) in
            try makeDownload(endpoint, to: destination, resolver: nil, handler: handler, progress: progress)
        }
    }

    /// ``send(_:downloadingTo:progress:)-(_,URL,_)`` that can stop part-way and continue later
    /// from where it stopped (see ``DownloadResumption``). Cancelling the task keeps what
    /// arrived in `resumption`, as ``DownloadResumption/pause()`` does.
    ///
    /// ```swift
    /// let resumption = DownloadResumption()
    /// let file = try await client.send(Video(id: 3), downloadingTo: target, resumption: resumption)
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send; give each download of one file the same endpoint.
    ///   - destination: The file URL to save the whole body to.
    ///   - resumption: Where a part left by an earlier download is taken from, and where this
    ///     download's part goes if it stops without the whole body.
    ///   - progress: Where progress reports go. Default: `nil`, none.
    /// - Returns: The saved file and the response it came with.
    /// - Throws: A ``NetworkError``: ``NetworkError/invalidRequest(reason:)`` at once when another
    ///   download still uses `resumption`, ``NetworkError/cancelled`` when the task was cancelled.
    @discardableResult
    public func send<E: Endpoint>(
        _ endpoint: E, downloadingTo destination: URL, resumption: DownloadResumption, progress: ProgressHandler? = nil
    ) async throws -> DownloadedFile {
        let queue = progress.map { $0.queue ?? core.configuration.callbackQueue }
        return try await awaiting(on: queue) { handler throws(NetworkError) in
            try makeDownload(
                endpoint, to: .file(destination), resolver: nil, handler: handler, progress: progress, resumption: resumption)
        }
    }
}
