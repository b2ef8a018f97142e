import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension NetworkClient {
    /// Sends `endpoint` and returns the decoded response; see `request(_:)` for how the body is decoded.
    ///
    /// Cancelling the calling `Task` cancels the request. The result may be ignored (as Get's
    /// `send`), for calls made only for their effect:
    ///
    /// ```swift
    /// let user = try await client.send(GetUser(id: 42))
    /// try await client.send(Request<EmptyResponse>.delete("users/42"))
    /// ```
    ///
    /// - Throws: A ``NetworkError``; ``NetworkError/cancelled`` when the task was cancelled.
    @discardableResult
    public func send<E: Endpoint>(_ endpoint: E) async throws -> E.Response {
        try await send(endpoint, progress: nil)
    }

    /// ``send(_:)`` with progress reports (see ``ProgressHandler``). It returns (or throws) from the
    /// handler's queue, after every report queued there ran.
    ///
    /// ```swift
    /// let report = try await client.send(DownloadReport(), progress: ProgressHandler { print($0) })
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send.
    ///   - progress: Where reports go; `nil`: none, as ``send(_:)``.
    /// - Throws: A ``NetworkError``, as ``send(_:)``.
    @discardableResult
    public func send<E: Endpoint>(_ endpoint: E, progress: ProgressHandler?) async throws -> E.Response {
        // With progress, resume from the reports' queue, so that `send` returns after the last
        // report ran (when that queue is serial).
        let queue = progress.map { $0.queue ?? core.configuration.callbackQueue }
        return try await awaiting(on: queue) { handler throws(NetworkError) in
            try makeExecution(endpoint, resolver: nil, handler: handler, progress: progress)
        }
    }

    /// The async style: the execution that `make` builds, started, and its outcome awaited.
    /// Cancelling the awaiting task cancels the request.
    ///
    /// - Parameter queue: Where the task is resumed from; `nil`: the thread that settles the request.
    func awaiting<R: Sendable>(
        on queue: DispatchQueue?, _ make: (RequestExecution<R>.Handler) throws(NetworkError) -> RequestExecution<R>
    ) async throws -> R {
        // The same pipeline without a promise: the execution resumes the task itself, on the
        // thread that settles it (at once, without suspending, when the answer came inside
        // `send`). The relay lets a cancellation that comes first, or meanwhile, reach it.
        let relay = CancellationRelay()
        defer { relay.handOver() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<R, any Error>) in
                // Resumed exactly once: an execution delivers once, and one that is never
                // started is cancelled, which delivers `.cancelled`.
                let execution: RequestExecution<R>
                do {
                    execution = try make((queue, { result in
                        relay.handOver()
                        continuation.resume(with: result)
                    }))
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                if relay.attach(execution) {
                    execution.start()
                } else {
                    execution.cancel()
                }
            }
        } onCancel: {
            relay.cancel()
        }
    }
}

/// Carries a task's cancellation to the execution that `send` creates inside its continuation:
/// the cancellation handler may run before the execution exists, while it runs, or after.
final class CancellationRelay: Sendable {
    private struct State: Sendable {
        /// Weak: whatever holds the execution while it is pending (the gate, the transport, the
        /// deadline, a retry timer) keeps it alive; if all of them let go unsettled, its `deinit`
        /// must run so that the awaiting task is resumed.
        weak var execution: (any CancellableRequest)?
        var isCancelled = false
    }

    private let state = Protected(State())

    /// Hands over `execution`; `false` when the task was already cancelled (then it must not start).
    func attach(_ execution: any CancellableRequest) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.execution = execution
            return true
        }
    }

    /// An empty critical section, entered by the thread that delivers the outcome right before
    /// it resumes the awaiting task, and by that task right after it resumes.
    ///
    /// The continuation already orders the two, but Thread Sanitizer cannot see it: the runtime
    /// hands the outcome over through atomics that are not instrumented, so objects made for
    /// the outcome on the delivering thread (a streamed body's reader, say) looked raced when
    /// the task read them. The lock's release and acquire are an ordering it sees. Two
    /// uncontended lock operations per request, on every build (one code path).
    func handOver() {
        state.withLock { _ in }
    }

    /// Cancels the execution, now or as soon as it is attached.
    func cancel() {
        let execution = state.withLock { state -> (any CancellableRequest)? in
            state.isCancelled = true
            defer { state.execution = nil }
            return state.execution
        }
        execution?.cancel()
    }
}

/// A request execution, seen by whoever may cancel it.
protocol CancellableRequest: AnyObject, Sendable {
    func cancel()
}
