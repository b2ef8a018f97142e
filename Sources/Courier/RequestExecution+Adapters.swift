import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// An attempt that left the gate with its credential and plugins applied, on its way to the
/// transport (see `RequestExecution.passGate` and `finishPreparing`).
struct PreparedAttempt: Sendable {
    var request: URLRequest
    let attempt: Int
    /// A download's saved part this attempt resumes.
    var partial: PartialDownload?
    /// A file body's stream and the file it reads (links resolved).
    let upload: UploadHandOver?
    /// Why the attempt must not be sent (its body file is gone, an adapter failed).
    var refusal: NetworkError?
    /// The credential-refresh generation when the credential was applied.
    let generation: UInt64
    /// Whether an answer that arrives inside `send` may be decoded right there.
    var onCallersThread: Bool
    /// Whether user code changed the request since it was built: it is then checked again.
    var headersChanged: Bool
}

/// A file body's stream, handed from the thread that opened it to the one that sends it.
// @unchecked: the stream is opened for one attempt, which carries it from `passGate` to
// `finishPreparing` (through the request's lock and the adapters' promise, each of which orders
// the hand-over) and gives it to its transport. Courier itself never reads it; the adapters see it
// as the request's `httpBodyStream` and are documented not to read it (see `RequestAdapter`).
struct UploadHandOver: @unchecked Sendable {
    let stream: InputStream
    let resolved: URL
}

extension RequestExecution {
    // MARK: Request adapters

    /// The adapters an attempt runs, in order: the endpoint's own (whatever its origin), then the
    /// client's (only those that apply to other origins, when the request goes to one).
    func attemptAdapters() -> [any RequestAdapter] {
        let own = endpoint.requestAdapters
        guard core.hasRequestAdapters else { return own }
        let shared = onClientOrigin
            ? core.configuration.requestAdapters : core.configuration.requestAdapters.filter(\.appliesToOtherOrigins)
        return own.isEmpty ? shared : own + shared
    }

    /// Runs the request adapters over `prepared`, then sends what they made (see
    /// ``RequestAdapter``). Returns `nil` once the adapters are at work; returns the attempt
    /// unchanged when the request was cancelled, or its deadline passed, while the plugins ran:
    /// the caller then stops it as usual.
    ///
    /// While the adapters work, the attempt stays `preparing` with their promise in the state, and
    /// a download's saved part waits in the state too (where a cancellation drops it and a retry
    /// after the deadline finds it); the attempt's hold on the download's resumption is let go.
    func adapt(_ prepared: PreparedAttempt, with adapters: [any RequestAdapter]) -> PreparedAttempt? {
        let endpoint = endpoint
        let original = prepared.request
        var adaptation = adapters[0].adapt(original, for: endpoint)
        for adapter in adapters.dropFirst() {
            adaptation = adaptation.then { adapter.adapt($0, for: endpoint) }
        }
        let attempt = prepared.attempt
        let registered = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .preparing = state.phase, !state.deadlinePassedWhilePreparing else {
                return false
            }
            state.adaptation = adaptation
            state.partialDownload = prepared.partial
            return true
        }
        guard registered else {
            adaptation.cancel()
            var stopped = prepared
            stopped.headersChanged = true
            return stopped
        }
        let started = adaptation
        _ = adaptation.tap(on: .global()) { [self] result in
            adapted(result, of: prepared, by: started)
        }
        return nil
    }

    /// The adapters of `prepared`'s attempt ended with `result`: sends the adapted request, or
    /// refuses the attempt when they failed. Does nothing when the attempt ended meanwhile
    /// (cancelled, or timed out: the deadline cancelled `adaptation`).
    private func adapted(
        _ result: Result<URLRequest, any Error>, of prepared: PreparedAttempt, by adaptation: Promise<URLRequest>
    ) {
        // Taken before the saved part, as in `passGate`, so that a `pause()` of the download
        // waits for this attempt from the moment the part is in its hands.
        let inHand = resumption.map { TransportAttempt(of: ObjectIdentifier(self), in: $0) }
        let partial = state.withLock { state -> PartialDownload?? in
            guard state.attempt == prepared.attempt, case .preparing = state.phase,
                  state.adaptation === adaptation else { return nil }
            state.adaptation = nil
            defer { state.partialDownload = nil }
            return .some(state.partialDownload)
        }
        guard let partial else { return }
        var next = prepared
        next.partial = partial
        next.onCallersThread = false
        next.headersChanged = true
        switch result {
        case .success(let request): next.request = request
        case .failure(let error): next.refusal = Self.adaptationFailure(error)
        }
        finishPreparing(next, inHand: inHand)
    }

    /// The error a request ends with when its adapters failed with `error` (see ``RequestAdapter``):
    /// the transport's mapping (a `NetworkError` as it is, time-outs and cancellations by kind),
    /// except that an error it would call a transport failure is an authentication failure here.
    static func adaptationFailure(_ error: any Error) -> NetworkError {
        let mapped = NetworkError.fromTransport(error)
        if case .transport = mapped, !(error is NetworkError) { return .authenticationFailed(underlying: error) }
        return mapped
    }
}
