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
/// - Requests leave the queue one drain at a time, lowest ticket first: a release and the
///   submissions that queued behind an earlier release share one line, so a request held again
///   on its way out is never overtaken by one issued after it.
/// - Requests whose endpoint does not require authentication bypass every pause (the lane a
///   credential refresh uses).
/// - A credential refresh pauses apart from the user (``pause(_:)`` with ``Reason/refresh``): it
///   holds only requests that carry the credential, so a request to another origin waits for no
///   refresh, and a user's extra ``resume(_:)`` cannot release requests in the middle of one.
/// - A held or queued request can be withdrawn (cancelled or timed out); it then never leaves
///   the gate, and the gate lets go of it at once.
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
        /// Requests waiting to leave from the queue, in ticket order: those a resume released and
        /// those submitted while a drain runs. A withdrawn one is taken out of it at once.
        var ready = ReadyLine()
        /// `true` from the moment a drain is scheduled on `queue` until it finds ``ready`` empty;
        /// while it is `false` and the gate is open, a submission passes at once on the caller's
        /// thread.
        var isDraining = false
    }

    /// The requests waiting on the queue, handed out in ticket order so that a resume's release
    /// and the submissions queued before it leave in the order they were issued, however they
    /// interleave. A request is let go of as soon as it is taken out or withdrawn.
    ///
    /// The requests sit in a dictionary by ticket and their tickets in a binary min-heap (plain
    /// integers: moving them retains nothing), so a release of `k` requests into a line of `n`
    /// costs O(k log n) whatever their tickets; a sorted array had to be merged whole, retaining
    /// and releasing every waiting request, on each resume whose release landed before the
    /// requests already waiting (quadratic under a pause toggled often while thousands wait). A
    /// withdrawn request leaves the dictionary at once; its ticket is skipped when it surfaces.
    struct ReadyLine: Sendable {
        typealias Entry = (ticket: UInt64, request: any GatedRequest)
        private var requests: [UInt64: any GatedRequest] = [:]
        /// The tickets of `requests` (and of withdrawn ones not yet surfaced) as a min-heap.
        private var tickets: [UInt64] = []

        var isEmpty: Bool { requests.isEmpty }

        /// Adds `batch`. A ticket higher than every waiting one (the usual case: a submission
        /// during a drain) sifts up no further than its own slot.
        mutating func insert(_ batch: [Entry]) {
            for (ticket, request) in batch {
                requests[ticket] = request
                tickets.append(ticket)
                siftUp(from: tickets.count - 1)
            }
        }

        /// Takes the request with `ticket` out of the line (a withdrawal), if it is there.
        mutating func remove(ticket: UInt64) -> (any GatedRequest)? {
            guard let request = requests.removeValue(forKey: ticket) else { return nil }
            if requests.isEmpty { clear() }   // only withdrawn tickets are left in the heap
            return request
        }

        /// Removes and returns the entry with the lowest ticket.
        mutating func popFirst() -> Entry? {
            while let ticket = tickets.first {
                let last = tickets.removeLast()
                if !tickets.isEmpty {
                    tickets[0] = last
                    siftDown(from: 0)
                }
                if let request = requests.removeValue(forKey: ticket) {
                    if requests.isEmpty { clear() }
                    return (ticket, request)
                }
            }
            return nil
        }

        /// Empties the heap, keeping a small buffer for the next requests.
        private mutating func clear() {
            tickets.removeAll(keepingCapacity: tickets.capacity <= 64)
            if requests.capacity > 64 { requests = [:] }
        }

        private mutating func siftUp(from index: Int) {
            var child = index
            while child > 0 {
                let parent = (child - 1) / 2
                guard tickets[child] < tickets[parent] else { return }
                tickets.swapAt(child, parent)
                child = parent
            }
        }

        private mutating func siftDown(from index: Int) {
            var parent = index
            while true {
                let left = 2 * parent + 1
                guard left < tickets.count else { return }
                let right = left + 1
                let smaller = right < tickets.count && tickets[right] < tickets[left] ? right : left
                guard tickets[smaller] < tickets[parent] else { return }
                tickets.swapAt(parent, smaller)
                parent = smaller
            }
        }
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
        let startsDrain = state.withLock { state -> Bool in
            switch reason {
            case .user:
                guard state.pauseCount > 0 else { return false }
                state.pauseCount -= 1
            case .refresh:
                guard state.refreshPauseCount > 0 else { return false }
                state.refreshPauseCount -= 1
            }
            guard !state.held.isEmpty else { return false }
            let released: [(ticket: UInt64, request: any GatedRequest)]
            if state.pauseCount == 0 && state.refreshPauseCount == 0 {
                released = state.held.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }   // all of them
                state.held = [:]
            } else {
                let (user, refresh) = (state.pauseCount, state.refreshPauseCount)
                released = state.held.filter { !Self.holds($0.value, userPauses: user, refreshPauses: refresh) }
                    .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                for (ticket, _) in released { state.held[ticket] = nil }
            }
            guard !released.isEmpty else { return false }
            state.ready.insert(released)
            // One drain at a time: a running one takes the released requests in ticket order,
            // ahead of later submissions already waiting.
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if startsDrain { queue.async { [self] in drain() } }
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
    ///   it behind the requests a running drain has yet to let out. A request withdrawn before
    ///   this call (a cancellation racing the submission) is then kept anyway, and the drain could
    ///   still hold it under a pause that comes meanwhile: the caller checks, and withdraws it
    ///   again.
    @discardableResult
    func submit(_ request: any GatedRequest, ticket: UInt64) -> Bool {
        let admission = state.withLock { Self.admit(request, ticket: ticket, fromQueue: false, in: &$0) }
        return act(on: admission, request, ticket: ticket)
    }

    /// Removes a held or queued request so that it never leaves. Does nothing if it already left.
    func withdraw(ticket: UInt64) {
        let removed = state.withLock { state -> (any GatedRequest)? in
            state.held.removeValue(forKey: ticket) ?? state.ready.remove(ticket: ticket)
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

    private enum Admission { case pass, queued, held, closed }

    /// Decides, under the lock, what happens to `request` now: held while paused (unless it
    /// bypasses pauses); otherwise it passes — at once when no drain runs (which keeps issue
    /// order and saves a thread hand-off), else it joins the drain's line. (A request withdrawn
    /// from the line is no longer in it, so the drain never admits it again.)
    private static func admit(
        _ request: any GatedRequest, ticket: UInt64, fromQueue: Bool, in state: inout GateState
    ) -> Admission {
        if holds(request, userPauses: state.pauseCount, refreshPauses: state.refreshPauseCount) {
            if state.isClosed { return .closed }
            state.held[ticket] = request
            return .held
        }
        if fromQueue || !state.isDraining { return .pass }
        state.ready.insert([(ticket, request)])
        return .queued
    }

    /// Whether the pauses hold `request`: the user's hold all but the refresh lane, a refresh's
    /// only the requests that carry the credential. The refresh lane is never held, whatever it
    /// says about credentials (the refresh call itself must never wait for its own refresh).
    private static func holds(_ request: any GatedRequest, userPauses: Int, refreshPauses: Int) -> Bool {
        guard userPauses > 0 || refreshPauses > 0, !request.bypassesPause else { return false }
        return userPauses > 0 || request.requiresAuthentication
    }

    /// Acts on an admission. Returns `true` when the request is now held or queued.
    @discardableResult
    private func act(on admission: Admission, _ request: any GatedRequest, ticket: UInt64) -> Bool {
        switch admission {
        case .pass:
            request.passGate(ticket: ticket)
        case .queued, .held:
            return true
        case .closed:
            request.gateClosed()
        }
        return false
    }

    /// Runs on `queue`: lets the waiting requests leave, lowest ticket first, each checked
    /// against the pauses once more, until none is left. Requests released or submitted while
    /// it runs join its line in ticket order, so nothing overtakes an earlier request.
    private func drain() {
        while true {
            let next = state.withLock { state -> (Admission, UInt64, any GatedRequest)? in
                guard let (ticket, request) = state.ready.popFirst() else {
                    state.isDraining = false
                    return nil
                }
                return (Self.admit(request, ticket: ticket, fromQueue: true, in: &state), ticket, request)
            }
            guard let (admission, ticket, request) = next else { return }
            act(on: admission, request, ticket: ticket)
        }
    }
}
