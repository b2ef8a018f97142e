import Foundation

/// The requests of one client that started and have not been released, for
/// ``NetworkClient/cancelAll(where:)``.
///
/// Entries are weak: whatever keeps a pending request alive (the gate, the transport, a
/// deadline, a retry timer) keeps it here too, and a request that every one of them let go still
/// reaches its `deinit` (which settles it and removes it). A request is added when it starts and
/// removed in its `deinit`, so a settled request lingers only as long as something holds it;
/// cancelling a settled request does nothing.
final class LiveRequests: Sendable {
    private struct Entry: Sendable {
        weak var request: (any LiveRequest)?
    }

    private let entries = Protected([ObjectIdentifier: Entry]())

    /// Adds `request`.
    func add(_ request: any LiveRequest) {
        entries.withLock { $0[ObjectIdentifier(request)] = Entry(request: request) }
    }

    /// Removes the request with identity `identifier` (from its `deinit`).
    func remove(_ identifier: ObjectIdentifier) {
        _ = entries.withLock { $0.removeValue(forKey: identifier) }
    }

    /// The requests still alive, in no particular order.
    func snapshot() -> [any LiveRequest] {
        entries.withLock { entries in entries.values.compactMap(\.request) }
    }
}

/// A request ``LiveRequests`` can cancel.
protocol LiveRequest: CancellableRequest {
    /// The endpoint the caller passed.
    var endpoint: any Endpoint { get }
    /// Cancels it; `true` when this call settled it, `false` when it had settled already.
    func cancelIfPending() -> Bool
}

/// Something other than a request that ``NetworkClient/cancelAll(where:)`` ends: a streamed
/// body still being read, an event source waiting to reconnect. It is listed while it lives, so
/// whoever owns the work keeps it (and lets go of it when the work ends).
final class LiveWork: LiveRequest {
    let endpoint: any Endpoint
    private let registry: LiveRequests
    /// Ends the work; `true` when it was still running. `nil` once used.
    private let stop: Protected<(@Sendable () -> Bool)?>

    /// Creates the entry and lists it in `registry`.
    init(endpoint: any Endpoint, registry: LiveRequests, stop: @escaping @Sendable () -> Bool) {
        self.endpoint = endpoint
        self.registry = registry
        self.stop = Protected(stop)
        registry.add(self)
    }

    func cancelIfPending() -> Bool {
        let stop = stop.withLock { stop in
            defer { stop = nil }
            return stop
        }
        return stop?() ?? false
    }

    func cancel() { _ = cancelIfPending() }

    deinit { registry.remove(ObjectIdentifier(self)) }
}

/// A weak reference to a request, filled in once the request is built.
final class WeakRequest: Sendable {
    private struct Slot: Sendable {
        weak var request: (any LiveRequest)?
    }

    private let slot = Protected(Slot())

    /// Remembers `request` (weakly).
    func set(_ request: any LiveRequest) {
        slot.withLock { $0.request = request }
    }

    /// The request, while something else keeps it alive.
    var request: (any LiveRequest)? {
        slot.withLock { $0.request }
    }
}
