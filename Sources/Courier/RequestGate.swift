import Dispatch

/// What the gate needs from a request waiting to leave it.
protocol GatedRequest: AnyObject, Sendable {
    /// `true` for requests that no pause holds (endpoints with `requiresAuthentication == false`).
    /// Must not change while the request is in the gate.
    var bypassesPause: Bool { get }
    /// `true` for requests that carry the authenticator's credential: the ones a credential
    /// refresh holds (not those to another origin; never those that bypass pauses). Must not
    /// change while the request is in the gate.
    var requiresAuthentication: Bool { get }
    /// Called when the request leaves the gate: on the submitting thread when the gate was open
    /// and idle, otherwise on the gate's queue (see ``RequestGate/isRunningOnAGateQueue``).
    func passGate(ticket: UInt64)
    /// Called when the client went away while the request was held: it will never be released.
    func gateClosed()
}

/// The pausable queue every request passes before it is sent: a serial `DispatchQueue` plus two
/// counted pauses, the user's and a credential refresh's.
///
/// - ``pause(_:)`` increments its reason's count and ``resume(_:)`` decrements it; an extra
///   resume is ignored, so no count goes negative. `DispatchQueue.suspend()` is not used because
///   libdispatch crashes on an unbalanced resume or on releasing a suspended queue.
/// - While a count is above zero, the requests it holds are held in issue order; on each resume,
///   those that no pause holds any more are released in that order.
/// - A request is checked again when it leaves the queue, so a pause also holds requests that
///   were submitted just before it but had not left yet.
/// - Requests whose endpoint does not require authentication bypass every pause (the lane a
///   credential refresh uses).
/// - A credential refresh pauses apart from the user (``pause(_:)`` with ``Reason/refresh``): it
///   holds only requests that carry the credential, so a request to another origin waits for no
///   refresh, and a user's extra ``resume(_:)`` cannot release requests in the middle of one.
/// - A held or queued request can be withdrawn (cancelled or timed out); it then never leaves
///   the gate. The gate lets go of a held one at once, and of a queued one when its block runs.
final class RequestGate: Sendable {
    /// The serial queue requests leave the gate on.
    let queue: DispatchQueue
    private let state = Protected(GateState())

    /// Who paused: the user (``NetworkClient/pause()``) or a credential refresh.
    enum Reason: Sendable { case user, refresh }

    private struct GateState: Sendable {
        var pauseCount = 0
        var refreshPauseCount = 0
        var nextTicket: UInt64 = 0
        var held: [UInt64: any GatedRequest] = [:]
        var isClosed = false
        /// Blocks on `queue` that have not run yet (submissions and releases); while there are
        /// none and the gate is open, a submission passes at once on the caller's thread.
        var queuedBlocks = 0
        /// Tickets of requests whose block on `queue` has not run yet (queued submissions and
        /// releases). Withdrawing one removes it here, and its block then drops the request
        /// instead of holding it again under a pause that came meanwhile.
        var onQueue: Set<UInt64> = []
    }

    init(label: String = "courier.gate") {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: RequestGate.queueKey, value: true)
    }

    /// Marks the queue of every gate (see ``isRunningOnAGateQueue``).
    private static let queueKey = DispatchSpecificKey<Bool>()

    /// `true` when the current code runs on the queue of any client's gate (including code that
    /// a gate runs inline, such as a plugin's `willSend` for a request released by `resume()`).
    static var isRunningOnAGateQueue: Bool {
        DispatchQueue.getSpecific(key: queueKey) == true
    }

    /// `true` while at least one ``pause(_:)`` (the user's or a refresh's) has not been balanced
    /// by a ``resume(_:)``.
    var isPaused: Bool {
        state.withLock { $0.pauseCount > 0 || $0.refreshPauseCount > 0 }
    }

    /// How many requests the gate holds now (for tests and diagnostics).
    var heldCount: Int {
        state.withLock { $0.held.count }
    }

    /// Holds every request that has not left the gate yet (a refresh: every one that carries the
    /// credential). Counted per reason: each pause needs a resume with the same reason.
    func pause(_ reason: Reason = .user) {
        state.withLock { state in
            switch reason {
            case .user: state.pauseCount += 1
            case .refresh: state.refreshPauseCount += 1
            }
        }
    }

    /// Balances one ``pause(_:)`` of the same reason; the held requests that no pause holds any
    /// more leave in issue order. A resume without a pause of its reason does nothing.
    func resume(_ reason: Reason = .user) {
        let released = state.withLock { state -> [(UInt64, any GatedRequest)] in
            switch reason {
            case .user:
                guard state.pauseCount > 0 else { return [] }
                state.pauseCount -= 1
            case .refresh:
                guard state.refreshPauseCount > 0 else { return [] }
                state.refreshPauseCount -= 1
            }
            guard !state.held.isEmpty else { return [] }
            let released: [(UInt64, any GatedRequest)]
            if state.pauseCount == 0 && state.refreshPauseCount == 0 {
                released = state.held.sorted { $0.key < $1.key }   // all of them (a backlog can be large)
                state.held = [:]
            } else {
                let (user, refresh) = (state.pauseCount, state.refreshPauseCount)
                released = state.held.filter { !Self.holds($0.value, userPauses: user, refreshPauses: refresh) }
                    .sorted { $0.key < $1.key }
                for (ticket, _) in released { state.held[ticket] = nil }
            }
            guard !released.isEmpty else { return [] }
            for (ticket, _) in released { state.onQueue.insert(ticket) }
            state.queuedBlocks += 1
            return released
        }
        guard !released.isEmpty else { return }
        queue.async { [self] in
            for (ticket, request) in released { route(request, ticket: ticket, fromQueue: true) }
            state.withLock { $0.queuedBlocks -= 1 }
        }
    }

    /// A ticket for the next submission; tickets order held requests.
    func makeTicket() -> UInt64 {
        state.withLock { state in
            state.nextTicket &+= 1
            return state.nextTicket
        }
    }

    /// Puts `request` through the gate: held while paused; otherwise it leaves at once, or on the
    /// queue when earlier requests are still waiting there.
    ///
    /// - Returns: `true` when the gate keeps the request for now: it holds it (paused) or queued
    ///   it behind earlier blocks. A request withdrawn before this call (a cancellation racing
    ///   the submission) is then kept anyway, and its queued block could still hold it under a
    ///   pause that comes meanwhile: the caller checks, and withdraws it again.
    @discardableResult
    func submit(_ request: any GatedRequest, ticket: UInt64) -> Bool {
        route(request, ticket: ticket, fromQueue: false)
    }

    /// Removes a held or queued request so that it never leaves. Does nothing if it already left.
    func withdraw(ticket: UInt64) {
        let removed = state.withLock { state -> (any GatedRequest)? in
            if let held = state.held.removeValue(forKey: ticket) { return held }
            state.onQueue.remove(ticket)
            return nil
        }
        withExtendedLifetime(removed) {}   // released after the lock
    }

    /// Called when the client goes away: held requests are told the gate closed, and from now
    /// on a request that would be held is told so at once (nobody is left to resume).
    func close() {
        let stranded = state.withLock { state -> [any GatedRequest] in
            state.isClosed = true
            let stranded = state.held.sorted { $0.key < $1.key }.map(\.value)
            state.held = [:]
            return stranded
        }
        for request in stranded { request.gateClosed() }
    }

    private enum Admission { case pass, queued, held, closed, withdrawn }

    /// Decides, under the lock, what happens to `request` now: dropped if it was withdrawn while
    /// its block waited on the queue; held while paused (unless it bypasses pauses); otherwise it
    /// passes — at once when nothing is waiting on the queue (which keeps issue order and saves a
    /// thread hand-off), else queued behind what waits.
    private func admit(_ request: any GatedRequest, ticket: UInt64, fromQueue: Bool) -> Admission {
        state.withLock { state in
            if fromQueue && state.onQueue.remove(ticket) == nil { return .withdrawn }
            if Self.holds(request, userPauses: state.pauseCount, refreshPauses: state.refreshPauseCount) {
                if state.isClosed { return .closed }
                state.held[ticket] = request
                return .held
            }
            if fromQueue || state.queuedBlocks == 0 { return .pass }
            state.queuedBlocks += 1
            state.onQueue.insert(ticket)
            return .queued
        }
    }

    /// Whether the pauses hold `request`: the user's hold all but the refresh lane, a refresh's
    /// only the requests that carry the credential. The refresh lane is never held, whatever it
    /// says about credentials (the refresh call itself must never wait for its own refresh).
    private static func holds(_ request: any GatedRequest, userPauses: Int, refreshPauses: Int) -> Bool {
        guard userPauses > 0 || refreshPauses > 0, !request.bypassesPause else { return false }
        return userPauses > 0 || request.requiresAuthentication
    }

    /// Acts on the admission of `request`; `fromQueue` is `true` for the last check on `queue`.
    /// Returns `true` when the request is now held, or queued by ``submit(_:ticket:)``.
    @discardableResult
    private func route(_ request: any GatedRequest, ticket: UInt64, fromQueue: Bool) -> Bool {
        switch admit(request, ticket: ticket, fromQueue: fromQueue) {
        case .pass:
            request.passGate(ticket: ticket)
        case .queued:
            queue.async { [self] in
                // Counted until it has left: a request submitted meanwhile queues behind it
                // instead of passing at once ahead of it (as the release block does).
                route(request, ticket: ticket, fromQueue: true)
                state.withLock { $0.queuedBlocks -= 1 }
            }
            return !fromQueue
        case .held:
            return true
        case .withdrawn:
            break
        case .closed:
            request.gateClosed()
        }
        return false
    }
}
