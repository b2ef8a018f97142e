import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

/// One request's life, steps 2 to 8: enqueue at the gate, apply credentials and plugins, send
/// with a deadline, classify, react (authentication failure, retry), decode and deliver.
///
/// Every event (gate release, transport completion, deadline, retry timer, cancellation)
/// takes the lock once, checks the phase and the attempt number it belongs to, and decides
/// what to do; the side effects run after the lock is released. An event that belongs to an
/// earlier attempt, or arrives after the request settled, is ignored, so the request settles
/// exactly once.
final class RequestExecution<Response: Sendable>: GatedRequest, AuthenticationWaiter, LiveRequest, Sendable {
    let core: ClientCore
    let endpoint: any Endpoint
    let request: URLRequest
    let method: HTTPMethod
    let timeout: TimeInterval
    /// Seconds an attempt may go without progress (``Endpoint/idleTimeout``); `nil` when neither
    /// the endpoint nor the client sets one; `.infinity` for none (a stream then has no limit
    /// between pieces either).
    let idleTimeout: TimeInterval?
    /// Whether this request's attempts may share an identical one in flight.
    let sharesIdenticalRequests: Bool
    let retryPolicy: RetryPolicy?
    let requiresAuthentication: Bool
    /// Whether the request goes to the client's own origin: only then do request adapters run
    /// (unless they apply to other origins too).
    let onClientOrigin: Bool
    let acceptedStatusCodes: StatusCodeSet
    let bypassesPause: Bool
    let context: TransportContext
    let decode: @Sendable (HTTPResponse) -> Result<Response, NetworkError>
    /// `false` when `decode` only passes the response through, so it may run anywhere.
    let needsDecoding: Bool
    /// Where the outcome goes: the resolver of the promise `request(_:)` returned, or (the
    /// completion style, no promise) a handler and the queue it runs on. Exactly one is set.
    /// Two optionals rather than a generic enum: releasing them needs no run-time type metadata.
    let resolver: Resolver<Response>?
    let handler: Handler?
    /// Forwards the transport's progress reports to the caller's handler; `nil` when none was given.
    /// The shared ``context`` carries no reporter: each attempt gets its own (see `context(forAttempt:)`).
    let progress: ProgressRelay?
    /// A form with file parts, written to its temporary file before the first attempt; the
    /// context names that file, which every attempt streams. `nil` for every other body.
    let stagedForm: StagedForm?
    /// `true` for ``NetworkClient/stream(_:)``: each attempt's context carries a fresh
    /// ``ResponseBodyStream``, whose reader travels with the head the transport answers with.
    let streamsBody: Bool
    /// Whether ``NetworkClient/cancelAll(where:)`` finds this request in the client's list: not
    /// an event source's connection, which its loop's entry covers (so it counts once).
    let isListed: Bool
    /// Where ``RequestMetrics`` times are read from: the client's ``ClientCore/metricsClock``.
    let clock: MetricsClock?
    /// A download's ``DownloadResumption``: it gets the part the download leaves when it stops
    /// without the whole body, and hears when the transfer has stopped. `nil` for every other request.
    let resumption: DownloadResumption?

    /// A completion handler and the queue it runs on; with no queue it runs on the thread that
    /// settles the request (for resuming an awaiting task, which needs no hop of its own).
    typealias Handler = (queue: DispatchQueue?, body: @Sendable (Result<Response, NetworkError>) -> Void)
    let state: Protected<State>

    // The state types do not depend on `Response`; declared outside the generic class, their
    // type metadata is static instead of being looked up at run time on every state change.
    typealias Phase = RequestPhase
    typealias DeadlineAction = RequestDeadlineAction
    typealias State = RequestState

    init<E: Endpoint>(
        core: ClientCore, endpoint: E, request: URLRequest, resolver: Resolver<Response>?,
        handler: Handler? = nil,
        needsDecoding: Bool = true,
        progress: ProgressHandler? = nil,
        writesBodyToFile: Bool = false,
        streamsBody: Bool = false,
        upload: UploadSource? = nil,
        resuming: (resumption: DownloadResumption, part: PartialDownload?)? = nil,
        onClientOrigin: Bool = true,
        listed: Bool = true,
        decode: @escaping @Sendable (HTTPResponse) -> Result<Response, NetworkError>
    ) {
        self.core = core
        self.endpoint = endpoint
        self.request = request
        self.method = endpoint.method
        self.timeout = request.timeoutInterval
        // The builder refused zero, negative and NaN.
        self.idleTimeout = endpoint.idleTimeout ?? core.configuration.idleTimeout
        self.sharesIdenticalRequests = endpoint.sharesIdenticalRequests ?? core.configuration.sharesIdenticalRequests
        let retryPolicy = endpoint.retryPolicy ?? core.configuration.retryPolicy
        self.retryPolicy = retryPolicy
        // An endpoint on another server gets no credential and starts no refresh (`Endpoint.baseURL`),
        // as the builder decided when it left out the credential default headers.
        self.requiresAuthentication = endpoint.requiresAuthentication && onClientOrigin
        self.onClientOrigin = onClientOrigin
        self.isListed = listed
        self.acceptedStatusCodes = endpoint.acceptedStatusCodes
        self.bypassesPause = !endpoint.requiresAuthentication
        // Reports whose handler names no queue share the completion's queue, so they run before it.
        self.progress = progress.map { ProgressRelay($0, defaultQueue: handler?.queue ?? core.configuration.callbackQueue) }
        self.streamsBody = streamsBody
        let clock = core.metricsClock
        self.clock = clock
        var initial = State()
        if let clock { initial.timeline = RequestTimeline(start: clock.now) }
        resumption = resuming?.resumption
        initial.partialDownload = resuming?.part   // the first attempt asks for the rest
        self.state = Protected(initial)
        let uploadFile: URL?
        switch upload {
        case .file(let file)?:
            uploadFile = file
            stagedForm = nil
        case .form(let form)?:
            let staged = StagedForm(form)
            uploadFile = staged.file
            stagedForm = staged
        case nil:
            uploadFile = nil
            stagedForm = nil
        }
        var context = TransportContext(
            method: endpoint.method, endpointPath: endpoint.path, sampleData: endpoint.sampleData,
            scheduler: core.configuration.scheduler, maximumResponseSize: core.configuration.maximumResponseSize,
            writesBodyToFile: writesBodyToFile, uploadFile: uploadFile)
        context.redirectPolicy = endpoint.redirectPolicy
        // A download keeps what a dropped attempt saved only when a retry may resume it.
        context.resumesDownloads = writesBodyToFile && endpoint.acceptedStatusCodes.contains(206)
            && ((retryPolicy?.maximumRetryCount ?? 0) > 0 || resuming != nil || !core.configuration.requestRetriers.isEmpty
                || !endpoint.requestRetriers.isEmpty)
        self.context = context
        self.decode = decode
        self.needsDecoding = needsDecoding
        self.resolver = resolver
        self.handler = handler
    }

    /// Only reached unsettled when every source of events let go first: a transport that
    /// dropped its completion without calling it, on a request with no deadline (an infinite
    /// timeout). The caller hears of it instead of waiting forever.
    deinit {
        if isListed { core.liveRequests.remove(ObjectIdentifier(self)) }
        if !state.withLock({ $0.phase.isFinished }) { deliverAbandonment() }
    }

    /// Kept out of `deinit`, which would otherwise look up the type metadata of the `Result`
    /// it builds on every request, settled or not.
    @inline(never)
    private func deliverAbandonment() {
        drop(state.withLock { $0.partialDownload })
        deliver(.failure(.transport(underlying: PromiseError.resolverReleased)))
    }

    // MARK: Enqueue

    /// Starts the first attempt, from the caller of `request`/`send`; a large form with file
    /// parts is first written to its temporary file on the staging queue (not the caller's thread,
    /// which may be the main thread), and a request cancelled meanwhile stops the copy. Such a
    /// request takes its place at the gate only once its form is written.
    ///
    /// The first attempt's deadline starts when the copy starts and covers it: a copy that is
    /// slow or stuck (a hung network file system) ends the request with
    /// ``NetworkError/timedOut``. Waiting behind other forms' copies has a timeout of its own, so
    /// that a copy stuck for good cannot hold the forms behind it for ever.
    func start() {
        if isListed { core.liveRequests.add(self) }
        guard let stagedForm else { return beginAttempt() }
        let waiting = core.configuration.scheduler.schedule(after: timeout) { [self] in
            deadlineFired(attempt: 1)
        }
        state.withLock { state in
            if !state.phase.isFinished { state.deadline = waiting }
        }
        StagedForm.queue.async { [self] in
            let deadline = core.configuration.scheduler.schedule(after: timeout) { [self] in
                deadlineFired(attempt: 1)
            }
            let kept = state.withLock { state -> Bool in
                guard !state.phase.isFinished else { return false }
                state.deadline = deadline
                return true
            }
            waiting.cancel()
            guard kept else { return deadline.cancel() }
            do throws(NetworkError) {
                try stagedForm.write { state.withLock { $0.phase.isFinished } }
            } catch {
                return fail(error)   // does nothing when a cancellation settled the request first
            }
            beginAttempt()
        }
    }

    /// Starts an attempt: a fresh deadline, then the gate. Retries and replays come here too,
    /// so a pause holds them like new requests; they start on a timer's or the gate's queue,
    /// only the first attempt on the caller's thread (or, for a staged form, on the staging queue,
    /// which passes decoding on to a global queue like a gate's queue does).
    func beginAttempt() {
        let ticket = core.gate.makeTicket()
        let now = clock?.now
        let begun = state.withLock { state -> (attempt: Int, hasDeadline: Bool)? in
            if case .finished = state.phase { return nil }
            if let now { state.timeline?.enterQueue(at: now) }
            // Only the first attempt of a staged form finds a deadline: the one `start` set.
            let hasDeadline = state.attempt == 0 && state.deadline != nil
            state.attempt += 1
            state.phase = .queued(ticket: ticket)
            state.deadlinePassedWhilePreparing = false
            state.sentRequest = nil
            return (state.attempt, hasDeadline)
        }
        guard let (attempt, hasDeadline) = begun else { return }
        progress?.begin(attempt: attempt)
        let deadline = hasDeadline ? nil : core.configuration.scheduler.schedule(after: timeout) { [self] in
            deadlineFired(attempt: attempt)
        }
        // Submit only if nothing happened meanwhile: a deadline that already fired (or a
        // cancellation) has settled this attempt, and a submitted request would linger in the gate.
        let proceed = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .queued = state.phase else { return false }
            if let deadline { state.deadline = deadline }
            return true
        }
        if proceed {
            // A cancellation or deadline between the check above and `submit` withdrew a ticket the
            // gate did not have yet; if a pause then held it (at once, or when its queued block
            // runs), it would stay held until `resume()`. Only a request the gate kept needs the
            // check (one that passed sees its phase in `passGate`).
            if core.gate.submit(self, ticket: ticket), !isQueued(ticket: ticket) {
                core.gate.withdraw(ticket: ticket)
            }
        } else {
            deadline?.cancel()
        }
    }

    /// Whether the current attempt still waits in the gate with `ticket`.
    private func isQueued(ticket: UInt64) -> Bool {
        state.withLock { state in
            if case .queued(let queued) = state.phase { return queued == ticket }
            return false
        }
    }
}
