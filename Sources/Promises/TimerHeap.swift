import Dispatch

/// A timer for many pieces of work: a min-heap of due times plus one `DispatchSourceTimer` armed
/// for the earliest live entry. It runs the time-outs and delays of this module (`timeout`,
/// `after`) and Courier's `DispatchScheduler` (request deadlines, retry delays).
///
/// Cancelled entries leave the `live` table at once; their heap slots are skipped when they
/// surface, and the heap is rebuilt from the live entries when more than half of it is dead, so
/// memory stays proportional to the work that is actually pending.
///
/// While any work is pending the heap keeps itself alive, so work runs even when everything that
/// scheduled it is gone (like `asyncAfter` would). Unlike `asyncAfter`, work removed before it
/// is due frees what it captured at once.
// @unchecked: `timer` is a constant whose methods libdispatch documents as thread-safe; every
// other piece of mutable state is inside the `state` lock-box.
package final class TimerHeap: @unchecked Sendable {
    private struct Entry: Sendable {
        let due: UInt64
        let id: UInt64

        func precedes(_ other: Entry) -> Bool {
            due != other.due ? due < other.due : id < other.id
        }
    }

    private struct State: Sendable {
        var heap: [Entry] = []
        var live: [UInt64: (due: UInt64, work: @Sendable () -> Void)] = [:]
        var nextID: UInt64 = 0
        /// The uptime (ns) the timer is armed for; `UInt64.max` when disarmed.
        var armedFor = UInt64.max
        /// The heap itself while `live` is not empty.
        var keepAlive: TimerHeap?
    }

    private let state = Locked(State())
    private let timer: any DispatchSourceTimer
    /// Whether each piece of due work runs on a serial queue of its own, rather than in turn on
    /// the timer's handler.
    private let runsSeparately: Bool

    /// Creates a heap whose timer runs on `queue`.
    ///
    /// Give it a serial queue of its own (not a global queue): a serial queue targets an
    /// overcommitting root queue, which gets a thread even when every thread of the global pool
    /// is blocked, so the timer still fires then (a blocking `wait()` on pool threads would
    /// otherwise hold up the very time-out that bounds it).
    ///
    /// - Parameters:
    ///   - queue: Where the timer's handler runs, and with `separately == false` the due work.
    ///   - separately: `true` to run each piece of due work on its own through ``PoolFallback``
    ///     (the global queue, or a serial lane when the pool is blocked), so that work which runs
    ///     other people's code (a promise's `onCancel` hooks) cannot hold up, or wait for, the
    ///     work due after it, and still runs when the global pool is blocked. `false` (the
    ///     default) runs due work in due order on the timer's handler.
    package init(queue: DispatchQueue, separately: Bool = false) {
        runsSeparately = separately
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.schedule(deadline: .distantFuture)
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Adds `work`, due `nanoseconds` from now; returns its id for ``remove(_:)``.
    package func add(after nanoseconds: UInt64, _ work: @escaping @Sendable () -> Void) -> UInt64 {
        let due = DispatchTime.now().uptimeNanoseconds &+ nanoseconds
        return state.withLock { state in
            state.nextID &+= 1
            let entry = Entry(due: due, id: state.nextID)
            state.live[entry.id] = (due, work)
            if state.keepAlive == nil { state.keepAlive = self }
            Self.push(entry, into: &state.heap)
            if due < state.armedFor { arm(&state, for: due) }
            return entry.id
        }
    }

    /// Forgets the work with `id` if it has not run yet.
    package func remove(_ id: UInt64) {
        // The work, and the heap's hold on itself, are released after the lock: releasing what
        // the work captured may run a `deinit` that schedules or removes work here.
        let released = state.withLock { state -> (work: (@Sendable () -> Void)?, heap: TimerHeap?) in
            guard let removed = state.live.removeValue(forKey: id) else { return (nil, nil) }
            if state.live.isEmpty {
                state.heap.removeAll(keepingCapacity: true)
                defer { state.keepAlive = nil }
                return (removed.work, state.keepAlive)
            }
            if state.heap.count > 64 && state.heap.count > 2 * state.live.count {
                state.heap = state.live.map { Entry(due: $0.value.due, id: $0.key) }
                Self.heapify(&state.heap)
            }
            return (removed.work, nil)
        }
        _ = released
    }

    /// How many pieces of work were ever added (for tests).
    package var addedCount: UInt64 {
        state.withLock { $0.nextID }
    }

    /// How many pieces of work are pending (scheduled, neither run nor removed).
    package var pendingCount: Int {
        state.withLock { $0.live.count }
    }

    /// Timer handler: runs everything that is due, in due order (or each piece on its own, through
    /// ``PoolFallback``, when the heap runs work separately), and re-arms for the next entry.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (due, released) = state.withLock { state -> ([@Sendable () -> Void], TimerHeap?) in
            var works: [@Sendable () -> Void] = []
            while let first = state.heap.first {
                guard let live = state.live[first.id] else {
                    Self.popFirst(&state.heap)  // cancelled earlier
                    continue
                }
                guard first.due <= now else { break }
                Self.popFirst(&state.heap)
                state.live[first.id] = nil
                works.append(live.work)
            }
            state.armedFor = UInt64.max
            if let next = state.heap.first { arm(&state, for: next.due) }
            guard state.live.isEmpty else { return (works, nil) }
            defer { state.keepAlive = nil }
            return (works, state.keepAlive)
        }
        if runsSeparately {
            for work in due { PoolFallback.run(work) }
        } else {
            for work in due { work() }
        }
        _ = released  // dropped here, outside the lock
    }

    private func arm(_ state: inout State, for due: UInt64) {
        state.armedFor = due
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: due), leeway: .microseconds(100))
    }

    // MARK: Binary heap

    private static func push(_ entry: Entry, into heap: inout [Entry]) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popFirst(_ heap: inout [Entry]) {
        guard let last = heap.popLast() else { return }
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(&heap, from: 0)
    }

    private static func siftDown(_ heap: inout [Entry], from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count && heap[left].precedes(heap[first]) { first = left }
            if right < heap.count && heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }

    private static func heapify(_ heap: inout [Entry]) {
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            siftDown(&heap, from: index)
        }
    }
}
