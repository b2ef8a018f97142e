import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of one attempt of a ``NetworkClient/stream(_:)`` request, handed from the transport
/// to the caller piece by piece as it arrives.
///
/// **For transport authors.** The client puts one in ``TransportContext/bodyStream`` when the
/// caller wants the body as it arrives. When the response head is in, ask
/// ``shouldStream(_:)`` with it:
/// - `true`: call your completion with the head at once (status, headers, URL, an empty body),
///   then give each piece of the body, in order, to ``yield(_:)``, and end with
///   ``finish(throwing:)`` (with the error that cut the body short, if any). Do not call the
///   completion again.
/// - `false` (an error status, an authentication failure the client will replay, or a second
///   response): collect the body and call the completion as usual.
///
/// A transport that ignores this property answers with the whole body as usual, and the caller
/// receives it as a single piece. The client cancels your ``TransportTask`` when the caller
/// stops reading, so the transport needs no other way to hear of it.
///
/// ```swift
/// if let stream = context.bodyStream, stream.shouldStream(head) {
///     completion(.success(head))
///     engine.onChunk = { stream.yield($0) }
///     engine.onEnd = { error in stream.finish(throwing: error) }
/// }
/// ```
public final class ResponseBodyStream: Sendable {
    private enum Ending: Sendable {
        case open
        /// The transport finished (the error, if any, comes after the buffered pieces).
        case finished(NetworkError?)
        /// The caller stopped reading, or the buffer limit was passed: nothing more is kept.
        case stopped(NetworkError)
    }

    private struct State: Sendable {
        var claimed = false
        var pieces: [Data] = []
        var first = 0
        var buffered = 0
        var ending = Ending.open
        var waiter: UnsafeContinuation<Data?, any Error>?
        var task: (any TransportTask)?
        /// Pieces received so far, and as many as the idle check saw last time.
        var received = 0
        var receivedAtLastCheck = 0
        var idleCheck: ScheduledWork?
        /// How many idle checks were scheduled, and which of them `idleCheck` is.
        var idleChecksScheduled = 0
        var idleCheckNumber = 0
        /// The client ended the body itself (idle, overflow): a task attached later is cancelled.
        var endedByClient = false
        /// The iterator that reads the body: the first to ask for a piece. Others are refused.
        var activeReader: ObjectIdentifier?
    }

    /// What ending the body takes out of the state, to act on after the lock.
    private struct Leftovers {
        var task: (any TransportTask)?
        var waiter: UnsafeContinuation<Data?, any Error>?
        var idleCheck: ScheduledWork?

        /// Stops the idle check, cancels the transfer when asked to, and tells a waiting reader.
        func act(cancellingTransfer: Bool, reader: Result<Data?, any Error>) {
            idleCheck?.cancel()
            if cancellingTransfer { task?.cancel() }
            waiter?.resume(with: reader)
        }
    }

    /// Ends the body as `ending` says; the caller holds the lock and acts on the leftovers after it.
    private static func end(_ state: inout State, _ ending: Ending) -> Leftovers {
        state.ending = ending
        defer {
            state.task = nil
            state.waiter = nil
            state.idleCheck = nil
        }
        return Leftovers(task: state.task, waiter: state.waiter, idleCheck: state.idleCheck)
    }

    private let state: Protected<State>
    /// Whether a head's body streams: the endpoint accepts its status and the authenticator does
    /// not take it for an authentication failure (such a response is replayed).
    private let accepts: @Sendable (HTTPResponse) -> Bool
    /// The most bytes kept for a caller who has not read them yet.
    let limit: Int
    /// How long the body may go without a piece before it ends with ``NetworkError/timedOut``.
    private let idleTimeout: TimeInterval
    private let scheduler: (any RequestScheduler)?

    /// A stream for one attempt.
    ///
    /// - Parameters:
    ///   - accepts: Whether a head's body streams.
    ///   - limit: The most bytes held for the reader.
    ///   - idleTimeout: Seconds without a piece after which the body ends with `.timedOut`
    ///     (noticed between one and two such periods after the last piece); not finite: never.
    ///   - scheduler: The clock for the idle check.
    init(accepting accepts: @escaping @Sendable (HTTPResponse) -> Bool, limit: Int, idleTimeout: TimeInterval = .infinity,
         scheduler: (any RequestScheduler)? = nil) {
        self.accepts = accepts
        self.limit = limit
        self.idleTimeout = idleTimeout
        self.scheduler = scheduler
        state = Protected(State())
    }

    /// A stream that already holds a whole body: the answer of a transport that does not stream.
    convenience init(completeBody body: Data) {
        self.init(accepting: { _ in false }, limit: Int.max)
        state.withLock { state in
            state.claimed = true
            if !body.isEmpty { state.pieces = [body] }
            state.ending = .finished(nil)
        }
    }

    /// Whether the body of the response `head` should stream: `true` once, for a status the
    /// endpoint accepts that the client's authenticator does not take for an authentication
    /// failure; `false` otherwise (the client wants the whole body: for the error's metadata,
    /// or because it replays the request) and for every later call.
    ///
    /// - Parameter head: The response that arrived, with its status, headers and URL (its body
    ///   is not looked at).
    /// - Returns: `true`: complete with the head now and stream the body here; `false`: deliver
    ///   the whole response through the completion.
    public func shouldStream(_ head: HTTPResponse) -> Bool {
        guard accepts(head) else { return false }
        let claimed = state.withLock { state in
            guard !state.claimed else { return false }
            state.claimed = true
            return true
        }
        if claimed { scheduleIdleCheck() }
        return claimed
    }

    /// Arms the idle check: a body that receives no piece between two checks ends with `.timedOut`.
    ///
    /// Each check schedules the next from inside it. A check may run before its handle is
    /// stored here (another thread moves a `VirtualClock`, or the timeout is tiny); the handle
    /// of the check it scheduled is then stored first, and the late one must not replace it.
    private func scheduleIdleCheck() {
        guard let scheduler, idleTimeout.isFinite, idleTimeout > 0 else { return }
        let number = state.withLock { state -> Int in
            state.idleChecksScheduled += 1
            return state.idleChecksScheduled
        }
        let check = scheduler.schedule(after: idleTimeout) { [weak self] in self?.checkIdle() }
        let keep = state.withLock { state -> Bool in
            guard case .open = state.ending else { return false }
            if number > state.idleCheckNumber {
                state.idleCheck = check
                state.idleCheckNumber = number
            }
            return true
        }
        if !keep { check.cancel() }
    }

    private func checkIdle() {
        enum Verdict { case busy, idle(Leftovers), over }
        // One lock decides and ends the body, so that a task attached meanwhile is either taken
        // here or sees the body ended (and is cancelled by `attach`).
        let verdict = state.withLock { state -> Verdict in
            guard case .open = state.ending else { return .over }
            state.idleCheck = nil
            if state.received != state.receivedAtLastCheck {
                state.receivedAtLastCheck = state.received
                return .busy
            }
            state.endedByClient = true
            return .idle(Self.end(&state, .finished(.timedOut)))
        }
        switch verdict {
        case .busy: scheduleIdleCheck()
        case .idle(let leftovers): leftovers.act(cancellingTransfer: true, reader: .failure(NetworkError.timedOut))
        case .over: break
        }
    }

    /// Whether a reader is waiting for the next piece (for tests).
    var hasWaitingReader: Bool { state.withLock { $0.waiter != nil } }

    /// Whether a transport took this stream (``shouldStream(_:)`` said `true`).
    var isClaimed: Bool { state.withLock { $0.claimed } }

    /// Hands over the next piece of the body. Pieces given after ``finish(throwing:)``, or
    /// after the caller stopped reading, are dropped.
    ///
    /// - Parameter piece: The bytes, in the order they arrived.
    public func yield(_ piece: Data) {
        guard !piece.isEmpty else { return }
        var overflow: Leftovers?
        let waiter = state.withLock { state -> UnsafeContinuation<Data?, any Error>? in
            guard case .open = state.ending else { return nil }
            state.received += 1
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            // One piece is always taken (a piece larger than the limit does not fail a reader
            // that keeps up); beyond it, at most `limit` bytes wait for the reader.
            guard state.buffered == 0 || state.buffered + piece.count <= limit else {
                // The caller fell too far behind: keep what it has not read, then fail.
                state.endedByClient = true
                overflow = Self.end(&state, .finished(.responseTooLarge(limit: limit)))
                return nil
            }
            state.pieces.append(piece)
            state.buffered += piece.count
            return nil
        }
        overflow?.act(cancellingTransfer: true, reader: .success(nil))   // no reader waits: it had a piece to take
        waiter?.resume(returning: piece)
    }

    /// Ends the body: after the pieces not read yet, the caller's loop ends, or throws `error`
    /// (as a ``NetworkError``: a `URLError(.timedOut)` becomes ``NetworkError/timedOut``).
    ///
    /// - Parameter error: What cut the body short; default `nil`, it ended normally.
    public func finish(throwing error: (any Error)? = nil) {
        let failure = error.map(NetworkError.fromTransport)
        let leftovers = state.withLock { state -> Leftovers? in
            guard case .open = state.ending else { return nil }
            return Self.end(&state, .finished(failure))
        }
        // The transport is done: nothing to cancel.
        leftovers?.act(cancellingTransfer: false, reader: failure.map { .failure($0) } ?? .success(nil))
    }

    /// The transport's task for this attempt, cancelled when the caller stops reading (at once
    /// when it already has).
    func attach(_ task: any TransportTask) {
        let stopped = state.withLock { state -> Bool in
            switch state.ending {
            case .open:
                state.task = task
                return false
            case .finished:
                return state.endedByClient
            case .stopped:
                return true
            }
        }
        if stopped { task.cancel() }
    }

    /// The caller stopped reading (its task was cancelled, or it let go of the response):
    /// drops the pieces not read, cancels the transfer, and a pending read throws `error`.
    /// Returns `false` when the body had ended already (stopped, or finished and all read).
    @discardableResult
    func stop(with error: NetworkError = .cancelled) -> Bool {
        let leftovers = state.withLock { state -> Leftovers? in
            if case .stopped = state.ending { return nil }
            if case .finished = state.ending, state.pieces.count == state.first { return nil }
            state.pieces = []
            state.first = 0
            state.buffered = 0
            return Self.end(&state, .stopped(error))
        }
        leftovers?.act(cancellingTransfer: true, reader: .failure(error))
        return leftovers != nil
    }

    private enum Step { case piece(Data?), failure(NetworkError), wait }

    /// The iterator `reader` went away: when it was the one reading, the body is stopped (a
    /// loop left early) and a later iterator hears ``NetworkError/cancelled``; otherwise nothing.
    func readerLeft(_ reader: ObjectIdentifier) {
        let wasActive = state.withLock { state -> Bool in
            guard state.activeReader == reader else { return false }
            state.activeReader = nil
            return true
        }
        if wasActive { stop() }
    }

    /// The next piece for `reader`, `nil` at the end of the body; waits when none has arrived
    /// yet. One reader: the first iterator to ask reads the body, any other gets an error at
    /// once (and does not disturb the first). Cancelling the reading task stops the stream
    /// (``stop(with:)``), pieces waiting or not.
    func next(for reader: ObjectIdentifier) async throws(NetworkError) -> Data? {
        let admitted = state.withLock { state -> Bool in
            if let active = state.activeReader { return active == reader }
            state.activeReader = reader
            return true
        }
        guard admitted else {
            throw NetworkError.invalidRequest(reason: "the streamed body is already being read by another loop")
        }
        if Task.isCancelled {
            // Even with pieces waiting: a cancelled reader stops (a view that went away).
            stop()
            throw NetworkError.cancelled
        }
        switch state.withLock({ Self.take(&$0) }) {
        case .piece(let piece): return piece
        case .failure(let error): throw error
        case .wait: break
        }
        do {
            return try await waitForPiece()
        } catch {
            // Only `NetworkError`s are ever resumed into the waiter.
            throw NetworkError.fromTransport(error)
        }
    }

    /// Waits for the next piece (or the body's end) as the reader.
    private func waitForPiece() async throws -> Data? {
        // Through the lock once more after resuming, for Thread Sanitizer: `yield` stored the
        // piece under this lock before resuming, and the continuation's own ordering is
        // invisible to TSan (see `CancellationRelay.handOver()`).
        defer { state.withLock { _ in } }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Data?, any Error>) in
                // Resumed exactly once: here, or by the `yield`, `finish` or `stop` that takes the waiter.
                let step = state.withLock { state -> Step in
                    let step = Self.take(&state)
                    if case .wait = step { state.waiter = continuation }
                    return step
                }
                switch step {
                case .piece(let piece): continuation.resume(returning: piece)
                case .failure(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            stop()
        }
    }

    /// The next buffered piece, or how the body ended, or `.wait`.
    private static func take(_ state: inout State) -> Step {
        if state.first < state.pieces.count {
            let piece = state.pieces[state.first]
            state.first += 1
            state.buffered -= piece.count
            if state.first == state.pieces.count {
                state.pieces.removeAll(keepingCapacity: true)
                state.first = 0
            } else if state.first >= 64 && state.first * 2 >= state.pieces.count {
                state.pieces.removeFirst(state.first)
                state.first = 0
            }
            return .piece(piece)
        }
        switch state.ending {
        case .open: return .wait
        case .finished(nil): return .piece(nil)
        case .finished(let error?), .stopped(let error): return .failure(error)
        }
    }
}
