import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Deadline and cancellation

    /// The deadline of `attempt` passed: withdraw it from the gate or cancel its transport task,
    /// then time it out (or retry); when it is being prepared, `passGate` acts on it after `send`.
    func deadlineFired(attempt: Int) {
        let action = state.withLock { state -> DeadlineAction? in
            guard state.attempt == attempt else {
                // The first attempt's deadline fired while its form was still being staged: the
                // request ends here, in this lock, so that neither the copy nor `beginAttempt`
                // can start the attempt meanwhile.
                guard attempt == 1, state.attempt == 0, !state.phase.isFinished else { return nil }
                state.phase = .finished
                state.deadline = nil
                // No attempt ran, but a resumed download holds the part it was given.
                defer { state.partialDownload = nil }
                return state.partialDownload.map { .expire($0) } ?? .stop
            }
            switch state.phase {
            case .queued(let ticket):
                state.phase = .evaluating
                state.deadline = nil
                return .withdraw(ticket)
            case .preparing:
                guard let adaptation = state.adaptation else {
                    state.deadlinePassedWhilePreparing = true
                    return nil
                }
                state.adaptation = nil
                state.phase = .evaluating
                state.deadline = nil
                return .stopAdapting(adaptation)
            case .sending(let task):
                state.phase = .evaluating
                defer { state.deadline = nil }
                // Cancelled too: with an idle timeout, it also stops the attempt's idle watch.
                return .cancel(task, state.sentRequest, state.deadline)
            case .evaluating where state.replayingAfterRefreshBeforeSending:
                // Waiting for a credential refresh before it was ever sent: the request ends here
                // (nothing was sent, so no plugin hears of it; the refresh goes on for the others).
                state.phase = .finished
                state.deadline = nil
                state.replayingAfterRefreshBeforeSending = false
                defer { state.partialDownload = nil }
                return .expire(state.partialDownload)
            case .evaluating, .decidingRetry, .waitingToRetry, .finished:
                // Too late (the attempt ended first): the decision has a time limit of its own.
                return nil
            }
        }
        switch action {
        case .withdraw(let ticket)?:
            core.gate.withdraw(ticket: ticket)
            attemptTimedOut(sent: nil)
        case .cancel(let task, let sent, let deadline)?:
            deadline?.cancel()
            task.cancel()
            attemptTimedOut(sent: sent)
        case .stop?:
            deliver(.failure(.timedOut))   // nothing was sent; the copy sees the request finished and stops
        case .expire(let partial)?:
            drop(partial)
            deliver(.failure(.timedOut))
        case .stopAdapting(let adaptation)?:
            adaptation.cancel()
            attemptTimedOut(sent: nil)
        case nil:
            break
        }
    }

    /// Nothing moved on `attempt` for a whole idle period (see ``IdleWatch``): it is cancelled
    /// and times out (or is retried) as when its deadline passes. Does nothing when the attempt
    /// is no longer with the transport.
    func idleTimeoutFired(attempt: Int) {
        let taken = state.withLock { state -> (task: any TransportTask, sent: URLRequest?, deadline: ScheduledWork?)? in
            guard state.attempt == attempt, case .sending(let task) = state.phase else { return nil }
            state.phase = .evaluating
            defer { state.deadline = nil }
            return (task, state.sentRequest, state.deadline)
        }
        guard let taken else { return }
        taken.deadline?.cancel()
        taken.task.cancel()
        attemptTimedOut(sent: taken.sent)
    }

    /// The attempt ran out of time; plugins hear of it if it had been sent.
    func attemptTimedOut(sent: URLRequest?) {
        let error = NetworkError.timedOut
        if let sent {
            for plugin in core.configuration.plugins { plugin.didReceive(.failure(error), for: sent, endpoint: endpoint) }
        }
        retryOrFail(error, sent: sent)
    }

    /// Stops the request wherever it is (held, in flight, deciding or waiting to retry, decoding) and
    /// settles it with ``NetworkError/cancelled``. Does nothing once it settled.
    func cancel() {
        abandon()
    }

    /// ``cancel()``, telling whether this call settled the request (`false` when it had settled).
    func cancelIfPending() -> Bool {
        abandon()
    }

    /// The client went away while the request was held.
    func gateClosed() {
        abandon()
    }

    @discardableResult
    private func abandon() -> Bool {
        var partial: PartialDownload?   // a download's saved start that no attempt will resume now
        var adaptation: Promise<URLRequest>?   // request adapters at work for the attempt
        let taken = state.withLock { state -> (Phase, ScheduledWork?, URLRequest?)? in
            guard !state.phase.isFinished else { return nil }
            let previous = state.phase
            if case .preparing = previous { state.cancelledWhilePreparing = state.attempt }
            state.phase = .finished
            swap(&partial, &state.partialDownload)
            swap(&adaptation, &state.adaptation)
            defer { state.deadline = nil }
            return (previous, state.deadline, state.sentRequest)
        }
        guard let (previous, deadline, sent) = taken else { return false }
        deadline?.cancel()
        adaptation?.cancel()
        drop(partial)
        switch previous {
        case .queued(let ticket):
            core.gate.withdraw(ticket: ticket)
        case .sending(let task):
            if context.writesBodyToFile, resumption == nil, let handle = task as? TaskHandle {
                handle.cancelDiscardingBody()   // nobody resumes it: gone before the caller hears
            } else {
                task.cancel()
            }
            if let sent {
                for plugin in core.configuration.plugins { plugin.didReceive(.failure(.cancelled), for: sent, endpoint: endpoint) }
            }
        case .waitingToRetry(let work):
            work?.cancel()
        case .decidingRetry(let decision, let limit):
            limit?.cancel()
            decision.cancel()
        case .preparing, .evaluating, .finished:
            break
        }
        deliver(.failure(.cancelled))
        return true
    }
}
