import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Classify and react

    /// Step 5 and 6: classify the attempt's result, tell the plugins, then decide.
    ///
    /// `decodeElsewhere` is `true` when the transport answered inside a `send` that was not
    /// called on the thread that called `request` (see ``deliver(_:decodeElsewhere:)``).
    func evaluate(_ result: Result<HTTPResponse, any Error>, request sent: URLRequest, decodeElsewhere: Bool) {
        // A body in a file (a download, or a transport of your own) is read into memory first
        // when it is needed there; the result is evaluated as if it had arrived that way.
        if case .success(let response) = result, response.bodyFileURL != nil, let loaded = bodyInMemory(response) {
            return evaluate(loaded, request: sent, decodeElsewhere: decodeElsewhere)
        }
        // A streamed head carries its body's reader to the decoding step only: plugins, the
        // authenticator and errors get the head without it, so that whoever keeps those does
        // not keep the transfer running.
        if streamsBody, case .success(var response) = result, let reader = response.streamedBody {
            response.streamedBody = nil
            return evaluate(.success(response), request: sent, decodeElsewhere: decodeElsewhere, streamed: reader)
        }
        evaluate(result, request: sent, decodeElsewhere: decodeElsewhere, streamed: nil)
    }

    /// ``evaluate(_:request:decodeElsewhere:)`` once a streamed head's reader is set apart.
    private func evaluate(
        _ result: Result<HTTPResponse, any Error>, request sent: URLRequest, decodeElsewhere: Bool,
        streamed: StreamedBodyHandle?
    ) {
        let parser = core.configuration.errorMetadataParser  // one field, not a copy of the whole configuration
        let classified: Result<HTTPResponse, NetworkError>
        switch result {
        case .success(let response):
            if let error = NetworkError.classify(response, accepted: acceptedStatusCodes, parser: parser) {
                classified = .failure(error)
            } else if let validate = core.configuration.responseValidator {
                classified = Self.validated(response, for: endpoint, by: validate)
                // A download it rejects leaves no file behind (a retry downloads afresh).
                if case .failure = classified { DownloadStorage.discard(response) }
            } else {
                classified = .success(response)
            }
        case .failure(let error):
            classified = .failure(NetworkError.fromTransport(error))
        }
        for plugin in core.configuration.plugins { plugin.didReceive(classified, for: sent, endpoint: endpoint) }

        if case .success(let response) = result, requiresAuthentication,
           let authenticator = core.configuration.authenticator, authenticator.isAuthenticationFailure(response) {
            let error: NetworkError
            switch classified {
            case .failure(let classifiedError): error = classifiedError
            case .success: error = .clientError(
                statusCode: response.statusCode, metadata: parser(response), response: response)
            }
            handleAuthenticationFailure(error, response: response, request: sent, authenticator: authenticator)
            return
        }

        switch classified {
        case .success(var response):
            if let streamed { response.streamedBody = streamed }
            deliver(response, decodeElsewhere: decodeElsewhere)
        case .failure(let error):
            retryOrFail(error, sent: sent)
        }
    }

    /// `response`, or the error the client's ``NetworkClient/Configuration/responseValidator``
    /// throws for it (a non-``NetworkError`` as `.decodingFailed`).
    private static func validated(
        _ response: HTTPResponse, for endpoint: any Endpoint,
        by validate: @Sendable (HTTPResponse, any Endpoint) throws -> Void
    ) -> Result<HTTPResponse, NetworkError> {
        do {
            try validate(response, endpoint)
            return .success(response)
        } catch let error as NetworkError {
            return .failure(error.withoutBodyFile())
        } catch {
            return .failure(NetworkError.decodingFailed(underlying: error, response: response).withoutBodyFile())
        }
    }

    /// The response with a body the transport wrote to a file read into memory (and the file
    /// deleted), unless the body stays on disk: a download whose status the endpoint accepts and
    /// the authenticator does not call an authentication failure (such a response is replayed or
    /// fails, and its error carries the body).
    /// An error body is read for its metadata, at most ``TransportContext/maximumResponseSize``
    /// bytes of it; a request that is not a download fails when the file holds more.
    /// `nil` when the body stays on disk. The result never holds a file again.
    @inline(never)
    private func bodyInMemory(_ response: HTTPResponse) -> Result<HTTPResponse, any Error>? {
        let isDownload = context.writesBodyToFile
        if isDownload && acceptedStatusCodes.contains(response.statusCode) && !isAuthenticationFailure(response) {
            return nil
        }
        return DownloadStorage.readIntoMemory(response, limit: context.maximumResponseSize, failWhenLarger: !isDownload)
    }

    /// Whether the client's authenticator calls `response` an authentication failure of this request.
    private func isAuthenticationFailure(_ response: HTTPResponse) -> Bool {
        guard requiresAuthentication, let authenticator = core.configuration.authenticator else { return false }
        return authenticator.isAuthenticationFailure(response)
    }

    /// The seam for the credential refresh: called when the authenticator recognises `response`
    /// as an authentication failure on an endpoint that requires authentication.
    ///
    /// For now the request fails with `error`. The refresh flow replaces this body: refresh
    /// (single flight, traffic paused), then ``replayAfterAuthentication()`` once, or
    /// ``fail(_:)`` with ``NetworkError/authenticationFailed(underlying:)``. The execution
    /// stays in the evaluating phase meanwhile, so a cancellation still settles it at once.
    ///
    /// - Parameters:
    ///   - error: The classified error of the response (usually a 401 ``NetworkError/clientError``).
    ///   - response: The response that was recognised as an authentication failure.
    ///   - request: The request as sent, credentials included (see ``Authenticator/credentialIdentifier(of:)``).
    ///   - authenticator: The client's authenticator.
    func handleAuthenticationFailure(
        _ error: NetworkError, response: HTTPResponse, request: URLRequest, authenticator: any Authenticator
    ) {
        // A replay that is rejected again is not refreshed again: the server's answer stands.
        guard authenticationReplayCount == 0 else { return fail(error) }
        let generation = state.withLock { $0.authenticationGeneration }
        core.authenticationRefresh.handleFailure(
            of: self, request: request, sentInGeneration: generation, authenticator: authenticator, core: core)
    }

    /// How many times the request was replayed after an authentication failure.
    var authenticationReplayCount: Int {
        state.withLock { $0.authenticationReplays }
    }

    /// Runs the request again from the gate (fresh credential, fresh deadline) without using a
    /// retry. Returns `false` when it had settled (for example it was cancelled meanwhile).
    @discardableResult
    func replayAfterAuthentication() -> Bool {
        let replay = state.withLock { state -> (allowed: Bool, waitDeadline: ScheduledWork?) in
            guard case .evaluating = state.phase else { return (false, nil) }
            if !state.replayingAfterRefreshBeforeSending { state.authenticationReplays += 1 }
            return (true, state.endWaitBeforeSending())
        }
        replay.waitDeadline?.cancel()
        if replay.allowed { beginAttempt() }
        return replay.allowed
    }

    /// Holds the attempt that just left the gate for a credential refresh, because the
    /// authenticator says its credential is about to expire (``Authenticator/requiresRefresh``):
    /// the attempt waits exactly as one rejected with 401 does, and is replayed (not counted as a
    /// replay) once the refresh succeeds. Nothing was sent, so no plugin hears of it.
    ///
    /// Returns `false`, and the attempt goes on, when the request already waited for such a
    /// refresh, or was cancelled or timed out since it left the gate.
    func waitForRefreshBeforeSending(attempt: Int, partial: PartialDownload?, authenticator: any Authenticator) -> Bool {
        // The attempt's deadline keeps running: a request whose timeout passes while it waits
        // ends with `.timedOut` (see `deadlineFired`), and a replay starts a fresh one.
        let now = clock?.now
        let waits = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .preparing = state.phase, !state.deadlinePassedWhilePreparing,
                  !state.refreshedBeforeSending else { return false }
            state.phase = .evaluating
            if let now { state.timeline?.endExchange(at: now) }
            state.refreshedBeforeSending = true
            state.replayingAfterRefreshBeforeSending = true
            state.partialDownload = partial   // for the replay, as a retry would
            return true
        }
        guard waits else { return false }
        // Off this thread: it may be the caller's (inside `request`), or a gate's queue releasing
        // held requests, and the refresh starts user code.
        let credentialed = authenticator.apply(to: request)
        DispatchQueue.global().async { [self] in
            core.authenticationRefresh.handleFailure(
                of: self, request: credentialed, sentInGeneration: core.authenticationRefresh.generation,
                authenticator: authenticator, core: core)
        }
        return true
    }

    /// The refresh this request waited for failed. A request that waited before it was ever
    /// sent goes out with the credential it has (the server decides, and a 401 then refreshes as
    /// usual); one that was rejected fails with `error`.
    func refreshFailed(_ error: NetworkError) {
        let outcome = state.withLock { state -> (sendAnyway: Bool, waitDeadline: ScheduledWork?) in
            guard case .evaluating = state.phase, state.replayingAfterRefreshBeforeSending else { return (false, nil) }
            return (true, state.endWaitBeforeSending())
        }
        outcome.waitDeadline?.cancel()
        if outcome.sendAnyway { beginAttempt() } else { fail(error) }
    }

    /// Retries when the policy allows it, otherwise asks the request retriers (see
    /// ``RequestRetrier``), otherwise fails with `error`. Never retries a cancellation. `sent` is
    /// the failed attempt's request as sent, `nil` when it never reached the transport.
    func retryOrFail(_ error: NetworkError, sent: URLRequest?) {
        guard !error.isCancelled else { return fail(error) }
        if let policy = retryPolicy, policy.shouldRetry(error, method: method) {
            switch claimRetry(limit: policy.maximumRetryCount) {
            case .claimed(let retry, let attempt):
                let delay = policy.delay(beforeRetry: retry, after: error)
                return scheduleRetry(attempt: attempt, after: delay, error)
            case .stopped:
                return fail(error)
            case .limitReached:
                break
            }
        }
        let retriers = core.configuration.requestRetriers
        guard !retriers.isEmpty else { return fail(error) }
        askRetriers(retriers, about: error, sent: sent)
    }

    /// Counts a retry and waits for it, when the request is evaluating a failure and (`limit`)
    /// the policy has made fewer than `limit` retries. A retrier's retry (`limit` `nil`) is
    /// counted apart, so that it uses up none of the policy's.
    func claimRetry(limit: Int?) -> RequestRetryClaim {
        let now = clock?.now
        return state.withLock { state -> RequestRetryClaim in
            guard case .evaluating = state.phase else { return .stopped }
            let retry: Int
            if let limit {
                guard state.retriesUsed < limit else { return .limitReached }
                state.retriesUsed += 1
                retry = state.retriesUsed
            } else {
                state.retrierRetries += 1
                retry = state.retrierRetries
            }
            state.phase = .waitingToRetry(nil)
            if let now { state.timeline?.endExchange(at: now) }
            return .claimed(retry: retry, attempt: state.attempt)
        }
    }

    /// Starts the attempt after `attempt`, whose retry was claimed, in `delay` seconds; or fails
    /// with `error` when no scheduler would ever end that wait.
    func scheduleRetry(attempt: Int, after delay: TimeInterval, _ error: NetworkError) {
        // A wait no scheduler ends (infinite, or beyond ~30 years: `maximumDelay` set that high)
        // would leave the request pending for ever: it fails now instead.
        guard delay <= DispatchScheduler.longestDelay else {
            fail(error)
            return
        }
        let work = core.configuration.scheduler.schedule(after: delay) { [self] in
            retryDelayElapsed(attempt: attempt)
        }
        let stale = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .waitingToRetry(nil) = state.phase else { return true }
            state.phase = .waitingToRetry(work)
            return false
        }
        if stale { work.cancel() }
    }

    private func retryDelayElapsed(attempt: Int) {
        let due = state.withLock { state -> Bool in
            guard state.attempt == attempt, case .waitingToRetry = state.phase else { return false }
            state.phase = .evaluating
            return true
        }
        if due { beginAttempt() }
    }

    // MARK: Decode and deliver

    /// Step 7: decodes where the transport answered, unless it answered inside a `send` that
    /// ran somewhere decoding must not hold up (`decodeElsewhere`): a gate's queue (requests
    /// released by `resume()`, or a request started by code running there) or the timer queue
    /// a retry starts from. Decoding then moves to a global queue. A transport that answers
    /// inside the `send` of a first attempt made on the caller's thread (the gate was open and
    /// idle; stubs without a delay, caches) is decoded on that thread, before `request`
    /// returns, as an immediate stub in Moya would be.
    private func deliver(_ response: HTTPResponse, decodeElsewhere: Bool) {
        if context.writesBodyToFile { return saveDownload(response, elsewhere: decodeElsewhere) }
        if needsDecoding && decodeElsewhere {
            DispatchQueue.global().async { [self] in decodeAndSettle(response) }
        } else {
            decodeAndSettle(response)
        }
    }

    /// Decodes `response` and settles with the outcome.
    private func decodeAndSettle(_ response: HTTPResponse) {
        var decoding: TimeInterval = 0
        let result = timedDecode(response, into: &decoding)
        settle(result, response: response, decoding: decoding)
    }

    /// `decode(response)`, timed into `duration` when the metrics are read.
    private func timedDecode(_ response: HTTPResponse, into duration: inout TimeInterval) -> Result<Response, NetworkError> {
        guard let clock else { return decode(response) }
        let start = clock.now
        defer { duration = clock.now - start }
        return decode(response)
    }

    /// A download's last step: the request is settled first, so that a cancellation of the
    /// execution cannot report `.cancelled` while the body is being saved over the destination
    /// (one that comes later finds it settled and does nothing). When the request had already
    /// settled (cancelled, timed out), or its promise was cancelled before the save starts, the
    /// body is deleted instead.
    private func saveDownload(_ response: HTTPResponse, elsewhere: Bool) {
        guard claimSettlement() else { return DownloadStorage.discard(response) }
        let save: @Sendable () -> Void = { [self] in
            // A promise rejects at once when it is cancelled, without waiting for the execution.
            if let resolver, !resolver.isPending {
                DownloadStorage.discard(response)
                return deliver(.failure(.cancelled))   // settles nothing; plugins hear of the end
            }
            var decoding: TimeInterval = 0
            let result = timedDecode(response, into: &decoding)
            deliver(result, response: response, decoding: decoding)
        }
        if elsewhere {
            DispatchQueue.global().async(execute: save)
        } else {
            save()
        }
    }

    /// Settles the request with `error`, unless it already settled.
    func fail(_ error: NetworkError) {
        settle(.failure(error))
    }

    /// Step 8: settles exactly once.
    private func settle(_ result: Result<Response, NetworkError>, response: HTTPResponse? = nil, decoding: TimeInterval = 0) {
        if claimSettlement() { deliver(result, response: response, decoding: decoding) }
    }

    /// Marks the request finished and stops its deadline; `false` when it had already settled.
    private func claimSettlement() -> Bool {
        var partial: PartialDownload?   // a download's saved start that no attempt will resume now
        let deadline = state.withLock { state -> ScheduledWork?? in
            guard !state.phase.isFinished else { return nil }
            state.phase = .finished
            swap(&partial, &state.partialDownload)
            defer { state.deadline = nil }
            return .some(state.deadline)
        }
        guard let deadline else { return false }
        deadline?.cancel()
        drop(partial)
        return true
    }

    /// Settles the promise, or runs the handler: on its queue when it has one (never inside
    /// this call), otherwise right here. The plugins' `didFinish` runs first, when the client has
    /// plugins; `response` is the response a success was decoded from, `decoding` how long that took.
    func deliver(_ result: Result<Response, NetworkError>, response: HTTPResponse? = nil, decoding: TimeInterval = 0) {
        progress?.finish()  // no progress report is queued after this
        if let clock {
            var error: NetworkError?
            if case .failure(let failure) = result { error = failure }
            // The caller cancelled the promise while the answer was on its way: that is what it gets.
            if let resolver, !resolver.isPending { error = .cancelled }
            reportFinish(error: error, response: response, decoding: decoding, at: clock.now)
        }
        // Before the caller hears: a download it starts next with the same resumption finds it free.
        if let resumption {
            var succeeded = false
            if case .success = result { succeeded = true }
            resumption.settled(by: ObjectIdentifier(self), succeeded: succeeded)
        }
        if let resolver {
            switch result {
            case .success(let value): resolver.fulfill(value)
            case .failure(let error): resolver.reject(error)
            }
        } else if let (queue, body) = handler {
            if let queue {
                queue.async { body(result) }
            } else {
                body(result)
            }
        }
    }

    /// A download's saved start that no attempt of this request will resume: kept in the
    /// request's ``DownloadResumption`` for a later download, or deleted.
    func drop(_ partial: PartialDownload?) {
        guard let partial else { return }
        if let resumption {
            resumption.keep(partial, from: DownloadResumption.origin(of: endpoint, at: core.configuration.baseURL))
        } else {
            partial.discard()
        }
    }
}

extension RequestExecution {
    /// Calls every plugin's `didFinish` with the request's outcome and metrics (see
    /// ``RequestPlugin/didFinish(_:for:endpoint:metrics:)``). `error` is the caller's error, or
    /// `nil` for a success decoded from `response`.
    @inline(never)
    private func reportFinish(error: NetworkError?, response: HTTPResponse?, decoding: TimeInterval, at now: TimeInterval) {
        // Read under the lock, like every other use of the timeline.
        guard let (metrics, lastRequest) = state.withLock({ state in
            state.timeline.map { ($0.metrics(at: now, decoding: decoding), $0.lastRequest) }
        }) else { return }
        let outcome: Result<HTTPResponse, NetworkError>
        if let error {
            outcome = .failure(error)
        } else if var head = response {
            head.streamedBody = nil   // plugins never keep a stream's transfer running
            outcome = .success(head)
        } else {
            return   // every success carries its response; nothing to report otherwise
        }
        let sent = lastRequest ?? request
        for plugin in core.configuration.plugins {
            plugin.didFinish(outcome, for: sent, endpoint: endpoint, metrics: metrics)
        }
    }
}
