import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubTransport {
    /// Sends `request` to the builder's passthrough transport after `delay` (on the client's
    /// scheduler), with the context the client made for it; fails with
    /// ``StubError/noPassthroughTransport(request:)`` when there is none.
    func forward(
        _ request: URLRequest, after delay: TimeInterval, context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        guard let transport = passthroughTransport else {
            let error = StubError.noPassthroughTransport(request: "\(context.method.rawValue) \(context.endpointPath)")
            let work = context.scheduler.schedule(after: delay) { completion(.failure(error)) }
            return StubTask { work.cancel() }
        }
        guard delay > 0 else { return transport.send(request, context: context, completion: completion) }
        let forwarded = ForwardedTask()
        let work = context.scheduler.schedule(after: delay) {
            forwarded.start { transport.send(request, context: context, completion: completion) }
        }
        return StubTask {
            work.cancel()
            forwarded.cancel()
        }
    }
}

/// The task of a request forwarded after a delay: cancelling it before the delay ends keeps the
/// request from being sent, and afterwards cancels the forwarded one.
final class ForwardedTask: Sendable {
    private enum State {
        case waiting
        case sent(any TransportTask)
        case cancelled
    }

    private let state = Protected(State.waiting)

    /// Sends with `send` unless cancelled first.
    func start(_ send: () -> any TransportTask) {
        guard state.withLock({ if case .waiting = $0 { return true } else { return false } }) else { return }
        let task = send()
        let cancelled = state.withLock { state -> Bool in
            if case .cancelled = state { return true }
            state = .sent(task)
            return false
        }
        if cancelled { task.cancel() }   // cancelled while it was being sent
    }

    func cancel() {
        let sent = state.withLock { state -> (any TransportTask)? in
            defer { state = .cancelled }
            if case .sent(let task) = state { return task }
            return nil
        }
        sent?.cancel()
    }
}
