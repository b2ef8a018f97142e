import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestExecution {
    // MARK: Dequeue and transport

    /// Runs when the attempt leaves the gate: on the gate's queue, or on the submitting thread
    /// when the gate was open and idle.
    func passGate(ticket: UInt64) {
        let now = clock?.now
        // A download's resumption counts this attempt from before it takes the saved part out of
        // the state until the part is back (kept, sent and answered, or dropped): a `pause()`
        // meanwhile waits for it. Ended by the transport's answer, or when the transport, or
        // this function, lets go of it.
        let inHand = resumption.map { TransportAttempt(of: ObjectIdentifier(self), in: $0) }
        defer { withExtendedLifetime(inHand) {} }
        let taken = state.withLock { state -> (attempt: Int, partial: PartialDownload?)? in
            guard case .queued(let queued) = state.phase, queued == ticket else { return nil }
            state.phase = .preparing
            if let now { state.timeline?.leaveQueue(at: now) }
            defer { state.partialDownload = nil }
            return (state.attempt, state.partialDownload)
        }
        guard let (attempt, partial) = taken else { return }
        // The request's own temporary files are in use: a sweep by another process must not
        // take them for a killed process's leftovers (see `PrivateFile.staleAge`).
        if let stagedForm, attempt > 1 { PrivateFile.touch(stagedForm.file) }
        if let partial { PrivateFile.touch(partial.fileURL) }
        // Read once: it also applies the credential below.
        let authenticator = requiresAuthentication ? core.configuration.authenticator : nil
        if let authenticator, authenticator.requiresRefresh,
           waitForRefreshBeforeSending(attempt: attempt, partial: partial, authenticator: authenticator) {
            return
        }
        // An answer that arrives inside `send` is decoded right there only when `send` runs on
        // the thread that called `request`, that is for the first attempt (retries and replays
        // start on a timer's queue) and off every gate's queue (decoding there would hold up
        // the requests behind). A staged form's first attempt starts on the staging queue, which
        // decoding must not hold up either (other forms wait there).
        let onCallersThread = attempt == 1 && stagedForm == nil && !RequestGate.isRunningOnAGateQueue

        // Fields are read through `core` one at a time: binding `core.configuration` to a local
        // would copy (retain and release) the whole configuration on every request.
        let plugins = core.configuration.plugins
        // A download's retry asks for the rest of what the previous attempt saved.
        var outgoing = partial?.requestingRest(of: request) ?? request
        var refusal: NetworkError?
        var upload: (stream: InputStream, resolved: URL)?
        if let file = context.uploadFile {
            do {
                upload = try FileBody.prepare(&outgoing, from: file)
            } catch {
                refusal = error   // the file is gone: refused below, not retried
            }
        }
        let generation = core.authenticationRefresh.generation
        var headersChanged = !plugins.isEmpty || refusal != nil
        if let authenticator {
            outgoing = authenticator.apply(to: outgoing)
            headersChanged = true
        }
        for plugin in plugins { outgoing = plugin.prepare(outgoing, for: endpoint) }
        var prepared = PreparedAttempt(
            request: outgoing, attempt: attempt, partial: partial, upload: upload.map { UploadHandOver(stream: $0.stream, resolved: $0.resolved) },
            refusal: refusal, generation: generation, onCallersThread: onCallersThread, headersChanged: headersChanged)
        if refusal == nil {
            let adapters = attemptAdapters()
            if !adapters.isEmpty {
                guard let stopped = adapt(prepared, with: adapters) else { return }
                prepared = stopped
            }
        }
        finishPreparing(prepared, inHand: inHand)
    }

    /// Checks a prepared attempt once more and sends it: the second half of ``passGate(ticket:)``,
    /// or what follows the request adapters.
    ///
    /// `inHand`: the attempt's hold on a download's resumption, kept until the transport answers.
    ///
    /// Inlined: `passGate` then builds no `PreparedAttempt` on the hot path.
    @inline(__always)
    func finishPreparing(_ prepared: PreparedAttempt, inHand: TransportAttempt?) {
        let plugins = core.configuration.plugins
        let attempt = prepared.attempt
        let partial = prepared.partial
        let upload = prepared.upload
        let outgoing = prepared.request
        var refusal = prepared.refusal
        // The builder checked the endpoint's method and headers; a credential or a plugin may
        // have changed them (a token read from a server's answer, say): check again.
        // User code (the authenticator, plugins, adapters) also ran since the attempt left the gate
        // and may have taken a while: a request cancelled or timed out meanwhile is not sent at all.
        // Either way nothing was sent, so no plugin hears of it (no `willSend`, no `didReceive`).
        if prepared.headersChanged {
            if refusal == nil {
                do {
                    try HeaderValidation.check(outgoing.allHTTPHeaderFields ?? [:])
                    try HeaderValidation.checkMethod(outgoing.httpMethod ?? "GET")
                } catch {
                    refusal = error
                }
            }
            let stop = stopBeforeSending(attempt: attempt, refusal: refusal, partial: partial)
            switch stop {
            case nil: break
            case .cancelled?:
                drop(partial)
                return
            case .timedOut?: return attemptTimedOut(sent: nil)   // a retry resumes `partial`
            case .refused(let error, let deadline)?:
                drop(partial)
                deadline?.cancel()
                return fail(error)
            }
        }
        for plugin in plugins { plugin.willSend(outgoing, for: endpoint) }
        let sent = outgoing

        // The generation travels with the completion: an answer that arrives inside `send`
        // is evaluated before the block below could record it.
        // A plugin that replaced a file body (compressed or signed it) has what it made sent.
        let bodyReplaced = upload.map { sent.httpBody != nil || sent.httpBodyStream !== $0.stream } ?? false
        // Started once the attempt is `sending`; the transport's progress reports feed it.
        // Weak: the watch lives in the request's deadline, and a scheduler that never runs the
        // check must not keep the request (and its promise) alive.
        let watch = idleTimeout.flatMap { $0.isFinite ? $0 : nil }.map { period in
            IdleWatch(period: period, scheduler: core.configuration.scheduler) { [weak self] in
                self?.idleTimeoutFired(attempt: attempt)
            }
        }
        let attemptContext = context(
            forAttempt: attempt, uploadFile: bodyReplaced ? nil : upload?.resolved, resuming: partial, watch: watch)
        let bodyStream = attemptContext.bodyStream
        if clock != nil { recordSend(sent, attempt: attempt) }
        let generation = prepared.generation
        let onCallersThread = prepared.onCallersThread
        let task = core.send(sent, context: attemptContext, sharing: sharesIdenticalRequests) { [self] result in
            transportCompleted(
                bodyStream?.attachReader(to: result) ?? result, attempt: attempt, request: sent, generation: generation,
                sentOnCallersThread: onCallersThread, ending: inHand)
        }
        bodyStream?.attach(task)

        let next = state.withLock { state -> RequestAfterSend in
            guard state.attempt == attempt, case .preparing = state.phase else {
                return state.cancelledWhilePreparing == attempt ? .cancelledWhilePreparing : .settled
            }
            if state.deadlinePassedWhilePreparing {
                state.phase = .evaluating
                state.deadline = nil
                return .timedOut
            }
            state.phase = .sending(task)
            state.sentRequest = sent
            if let watch {
                // Whatever ends the attempt cancels its deadline: the watch stops with it.
                let deadline = state.deadline
                state.deadline = ScheduledWork {
                    deadline?.cancel()
                    watch.stop()
                }
            }
            return .sending
        }
        switch next {
        case .sending:
            watch?.start()
        case .timedOut:
            task.cancel()
            attemptTimedOut(sent: sent)
        case .cancelledWhilePreparing:
            // Cancelled while `send` ran: the request did go out, so the plugins that saw
            // `willSend` also hear how it ended, as for a cancellation in flight.
            task.cancel()
            for plugin in plugins { plugin.didReceive(.failure(.cancelled), for: sent, endpoint: endpoint) }
        case .settled:
            // Completed inside `send` (or cancelled before it): cancelling a finished task does
            // nothing. A streamed body is still arriving, though: its reader decides when the
            // transfer stops (see `ResponseBodyStream.attach`).
            if bodyStream?.isClaimed != true { task.cancel() }
        }
    }

    /// Counts an attempt handed to the transport for ``RequestMetrics``, unless it was cancelled or
    /// superseded while it was prepared.
    private func recordSend(_ sent: URLRequest, attempt: Int) {
        state.withLock { state in
            guard state.attempt == attempt, case .preparing = state.phase else { return }
            state.timeline?.send(sent)
        }
    }

    /// Why an attempt that is being prepared must not be sent, or `nil` when it may go.
    /// `refusal`: why its method or headers failed the check (the attempt then ends here).
    ///
    /// A download's `partial` that a timed-out attempt took goes back to the state in the same
    /// lock, so that the retry resumes it and every other ending deletes it.
    private func stopBeforeSending(
        attempt: Int, refusal: NetworkError?, partial: PartialDownload?
    ) -> RequestStopBeforeSending? {
        state.withLock { state -> RequestStopBeforeSending? in
            guard state.attempt == attempt, case .preparing = state.phase else { return .cancelled }
            if state.deadlinePassedWhilePreparing {
                state.phase = .evaluating
                state.deadline = nil
                state.partialDownload = partial
                return .timedOut
            }
            guard let refusal else { return nil }
            state.phase = .evaluating
            defer { state.deadline = nil }
            return .refused(refusal, state.deadline)
        }
    }

    /// The longest a streamed body may go without a piece: the endpoint's idle timeout, else its
    /// timeout, else the client's idle timeout, else the client's timeout. The endpoint's own
    /// settings come first, so that a client-wide `idleTimeout` meant for downloads does not cut
    /// short an event stream whose endpoint allows minutes between events.
    private var bodyIdleTimeout: TimeInterval {
        endpoint.idleTimeout ?? endpoint.timeout ?? core.configuration.idleTimeout ?? timeout
    }

    /// The context for attempt `attempt`: the shared one, or a copy when the caller asked for
    /// progress (its reports are tagged with the attempt, so late reports of an abandoned attempt
    /// are dropped) or when the file to send is not the shared context's.
    ///
    /// `uploadFile`: the file the transport sends for this attempt: the body file with its links
    /// resolved, or `nil` when a plugin replaced the file body.
    private func context(
        forAttempt attempt: Int, uploadFile: URL?, resuming partial: PartialDownload?, watch: IdleWatch?
    ) -> TransportContext {
        if progress == nil && watch == nil && uploadFile == context.uploadFile && !streamsBody && partial == nil { return context }
        var tagged = context
        tagged.partialDownload = partial
        let reporter = progress?.reporter(forAttempt: attempt)
        if let watch {
            tagged.progress = { report in
                watch.touch()
                reporter?(report)
            }
        } else if let reporter {
            tagged.progress = reporter
        }
        tagged.uploadFile = uploadFile
        if streamsBody {
            let accepted = acceptedStatusCodes
            let authenticator = requiresAuthentication ? core.configuration.authenticator : nil
            tagged.bodyStream = ResponseBodyStream(
                accepting: { head in
                    accepted.contains(head.statusCode) && authenticator?.isAuthenticationFailure(head) != true
                },
                limit: context.maximumResponseSize, idleTimeout: bodyIdleTimeout, scheduler: context.scheduler)
        }
        return tagged
    }
}
