import Foundation
import Promises

/// One event-source loop's entry in its client's list for ``NetworkClient/cancelAll(where:)``,
/// for the loop's whole life: connecting, reading, or waiting to reconnect.
///
/// `cancelAll` sets a flag the loop checks before each connection, after each connection is
/// made, before each wait and before each event it hands out, and ends what runs now: the
/// connection's request or body, or the wait. The connection's request is handed to the
/// control as soon as it is built (a `cancelAll` that came first cancels it before it starts),
/// and its body is not listed on its own, so each event source counts once.
final class EventSourceControl: Sendable {
    private enum Phase: Sendable {
        case idle
        /// The connection's request, once it is built.
        case connecting(WeakRequest)
        case reading(StreamedResponse)
        case waiting(Promise<Void>)
        case ended
    }

    private struct State: Sendable {
        var cancelled = false
        var phase = Phase.idle
    }

    private let state = Protected(State())
    /// The entry in the client's list; it goes with the control (the loop's iterator).
    private let listing = Protected<LiveWork?>(nil)

    /// A control listed through `list` (`nil` there: not listed, as for an event source made
    /// outside a client).
    init(list: (@Sendable (_ stop: @escaping @Sendable () -> Bool) -> LiveWork?)?) {
        guard let list else { return }
        let work = list { [weak self] in self?.cancelFromClient() ?? false }
        listing.withLock { $0 = work }
    }

    /// Throws ``NetworkError/cancelled`` once `cancelAll` reached this loop.
    func check() throws(NetworkError) {
        if state.withLock({ $0.cancelled }) { throw .cancelled }
    }

    /// A connection is being made: its request is reported through ``connectionBuilt(_:)``.
    func connecting() throws(NetworkError) {
        try move(to: .connecting(WeakRequest()))
    }

    /// The connection's request is built (not started yet): `false` when `cancelAll` came
    /// first, and the caller must cancel it instead of starting it.
    func connectionBuilt(_ request: any LiveRequest) -> Bool {
        state.withLock { state -> Bool in
            if state.cancelled { return false }
            if case .connecting(let slot) = state.phase { slot.set(request) }
            return true
        }
    }

    /// `response` is the connection being read; it is cancelled at once when `cancelAll` came first.
    func reading(_ response: StreamedResponse) throws(NetworkError) {
        do {
            try move(to: .reading(response))
        } catch {
            response.cancel()
            throw error
        }
    }

    /// Waiting for `wait` before the next connection; it is cancelled at once when `cancelAll` came first.
    func waiting(_ wait: Promise<Void>) throws(NetworkError) {
        do {
            try move(to: .waiting(wait))
        } catch {
            wait.cancel()
            throw error
        }
    }

    /// Between connections (the body ended or the wait is over).
    func idle() {
        state.withLock { $0.phase = .idle }
    }

    /// The loop ended: nothing left to cancel, and the entry leaves the client's list.
    func ended() {
        state.withLock { $0.phase = .ended }
        let entry = listing.withLock { entry in
            defer { entry = nil }
            return entry
        }
        withExtendedLifetime(entry) {}   // released outside the lock: its `deinit` takes the list's lock
    }

    private func move(to phase: Phase) throws(NetworkError) {
        let cancelled = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.phase = phase
            return false
        }
        if cancelled { throw .cancelled }
    }

    /// `cancelAll`: `true` when this call ended something the loop was doing.
    private func cancelFromClient() -> Bool {
        let phase = state.withLock { state -> Phase? in
            guard !state.cancelled else { return nil }
            state.cancelled = true
            return state.phase
        }
        // The loop was running: the flag ends it whatever the step below finds (a body that just
        // ended, a wait that just fired), so it counts.
        switch phase {
        case .idle?:
            return true
        case .connecting(let slot)?:
            // Not built yet: `connectionBuilt` refuses it. Built: cancelled here, before or after
            // it started (the connection is not listed on its own, so the loop counts once).
            _ = slot.request?.cancelIfPending()
            return true
        case .reading(let response)?:
            response.cancel()
            return true
        case .waiting(let wait)?:
            wait.cancel()
            return true
        case .ended?, nil:
            return false
        }
    }
}
