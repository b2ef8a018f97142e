import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plays a ``StubResponse/streaming(_:every:status:headers:delay:)`` stub: the head after the
/// stub's delay, then one piece per interval into the request's ``ResponseBodyStream``, each
/// scheduled by the one before on the client's scheduler; or, for a request that does not
/// stream, a progress report as each piece would arrive, and the joined body with the last.
final class StubPieceFeeder: Sendable {
    private struct State: Sendable {
        var next: ScheduledWork?
        /// How many works were scheduled, and which of them `next` is.
        var scheduled = 0
        var nextNumber = 0
        var cancelled = false
    }

    private let state = Protected(State())
    private let pieces: [Data]
    private let interval: TimeInterval
    private let scheduler: any RequestScheduler

    private init(pieces: [Data], interval: TimeInterval, scheduler: any RequestScheduler) {
        self.pieces = pieces
        self.interval = interval
        self.scheduler = scheduler
    }

    /// Starts answering `stub` and returns the task that stops it.
    static func send(
        _ stub: StubResponse, head: HTTPResponse, for request: URLRequest, context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        let feeder = StubPieceFeeder(pieces: stub.pieces, interval: stub.pieceInterval, scheduler: context.scheduler)
        let stream = context.bodyStream
        feeder.schedule(after: stub.delay) {
            guard let stream, stream.shouldStream(head) else {
                // Not streamed: the whole body once the last piece would have arrived.
                return feeder.join(from: 0, received: 0, head: head, request: request, progress: context.progress, completion: completion)
            }
            var emptyHead = head
            emptyHead.body = Data()
            // The first piece is scheduled before the caller hears of the head: a test that moves
            // the clock as soon as `stream` returns cannot pass it by.
            feeder.feed(from: 0, into: stream)
            completion(.success(emptyHead))
        }
        return StubTask { feeder.cancel() }
    }

    /// Schedules `work` unless cancelled; the handle is kept for ``cancel()``.
    ///
    /// Each work is scheduled by the one before, from inside it, so a later number means the
    /// earlier work already ran. The clock may run a work before this call stores its handle
    /// (another thread moves a `VirtualClock`), and the work it schedules then stores its own
    /// handle first: the earlier, late handle must not replace it, or ``cancel()`` would miss
    /// the pending one.
    private func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) {
        let number = state.withLock { state -> Int in
            state.scheduled += 1
            return state.scheduled
        }
        let scheduled = scheduler.schedule(after: delay) { [self] in
            guard !state.withLock({ $0.cancelled }) else { return }
            work()
        }
        let keep = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            if number > state.nextNumber {
                state.next = scheduled
                state.nextNumber = number
            }
            return true
        }
        if !keep { scheduled.cancel() }
    }

    /// Reports the pieces from `index` on as they would arrive (an idle timeout sees the transfer
    /// move), then answers with the joined body in `head`.
    private func join(
        from index: Int, received: Int64, head: HTTPResponse, request: URLRequest,
        progress: (@Sendable (TransferProgress) -> Void)?,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) {
        guard index < pieces.count else { return completion(.success(head)) }
        schedule(after: interval) { [self] in
            let now = received + Int64(pieces[index].count)
            progress?(StubTransport.progress(of: request, received: now, of: Int64(head.body.count)))
            join(from: index + 1, received: now, head: head, request: request, progress: progress, completion: completion)
        }
    }

    private func feed(from index: Int, into stream: ResponseBodyStream) {
        guard index < pieces.count else { return stream.finish() }
        schedule(after: interval) { [self] in
            stream.yield(pieces[index])
            feed(from: index + 1, into: stream)
        }
    }

    private func cancel() {
        let next = state.withLock { state -> ScheduledWork? in
            state.cancelled = true
            defer { state.next = nil }
            return state.next
        }
        next?.cancel()
    }
}
