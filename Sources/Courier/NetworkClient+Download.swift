import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension NetworkClient {
    /// Sends `endpoint` and saves the response body to the file `destination`, streaming it to
    /// disk instead of holding it in memory (Alamofire's `download(_:to:)`, Get's `download(for:)`).
    ///
    /// The request runs the whole pipeline: the pause gate, credentials and the refresh on a 401,
    /// plugins, the deadline (the endpoint's ``Endpoint/timeout`` covers the whole download),
    /// retries, and status classification.
    /// - On an accepted status (``Endpoint/acceptedStatusCodes``, 200...299 by default) the body
    ///   is moved to `destination`: an existing file there is replaced, missing directories are
    ///   created. With ``URLSessionTransport`` the body goes to disk as it arrives and is not held
    ///   to ``Configuration/maximumResponseSize``; a transport that answers in memory (stubs, your
    ///   own) is held to it, and the client writes the body out.
    /// - Any other status rejects as ``request(_:)`` would, with the server's metadata read from
    ///   the error body; nothing is written to `destination`.
    /// - A destination that is not a file URL, or is a directory, rejects with
    ///   ``NetworkError/invalidRequest(reason:)`` before anything is sent. A file that cannot be
    ///   saved (no permission, disk full) rejects with
    ///   ``NetworkError/decodingFailed(underlying:response:)`` carrying the file system's error.
    ///
    /// Cancelling the promise cancels the transfer; a partly received body is deleted. In async
    /// code, await the promise's value: cancelling the task then cancels the download. The
    /// request's one deadline covers the whole download (it is not an idle timeout): give a large
    /// download an endpoint ``Endpoint/timeout`` to match, and an ``Endpoint/idleTimeout`` to end
    /// it early when it stalls.
    ///
    /// ```swift
    /// let target = FileManager.default.temporaryDirectory.appendingPathComponent("video.mp4")
    /// client.download(Video(id: 3), to: target, progress: ProgressHandler(queue: .main) { progress in
    ///     bar.value = progress.receiveFraction ?? 0
    /// }).done(on: .main) { file in
    ///     player.open(file.fileURL)
    /// }
    ///
    /// let file = try await client.download(Video(id: 3), to: target).value
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used.
    ///   - destination: The file URL to save the body to.
    ///   - progress: Where progress reports go (see ``ProgressHandler``). Default: `nil`, none.
    /// - Returns: A promise of the saved file; it rejects with a ``NetworkError`` (or
    ///   ``/Promises/PromiseError/cancelled`` when the promise itself was cancelled).
    public func download<E: Endpoint>(
        _ endpoint: E, to destination: URL, progress: ProgressHandler? = nil
    ) -> Promise<DownloadedFile> {
        download(endpoint, to: .file(destination), progress: progress)
    }

    /// ``download(_:to:progress:)-(_,URL,_)`` to a destination that may depend on the response: a
    /// file named by the server in a folder of yours, or one your code picks (see
    /// ``DownloadDestination``).
    ///
    /// ```swift
    /// let file = try await client.download(Report(id: 7), to: .suggested(in: reports)).value
    /// print(file.fileURL.lastPathComponent)   // "Q3 results.pdf"
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used.
    ///   - destination: Where to save the body.
    ///   - progress: Where progress reports go (see ``ProgressHandler``). Default: `nil`, none.
    /// - Returns: A promise of the saved file; it rejects with a ``NetworkError`` (or
    ///   ``/Promises/PromiseError/cancelled`` when the promise itself was cancelled).
    public func download<E: Endpoint>(
        _ endpoint: E, to destination: DownloadDestination, progress: ProgressHandler? = nil
    ) -> Promise<DownloadedFile> {
        promised { resolver throws(NetworkError) in
            try makeDownload(endpoint, to: destination, resolver: resolver, handler: nil, progress: progress)
        }
    }

    /// ``download(_:to:progress:)-(_,URL,_)`` in the completion-handler style: `completion` runs once, on
    /// ``Configuration/callbackQueue``.
    ///
    /// ```swift
    /// let task = client.download(Video(id: 3), to: target) { result in
    ///     if case .success(let file) = result { print("saved", file.fileURL.path) }
    /// }
    /// task.cancel()   // completion receives .failure(.cancelled); nothing is left on disk
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used.
    ///   - destination: The file URL to save the body to.
    ///   - progress: Where progress reports go. Default: `nil`, none.
    ///   - completion: Receives the saved file or a ``NetworkError``.
    /// - Returns: A handle that cancels the download.
    @discardableResult
    public func download<E: Endpoint>(
        _ endpoint: E, to destination: URL, progress: ProgressHandler? = nil,
        completion: @escaping @Sendable (Result<DownloadedFile, NetworkError>) -> Void
    ) -> RequestTask {
        download(endpoint, to: .file(destination), progress: progress, completion: completion)
    }

    /// ``download(_:to:progress:)-(_,DownloadDestination,_)`` in the completion-handler style:
    /// `completion` runs once, on ``Configuration/callbackQueue``.
    ///
    /// ```swift
    /// client.download(Report(id: 7), to: .suggested(in: reports)) { result in
    ///     if case .success(let file) = result { print("saved as", file.fileURL.lastPathComponent) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used.
    ///   - destination: Where to save the body.
    ///   - progress: Where progress reports go. Default: `nil`, none.
    ///   - completion: Receives the saved file or a ``NetworkError``.
    /// - Returns: A handle that cancels the download.
    @discardableResult
    public func download<E: Endpoint>(
        _ endpoint: E, to destination: DownloadDestination, progress: ProgressHandler? = nil,
        completion: @escaping @Sendable (Result<DownloadedFile, NetworkError>) -> Void
    ) -> RequestTask {
        completing(completion) { handler throws(NetworkError) in
            try makeDownload(endpoint, to: destination, resolver: nil, handler: handler, progress: progress)
        }
    }

    /// ``download(_:to:progress:)-(_,URL,_)`` that can stop part-way and continue later from
    /// where it stopped: see ``DownloadResumption``.
    ///
    /// ```swift
    /// let resumption = DownloadResumption()
    /// client.download(Video(id: 3), to: target, resumption: resumption)
    /// try await resumption.pause().value                                   // later: stop, keep what arrived
    /// let file = try await client.download(Video(id: 3), to: target, resumption: resumption).value
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used. Give each download of one
    ///     file the same endpoint: the server must answer the resumed request with the same body.
    ///   - destination: The file URL to save the whole body to.
    ///   - resumption: Where a part left by an earlier download is taken from, and where this
    ///     download's part goes if it stops without the whole body.
    ///   - progress: Where progress reports go; a resumed download counts the kept part as
    ///     received from its first report. Default: `nil`, none.
    /// - Returns: A promise of the saved file. It rejects with
    ///   ``NetworkError/invalidRequest(reason:)`` at once when another download still uses
    ///   `resumption`, and otherwise as ``download(_:to:progress:)-(_,URL,_)`` does.
    public func download<E: Endpoint>(
        _ endpoint: E, to destination: URL, resumption: DownloadResumption, progress: ProgressHandler? = nil
    ) -> Promise<DownloadedFile> {
        promised { resolver throws(NetworkError) in
            try makeDownload(
                endpoint, to: .file(destination), resolver: resolver, handler: nil, progress: progress, resumption: resumption)
        }
    }

    /// ``download(_:to:resumption:progress:)`` in the completion-handler style: `completion` runs
    /// once, on ``Configuration/callbackQueue``.
    ///
    /// - Parameters:
    ///   - endpoint: What to send; its `Response` type is not used.
    ///   - destination: The file URL to save the whole body to.
    ///   - resumption: Where an earlier part is taken from and this download's part goes.
    ///   - progress: Where progress reports go. Default: `nil`, none.
    ///   - completion: Receives the saved file or a ``NetworkError``.
    /// - Returns: A handle that cancels the download (what it saved is kept in `resumption`).
    @discardableResult
    public func download<E: Endpoint>(
        _ endpoint: E, to destination: URL, resumption: DownloadResumption, progress: ProgressHandler? = nil,
        completion: @escaping @Sendable (Result<DownloadedFile, NetworkError>) -> Void
    ) -> RequestTask {
        completing(completion) { handler throws(NetworkError) in
            try makeDownload(
                endpoint, to: .file(destination), resolver: nil, handler: handler, progress: progress, resumption: resumption)
        }
    }

    /// The execution of a download: the shared pipeline, with the transport asked to write the
    /// body to a file and "decoding" being the move to `destination`. With a `resumption`, the
    /// download claims it (or fails when another holds it) and its first attempt resumes the
    /// part kept there.
    func makeDownload<E: Endpoint>(
        _ endpoint: E, to destination: DownloadDestination, resolver: Resolver<DownloadedFile>?,
        handler: RequestExecution<DownloadedFile>.Handler?, progress: ProgressHandler?,
        resumption: DownloadResumption? = nil
    ) throws(NetworkError) -> RequestExecution<DownloadedFile> {
        try destination.check()
        let origin = resumption == nil ? "" : DownloadResumption.origin(of: endpoint, at: core.configuration.baseURL)
        // Only `URLSessionTransport` resumes a saved part, and only for an endpoint that accepts
        // the `206` a resumed body ends with; otherwise the part would be ignored (and its file
        // left behind), so it waits in the resumption for a download that can use it.
        let part = try resumption?.claim(
            origin: origin, takingPart: core.transport is URLSessionTransport && endpoint.acceptedStatusCodes.contains(206))
        let execution: RequestExecution<DownloadedFile>
        do {
            // "Decoding" is the save, which touches the file system: like decoding, it never runs
            // on a gate's queue (see `saveDownload`).
            execution = try buildExecution(
                endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress,
                writesBodyToFile: true, resuming: resumption.map { ($0, part) }
            ) { response in
                DownloadStorage.save(response, to: destination)
            }
        } catch {
            resumption?.unclaim(returning: part, from: origin)
            throw error
        }
        resumption?.attach(execution)
        return execution
    }
}
