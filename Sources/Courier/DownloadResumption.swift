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
///   transfer has stopped: normally before its caller hears that it succeeded or failed, but a
///   moment after its promise settles when it is cancelled or times out (the transfer stops
///   then), and likewise when an earlier attempt that timed out is still stopping. Wait for
///   ``pause()`` before starting the next one.
/// - One resource: a part is resumed only by a download with the same method, base URL and
///   endpoint path (the query may differ, for signed URLs); another download deletes it and
///   starts over. Only ``URLSessionTransport`` resumes: with another transport (stubs included)
///   the download starts from the beginning (the part stays kept unless it saves the whole
///   body). A download that saves the whole body deletes whatever is still kept.
/// - An error answer to the resumed request (a `401` that starts a credential refresh, a `503`)
///   leaves the part alone: the replay or retry asks for the rest again, and a download that
///   fails with it keeps the part here.
/// - The kept part is a file in the temporary directory, deleted when it is resumed, by
///   ``discard()``, or when the resumption is released. To resume after a relaunch, store what
///   ``takeResumeData()`` returns and make a resumption with ``init(resumeData:)``; the
///   client's sweep deletes a part nobody took back a day after its last use.
public final class DownloadResumption: Sendable, CustomStringConvertible {
    private struct State: Sendable {
        /// What the last download saved, waiting to be resumed.
        var part: PartialDownload?
        /// The method, base URL and path the part was downloaded from (see ``origin(of:at:)``).
        var partOrigin = ""
        /// The download using this resumption, from its start until its transfer has stopped.
        var user: ObjectIdentifier?
        /// Cancels ``user``; weak, so that the resumption never keeps a download alive.
        weak var cancellable: (any CancellableRequest)?
        /// The user's attempts handed to the transport whose completion has not come yet.
        var attemptsOnTransport = 0
        /// Whether the user has settled (its outcome is being handed to its caller).
        var userSettled = false
        /// Whether the user saved the whole body: a part that arrives late (an earlier
        /// attempt's, cancelled by a timeout) is deleted, not kept.
        var userSucceeded = false
        /// ``pause()`` calls waiting for the transfer to stop.
        var pauses: [Resolver<Int64>] = []
    }

    private let state = Protected(State())

    /// Creates an empty resumption: the first download given it starts from the beginning.
    public init() {}

    /// A resumption holding `part`, saved from `origin` (for ``init(resumeData:)``).
    init(part: PartialDownload, origin: String) {
        state.withLock { state in
            state.part = part
            state.partOrigin = origin
        }
    }

    /// Takes the kept part and its origin out, so that this resumption no longer deletes its
    /// file (for ``takeResumeData()``); `nil` while a download uses it or when nothing is kept.
    func handOverPart() -> (part: PartialDownload, origin: String)? {
        state.withLock { state in
            guard state.user == nil, let part = state.part else { return nil }
            state.part = nil
            return (part, state.partOrigin)
        }
    }

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
    /// ``NetworkError/cancelled`` (awaiting its `value` throws it; a completion handler receives
    /// it), as for any cancellation.
    ///
    /// With no download running it fulfils at once with what is kept.
    ///
    /// - Returns: A promise of the bytes kept for the next download.
    @discardableResult
    public func pause() -> Promise<Int64> {
        let (promise, resolver) = Promise<Int64>.pending()
        // Nothing running: what is kept now, read in the same lock (a download claiming the part
        // right after must not make this 0).
        let (kept, running) = state.withLock { state -> (Int64?, (any CancellableRequest)?) in
            guard state.user != nil else { return (state.part?.length ?? 0, nil) }
            state.pauses.append(resolver)
            return (nil, state.cancellable)
        }
        if let kept {
            resolver.fulfill(kept)
        } else {
            running?.cancel()
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

    /// What identifies the resource a part belongs to: the method, the base URL (the endpoint's
    /// own ``Endpoint/baseURL``, else the client's, without its user and password) and the
    /// endpoint's path. Queries are left out,
    /// so that a signed URL whose signature was renewed still resumes; the server's validator
    /// (`If-Range`) guards the rest.
    static func origin(of endpoint: any Endpoint, at baseURL: URL) -> String {
        let base = endpoint.baseURL ?? baseURL
        var components = URLComponents(url: base, resolvingAgainstBaseURL: true)
        components?.query = nil
        components?.fragment = nil
        // Nor a user and password: the origin goes into `takeResumeData()`, which apps store.
        components?.user = nil
        components?.password = nil
        return "\(endpoint.method.rawValue) \(components?.string ?? Redaction.redact(base)) \(endpoint.path)"
    }

    /// Claims the resumption for a download that is about to be built; the download then
    /// ``attach(_:)``es itself, or ``unclaim(returning:from:)`` gives it back.
    ///
    /// - Parameters:
    ///   - origin: The download's ``origin(of:at:)``: a part kept from another resource is deleted.
    ///   - takingPart: `false` when the download cannot resume (its transport does not save
    ///     parts): the part stays kept for a later download.
    /// - Returns: The part the download's first attempt resumes, if any.
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when another download uses it.
    func claim(origin: String, takingPart: Bool) throws(NetworkError) -> PartialDownload? {
        let claimed = state.withLock { state -> (part: PartialDownload?, stale: PartialDownload?)? in
            guard state.user == nil else { return nil }
            state.user = ObjectIdentifier(self)   // until the download is built and attached
            state.attemptsOnTransport = 0
            state.userSettled = false
            state.userSucceeded = false
            guard let part = state.part else { return (nil, nil) }
            guard state.partOrigin == origin else {
                state.part = nil
                return (nil, part)
            }
            guard takingPart else { return (nil, nil) }
            state.part = nil
            return (part, nil)
        }
        guard let claimed else {
            throw .invalidRequest(reason: "this DownloadResumption is still used by another download; wait for its pause()")
        }
        claimed.stale?.discard()
        // A part whose file is gone (deleted by hand, or by a sweep), shorter than it was, or no
        // longer this user's private file (a link planted under its name) is not resumed: the
        // download starts over. A shorter file of ours is deleted; anything else is left alone.
        guard let part = claimed.part else { return nil }
        guard let size = PrivateFile.sizeOfOwnRegularFile(part.fileURL) else { return nil }
        guard size >= part.length else {
            part.discard()
            return nil
        }
        return part
    }

    /// The download built after ``claim(origin:takingPart:)``: it uses the resumption from now
    /// on, and is what ``pause()`` cancels (at once, when a `pause()` came while it was built).
    func attach(_ download: any CancellableRequest) {
        let pausedMeanwhile = state.withLock { state -> Bool in
            guard state.user == ObjectIdentifier(self) else { return false }
            state.user = ObjectIdentifier(download)
            state.cancellable = download
            return !state.pauses.isEmpty
        }
        if pausedMeanwhile { download.cancel() }
    }

    /// Gives the resumption back after ``claim(origin:takingPart:)``: the download could not be
    /// built. Its part is kept again.
    func unclaim(returning part: PartialDownload?, from origin: String) {
        if let part { keep(part, from: origin) }
        stopped(ObjectIdentifier(self)) { $0.userSettled = true }
    }

    /// Keeps `part`, saved from `origin`, replacing (and deleting) what was kept before; deletes
    /// it instead when the download using the resumption has already saved the whole body.
    func keep(_ part: PartialDownload, from origin: String) {
        let unwanted = state.withLock { state -> PartialDownload? in
            if state.userSucceeded { return part }
            let replaced = state.part
            state.part = part
            state.partOrigin = origin
            // A part appended in place (the same file) is not deleted with its older record.
            guard let replaced, replaced.fileURL != part.fileURL else { return nil }
            return replaced
        }
        unwanted?.discard()
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

    /// The user settled (after any part it held was kept); `succeeded`: it saved the whole body,
    /// so a part still kept is stale and deleted.
    func settled(by user: ObjectIdentifier, succeeded: Bool) {
        var stale: PartialDownload?
        stopped(user) { state in
            state.userSettled = true
            if succeeded {
                state.userSucceeded = true
                swap(&stale, &state.part)
            }
        }
        stale?.discard()
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

/// One attempt of a download with a ``DownloadResumption``, from the moment it takes the saved
/// part until its answer is taken, or until everything that could answer let go of it: the
/// transport's completion captures this object, so its `deinit` runs once the transport has
/// released the completion, called or not (a transport may stay silent after a cancellation).
/// Either way nothing more can arrive from the attempt, and a ``DownloadResumption/pause()`` may
/// finish.
final class TransportAttempt: Sendable {
    private let user: ObjectIdentifier
    private let resumption: DownloadResumption
    private let isOver = Protected(false)

    init(of user: ObjectIdentifier, in resumption: DownloadResumption) {
        self.user = user
        self.resumption = resumption
        resumption.attemptStarted(by: user)
    }

    /// The attempt is over: its answer was taken (and any part it left kept). Only the first
    /// call counts; `deinit` calls it for an attempt whose answer never came.
    func end() {
        let first = isOver.withLock { over -> Bool in
            defer { over = true }
            return !over
        }
        if first { resumption.attemptEnded(by: user) }
    }

    deinit {
        end()
    }
}
