import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension RequestExecution {
    // MARK: Decode and deliver

    /// Step 7: decodes where the transport answered, unless it answered inside a `send` that
    /// ran somewhere decoding must not hold up (`decodeElsewhere`): a gate's queue (requests
    /// released by `resume()`, or a request started by code running there) or the timer queue
    /// a retry starts from. Decoding then moves to a global queue. A transport that answers
    /// inside the `send` of a first attempt made on the caller's thread (the gate was open and
    /// idle; stubs without a delay, caches) is decoded on that thread, before `request`
    /// returns, as an immediate stub in Moya would be.
    func deliver(_ response: HTTPResponse, decodeElsewhere: Bool) {
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
