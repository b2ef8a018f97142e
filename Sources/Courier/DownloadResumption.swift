import Foundation
import Promises

/// Lets a download that stopped part-way continue later from where it stopped: pause and resume
/// for the user (Alamofire's `cancel(producingResumeData:)` and `download(resumingWith:)`).
///
/// Pass the same resumption to each ``NetworkClient/download(_:to:resumption:progress:)``
/// of one file. When the download ends without the whole body (``pause()``, a cancellation, a
/// timeout, a dropped connection after its retries), the part it saved is kept here; the next
/// download given this resumption asks the server for the rest (`Range` with `If-Range`) and
/// appends it, so the file ends up whole.
///
/// ```swift
/// let resumption = DownloadResumption()
/// client.download(Video(id: 3), to: target, resumption: resumption).done { file in
///     player.open(file.fileURL)
/// }
///
/// // The user taps "pause": the transfer stops, and what arrived is kept.
/// let kept = try await resumption.pause().value     // bytes kept; 0 when the server forbids resuming
///
/// // The user taps "resume": only the rest is downloaded.
/// client.download(Video(id: 3), to: target, resumption: resumption).done { file in … }
/// ```
///
/// - A part is kept only when the server allows resuming: a strong `ETag` or a usable
///   `Last-Modified` date, an uncompressed body, and an endpoint that accepts `206` (the default
///   ``StatusCodeSet/successful`` does). Otherwise nothing is kept and the next download
///   starts over. So does one whose resource changed on the server meanwhile: the server then
///   sends the whole new body.
/// - One download at a time: a download given a resumption that another download still uses
///   rejects at once with ``NetworkError/invalidRequest(reason:)``. A download uses it until its
///   transfer has stopped, which comes shortly after its promise settles when it is cancelled;
///   wait for ``pause()`` before starting the next one.
/// - The kept part is a file in the temporary directory, deleted when it is resumed, by
///   ``discard()``, or when the resumption is released. It lives as long as this object, in
///   this process; the client's sweep deletes such files a day after their last use.
public final class DownloadResumption: Sendable, CustomStringConvertible {
    private struct State: Sendable {
        /// What the last download saved, waiting to be resumed.
        var part: PartialDownload?
        /// The download using this resumption, from its start until its transfer has stopped.
        var user: ObjectIdentifier?
        /// Cancels ``user``; weak, so that the resumption never keeps a download alive.
        weak var cancellable: (any CancellableRequest)?
        /// The user's attempts handed to the transport whose completion has not come yet.
        var attemptsOnTransport = 0
        /// Whether the user has settled (its caller has the result).
        var userSettled = false
        /// ``pause()`` calls waiting for the transfer to stop.
        var pauses: [Resolver<Int64>] = []
    }

    private let state = Protected(State())

    /// Creates an empty resumption: the first download given it starts from the beginning.
    public init() {}

    deinit {
        state.withLock { $0.part }?.discard()
    }

    /// The bytes of the body kept for the next download; 0 when nothing is kept.
    public var keptBytes: Int64 {
        state.withLock { $0.part?.length ?? 0 }
    }

    /// The whole body's length, when a part is kept and the server declared it.
    public var expectedBytes: Int64? {
        state.withLock { $0.part?.totalLength }
    }

    /// Whether a download uses this resumption now (its transfer has not stopped yet).
    public var isInUse: Bool {
        state.withLock { $0.user != nil }
    }

    /// Stops the download that uses this resumption, keeping what it saved, and fulfils once its
    /// transfer has stopped, with ``keptBytes``. The download's promise rejects with
    /// ``NetworkError/cancelled`` (its completion handler receives it; `send`-style callers see
    /// their task's cancellation), as for any cancellation.
    ///
    /// With no download running it fulfils at once with what is kept.
    ///
    /// - Returns: A promise of the bytes kept for the next download.
    @discardableResult
    public func pause() -> Promise<Int64> {
        let (promise, resolver) = Promise<Int64>.pending()
        let running = state.withLock { state -> (any CancellableRequest)?? in
            guard state.user != nil else { return nil }
            state.pauses.append(resolver)
            return .some(state.cancellable)
        }
        switch running {
        case nil:
            resolver.fulfill(keptBytes)
        case .some(let cancellable):
            cancellable?.cancel()
        }
        return promise
    }

    /// Deletes the kept part, so that the next download starts from the beginning. A download
    /// that is running goes on; what it keeps when it stops is kept as usual.
    public func discard() {
        state.withLock { state -> PartialDownload? in
            defer { state.part = nil }
            return state.part
        }?.discard()
    }

    /// Its kept bytes, and whether a download uses it; for logs.
    public var description: String {
        let (kept, total, inUse) = state.withLock { ($0.part?.length ?? 0, $0.part?.totalLength, $0.user != nil) }
        let of = total.map { " of \($0)" } ?? ""
        return "DownloadResumption(\(kept)\(of) bytes kept\(inUse ? ", in use" : ""))"
    }

    // MARK: The download's side

    /// Claims the resumption for a download that is about to be built, and takes its part; the
    /// download then ``attach(_:)``es itself, or ``unclaim(returning:)`` gives it back.
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when another download uses it.
    func claim() throws(NetworkError) -> PartialDownload? {
        let claimed = state.withLock { state -> PartialDownload?? in
            guard state.user == nil else { return nil }
            state.user = ObjectIdentifier(self)   // until the download is built and attached
            state.attemptsOnTransport = 0
            state.userSettled = false
            defer { state.part = nil }
            return .some(state.part)
        }
        guard let part = claimed else {
            throw .invalidRequest(reason: "this DownloadResumption is still used by another download; wait for its pause()")
        }
        // A part whose file is gone (deleted by hand, or by a sweep) cannot be resumed.
        guard let part, FileManager.default.fileExists(atPath: part.fileURL.path) else { return nil }
        return part
    }

    /// The download built after ``claim()``: it uses the resumption from now on, and is what
    /// ``pause()`` cancels.
    func attach(_ download: any CancellableRequest) {
        state.withLock { state in
            guard state.user == ObjectIdentifier(self) else { return }
            state.user = ObjectIdentifier(download)
            state.cancellable = download
        }
    }

    /// Gives the resumption back after ``claim()``: the download could not be built. Its part
    /// is kept again.
    func unclaim(returning part: PartialDownload?) {
        if let part { keep(part) }
        stopped(ObjectIdentifier(self)) { $0.userSettled = true }
    }

    /// Keeps `part`, replacing (and deleting) what was kept before.
    func keep(_ part: PartialDownload) {
        let replaced = state.withLock { state -> PartialDownload? in
            defer { state.part = part }
            return state.part
        }
        if let replaced, replaced.fileURL != part.fileURL { replaced.discard() }
    }

    /// One of the user's attempts was handed to the transport.
    func attemptStarted(by user: ObjectIdentifier) {
        state.withLock { state in
            if state.user == user { state.attemptsOnTransport += 1 }
        }
    }

    /// The transport let go of one of the user's attempts (after any part it left was kept).
    func attemptEnded(by user: ObjectIdentifier) {
        stopped(user) { $0.attemptsOnTransport -= 1 }
    }

    /// The user settled (after any part it held was kept).
    func settled(by user: ObjectIdentifier) {
        stopped(user) { $0.userSettled = true }
    }

    /// Applies `change` for `user`; when the user has settled and no attempt of it is left on the
    /// transport, frees the resumption and fulfils the waiting ``pause()`` calls.
    private func stopped(_ user: ObjectIdentifier, _ change: (inout State) -> Void) {
        let freed = state.withLock { state -> (pauses: [Resolver<Int64>], kept: Int64)? in
            guard state.user == user else { return nil }
            change(&state)
            guard state.userSettled, state.attemptsOnTransport <= 0 else { return nil }
            state.user = nil
            state.cancellable = nil
            defer { state.pauses = [] }
            return (state.pauses, state.part?.length ?? 0)
        }
        guard let freed else { return }
        for pause in freed.pauses { pause.fulfill(freed.kept) }
    }
}

/// One attempt of a download with a ``DownloadResumption``, from its hand-off to the transport
/// until the transport lets go of its completion: the completion captures this object, so its
/// `deinit` runs once the transport has called the completion and released it, or released it
/// without calling it (a transport may stay silent after a cancellation). Either way nothing
/// more can arrive from the attempt, and a ``DownloadResumption/pause()`` may finish.
final class TransportAttempt: Sendable {
    private let user: ObjectIdentifier
    private let resumption: DownloadResumption

    init(of user: ObjectIdentifier, in resumption: DownloadResumption) {
        self.user = user
        self.resumption = resumption
        resumption.attemptStarted(by: user)
    }

    deinit {
        resumption.attemptEnded(by: user)
    }
}
