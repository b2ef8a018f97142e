import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension NetworkClient {
    /// Sends `endpoint` and decodes its response into `E.Response`.
    ///
    /// - `E.Response == JSON`: the body parsed as JSON (an empty body gives ``JSON/null``).
    /// - `E.Response == HTTPResponse`: the response itself, not decoded.
    /// - `E.Response == EmptyResponse`: `EmptyResponse()`; the body is not read.
    /// - `E.Response == Data`: the body's bytes as received.
    /// - `E.Response == String`: the body as text (``HTTPResponse/text``: the `Content-Type`'s
    ///   charset, UTF-8 by default); bytes that are not valid text fail with `.decodingFailed`.
    /// - `E.Response == Value?`: `nil` for an empty body (a `204`), otherwise `Value` by these
    ///   same rules; for a `Value` the decoder decodes, a JSON `null` is `nil` too (a
    ///   `String?` gets the text `"null"`, a `JSON?` gets ``JSON/null``).
    /// - `E.Response == DecodedResponse<Value>`: the value decoded by these same rules, with the
    ///   response it came from (see ``Endpoint/withHTTPResponse()``).
    /// - Otherwise: decoded with ``Configuration/decoder``.
    ///
    /// Cancelling the returned promise (or any promise chained from it) cancels the request
    /// wherever it is: held by a pause, in flight, or waiting to retry.
    ///
    /// ```swift
    /// client.request(GetUser(id: 42))
    ///     .done { user in print(user.name) }
    ///     .catch { error in print(error) }
    /// ```
    ///
    /// - Returns: A promise of the decoded response; it rejects with a ``NetworkError``
    ///   (or ``/Promises/PromiseError/cancelled`` when the promise itself was cancelled).
    public func request<E: Endpoint>(_ endpoint: E) -> Promise<E.Response> {
        request(endpoint, progress: nil)
    }

    /// ``request(_:)`` with progress reports: `progress` hears how much of the body was sent
    /// and of the response received, until the request settles (see ``ProgressHandler``).
    ///
    /// ```swift
    /// client.request(UploadPhoto(data: jpeg), progress: ProgressHandler(queue: .main) { progress in
    ///     bar.value = progress.sendFraction ?? 0
    /// }).done(on: .main) { _ in
    ///     bar.isHidden = true   // after every report: both run on the main queue
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send.
    ///   - progress: Where reports go; `nil`: none, as ``request(_:)``.
    /// - Returns: A promise of the decoded response, as ``request(_:)``.
    public func request<E: Endpoint>(_ endpoint: E, progress: ProgressHandler?) -> Promise<E.Response> {
        promised { resolver throws(NetworkError) in
            try makeExecution(endpoint, resolver: resolver, handler: nil, progress: progress)
        }
    }

    /// A promise of the execution that `make` builds for its resolver, started; cancelling the
    /// promise cancels the execution. A request that cannot be built rejects the promise.
    func promised<R: Sendable>(
        _ make: (Resolver<R>) throws(NetworkError) -> RequestExecution<R>
    ) -> Promise<R> {
        let (promise, resolver) = Promise<R>.pending()
        let execution: RequestExecution<R>
        do {
            execution = try make(resolver)
        } catch {
            resolver.reject(error)
            return promise
        }
        // Weak, as in the other styles: while the request is pending, whatever produces its next
        // event (gate, transport, deadline, retry timer) holds it; if all of them let go, its
        // `deinit` must run to reject the promise instead of leaving it pending for ever.
        resolver.onCancel { [weak execution] in execution?.cancel() }
        execution.start()
        return promise
    }

    /// Sends `endpoint` and delivers the raw response once its status is classified: a status
    /// outside the endpoint's ``Endpoint/acceptedStatusCodes`` (200...299 by default) still
    /// rejects with a ``NetworkError``, but the body is not decoded.
    ///
    /// ```swift
    /// client.response(for: Avatar(id: 7)).done { response in save(response.body) }
    /// ```
    public func response<E: Endpoint>(for endpoint: E) -> Promise<HTTPResponse> {
        promised { resolver throws(NetworkError) in
            try buildExecution(endpoint, resolver: resolver, handler: nil, needsDecoding: false) { .success($0) }
        }
    }

    /// Sends `endpoint` and returns the decoded response; see `request(_:)` for how the body is decoded.
    ///
    /// Cancelling the calling `Task` cancels the request.
    ///
    /// ```swift
    /// let user = try await client.send(GetUser(id: 42))
    /// ```
    ///
    /// - Throws: A ``NetworkError``; ``NetworkError/cancelled`` when the task was cancelled.
    public func send<E: Endpoint>(_ endpoint: E) async throws -> E.Response {
        try await send(endpoint, progress: nil)
    }

    /// ``send(_:)`` with progress reports (see ``ProgressHandler``). It returns (or throws) from the
    /// handler's queue, after every report queued there ran.
    ///
    /// ```swift
    /// let report = try await client.send(DownloadReport(), progress: ProgressHandler { print($0) })
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send.
    ///   - progress: Where reports go; `nil`: none, as ``send(_:)``.
    /// - Throws: A ``NetworkError``, as ``send(_:)``.
    public func send<E: Endpoint>(_ endpoint: E, progress: ProgressHandler?) async throws -> E.Response {
        // With progress, resume from the reports' queue, so that `send` returns after the last
        // report ran (when that queue is serial).
        let queue = progress.map { $0.queue ?? core.configuration.callbackQueue }
        return try await awaiting(on: queue) { handler throws(NetworkError) in
            try makeExecution(endpoint, resolver: nil, handler: handler, progress: progress)
        }
    }

    /// The async style: the execution that `make` builds, started, and its outcome awaited.
    /// Cancelling the awaiting task cancels the request.
    ///
    /// - Parameter queue: Where the task is resumed from; `nil`: the thread that settles the request.
    func awaiting<R: Sendable>(
        on queue: DispatchQueue?, _ make: (RequestExecution<R>.Handler) throws(NetworkError) -> RequestExecution<R>
    ) async throws -> R {
        // The same pipeline without a promise: the execution resumes the task itself, on the
        // thread that settles it (at once, without suspending, when the answer came inside
        // `send`). The relay lets a cancellation that comes first, or meanwhile, reach it.
        let relay = CancellationRelay()
        defer { relay.handOver() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<R, any Error>) in
                // Resumed exactly once: an execution delivers once, and one that is never
                // started is cancelled, which delivers `.cancelled`.
                let execution: RequestExecution<R>
                do {
                    execution = try make((queue, { result in
                        relay.handOver()
                        continuation.resume(with: result)
                    }))
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                if relay.attach(execution) {
                    execution.start()
                } else {
                    execution.cancel()
                }
            }
        } onCancel: {
            relay.cancel()
        }
    }

    /// Sends `endpoint` and calls `completion` with the decoded response or a ``NetworkError``.
    ///
    /// `completion` runs once, on ``Configuration/callbackQueue`` (by default a private serial
    /// queue, not the main queue).
    ///
    /// ```swift
    /// let task = client.request(GetUser(id: 42)) { result in
    ///     switch result {
    ///     case .success(let user): print(user.name)
    ///     case .failure(let error): print(error)
    ///     }
    /// }
    /// task.cancel()   // completion receives .failure(.cancelled)
    /// ```
    ///
    /// - Returns: A handle that cancels the request.
    @discardableResult
    public func request<E: Endpoint>(
        _ endpoint: E,
        completion: @escaping @Sendable (Result<E.Response, NetworkError>) -> Void
    ) -> RequestTask {
        request(endpoint, progress: nil, completion: completion)
    }

    /// ``request(_:completion:)`` with progress reports (see ``ProgressHandler``). With the
    /// handler's queue left at `nil`, reports and `completion` share the callback queue, so on a
    /// serial queue (the default) every report runs before `completion`.
    ///
    /// ```swift
    /// client.request(UploadPhoto(data: jpeg), progress: ProgressHandler { print($0) }) { result in
    ///     print(result)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send.
    ///   - progress: Where reports go; `nil`: none, as ``request(_:completion:)``.
    ///   - completion: Runs once on ``Configuration/callbackQueue``.
    /// - Returns: A handle that cancels the request.
    @discardableResult
    public func request<E: Endpoint>(
        _ endpoint: E,
        progress: ProgressHandler?,
        completion: @escaping @Sendable (Result<E.Response, NetworkError>) -> Void
    ) -> RequestTask {
        request(endpoint, callbackQueue: nil, progress: progress, completion: completion)
    }

    /// ``request(_:completion:)`` with `completion` run on a queue of this call's own instead of
    /// ``Configuration/callbackQueue`` (Moya's `request(_:callbackQueue:progress:completion:)`).
    /// Progress reports whose handler names no queue run there too (before `completion` when the
    /// queue is serial).
    ///
    /// ```swift
    /// client.request(GetUser(id: 42), callbackQueue: .main) { result in
    ///     label.text = (try? result.get())?.name    // on the main queue
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send.
    ///   - callbackQueue: Where `completion` runs; `nil`: ``Configuration/callbackQueue``.
    ///   - progress: Where reports go. Default: `nil`, none.
    ///   - completion: Runs once, on `callbackQueue`.
    /// - Returns: A handle that cancels the request.
    @discardableResult
    public func request<E: Endpoint>(
        _ endpoint: E,
        callbackQueue: DispatchQueue?,
        progress: ProgressHandler? = nil,
        completion: @escaping @Sendable (Result<E.Response, NetworkError>) -> Void
    ) -> RequestTask {
        completing(completion, on: callbackQueue) { handler throws(NetworkError) in
            try makeExecution(endpoint, resolver: nil, handler: handler, progress: progress)
        }
    }

    /// ``request(_:callbackQueue:progress:completion:)-(_,DispatchQueue?,_,_)`` with `completion` isolated to the main
    /// actor: it runs on the main queue and may update main-actor state directly under Swift 6
    /// (see `MainActorTarget`).
    ///
    /// ```swift
    /// @MainActor final class ProfileScreen {
    ///     var title = ""
    ///     func load(_ client: NetworkClient) {
    ///         client.request(GetUser(id: 42), callbackQueue: .mainActor) { result in
    ///             self.title = (try? result.get())?.name ?? "Unknown"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - endpoint: What to send.
    ///   - callbackQueue: `.mainActor`.
    ///   - progress: Where reports go. Default: `nil`, none. A handler that names no queue runs
    ///     on the main queue too.
    ///   - completion: Runs once, on the main actor.
    /// - Returns: A handle that cancels the request.
    @discardableResult
    public func request<E: Endpoint>(
        _ endpoint: E,
        callbackQueue: MainActorTarget,
        progress: ProgressHandler? = nil,
        completion: @escaping @MainActor (Result<E.Response, NetworkError>) -> Void
    ) -> RequestTask {
        request(endpoint, callbackQueue: .main, progress: progress) { result in
            MainActor.assumeIsolated { completion(result) }
        }
    }

    /// The completion style: the execution that `make` builds for `completion` (run on `queue`,
    /// by default the callback queue), started, and the task that cancels it. A request that
    /// cannot be built calls `completion` with the error, on that queue too.
    func completing<R: Sendable>(
        _ completion: @escaping @Sendable (Result<R, NetworkError>) -> Void,
        on queue: DispatchQueue? = nil,
        _ make: (RequestExecution<R>.Handler) throws(NetworkError) -> RequestExecution<R>
    ) -> RequestTask {
        // The same pipeline without a promise: the execution runs the handler on the callback
        // queue itself, and the task cancels the execution directly. The task holds it weakly,
        // so a kept task does not keep a finished request (and its body) alive; until it
        // finishes, the gate, the transport or the deadline holds it.
        let queue = queue ?? core.configuration.callbackQueue
        let execution: RequestExecution<R>
        do {
            execution = try make((queue, completion))
        } catch {
            queue.async { completion(.failure(error)) }
            return RequestTask {}
        }
        execution.start()
        return RequestTask { [weak execution] in execution?.cancel() }
    }

    /// The execution of `endpoint`, delivering to `resolver` or `handler` (exactly one is set):
    /// the one pipeline behind every style. It decodes as ``request(_:)`` documents: the
    /// response itself for `HTTPResponse`, nothing for `EmptyResponse`, parsed `JSON`, the raw
    /// body for `Data`, its text for `String`, a `DecodedResponse` or an optional built by its
    /// own rules (see `ResponseBody`), or ``Configuration/decoder``.
    /// Throws when the request cannot be built.
    private func makeExecution<E: Endpoint>(
        _ endpoint: E, resolver: Resolver<E.Response>?, handler: RequestExecution<E.Response>.Handler?,
        progress: ProgressHandler?
    ) throws(NetworkError) -> RequestExecution<E.Response> {
        // The closures are passed straight to `buildExecution`: returned from a helper instead,
        // they would be re-abstracted at run time, with a metadata lookup per request.
        if let keyPath = endpoint.responseKeyPath, !keyPath.isEmpty, ResponseBody.needsDecoding(E.Response.self) {
            let decoder = endpoint.decoder.map(SharedCoder.init(coder:)) ?? core.configuration.sharedDecoder
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
                ResponseBody.decode(E.Response.self, from: response, atKeyPath: keyPath, decoder: decoder.coder)
            }
        }
        if E.Response.self == HTTPResponse.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: false, progress: progress) { response in
                ResponseBody.cast(response, response)
            }
        }
        if E.Response.self == EmptyResponse.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: false, progress: progress) { response in
                ResponseBody.cast(EmptyResponse(), response)
            }
        }
        if E.Response.self == JSON.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
                ResponseBody.json(response).flatMap { ResponseBody.cast($0, response) }
            }
        }
        if E.Response.self == Data.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: false, progress: progress) { response in
                ResponseBody.cast(response.body, response)
            }
        }
        if E.Response.self == String.self {
            return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
                ResponseBody.text(response).flatMap { ResponseBody.cast($0, response) }
            }
        }
        let decoder = endpoint.decoder.map(SharedCoder.init(coder:)) ?? core.configuration.sharedDecoder
        if let envelope = E.Response.self as? any ResponseEnvelope.Type {
            // The metatype is looked up again when the response arrives: an envelope's own
            // metatype is not `Sendable`, so the closure cannot keep `envelope`.
            return try buildExecution(
                endpoint, resolver: resolver, handler: handler, needsDecoding: envelope.decodesBody, progress: progress
            ) { response in
                ResponseBody.decode(E.Response.self, from: response, decoder: decoder.coder)
            }
        }
        return try buildExecution(endpoint, resolver: resolver, handler: handler, needsDecoding: true, progress: progress) { response in
            ResponseBody.typed(E.Response.self, response, decoder.coder)
        }
    }

    /// Builds the request and the execution that carries it through the pipeline.
    func buildExecution<E: Endpoint, R: Sendable>(
        _ endpoint: E, adding headers: [String: String] = [:], resolver: Resolver<R>?,
        handler: RequestExecution<R>.Handler?, needsDecoding: Bool,
        progress: ProgressHandler? = nil, writesBodyToFile: Bool = false, streamsBody: Bool = false,
        resuming: (resumption: DownloadResumption, part: PartialDownload?)? = nil, listed: Bool = true,
        decode: @escaping @Sendable (HTTPResponse) -> Result<R, NetworkError>
    ) throws(NetworkError) -> RequestExecution<R> {
        let made = try core.builder.makeRequest(for: endpoint)
        var request = made.request
        let upload = made.upload
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return RequestExecution(
            core: core, endpoint: endpoint, request: request, resolver: resolver, handler: handler,
            needsDecoding: needsDecoding, progress: progress, writesBodyToFile: writesBodyToFile,
            streamsBody: streamsBody, upload: upload, resuming: resuming, onClientOrigin: made.onClientOrigin,
            listed: listed, decode: decode)
    }
}

/// Carries a task's cancellation to the execution that `send` creates inside its continuation:
/// the cancellation handler may run before the execution exists, while it runs, or after.
final class CancellationRelay: Sendable {
    private struct State: Sendable {
        /// Weak: whatever holds the execution while it is pending (the gate, the transport, the
        /// deadline, a retry timer) keeps it alive; if all of them let go unsettled, its `deinit`
        /// must run so that the awaiting task is resumed.
        weak var execution: (any CancellableRequest)?
        var isCancelled = false
    }

    private let state = Protected(State())

    /// Hands over `execution`; `false` when the task was already cancelled (then it must not start).
    func attach(_ execution: any CancellableRequest) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.execution = execution
            return true
        }
    }

    /// An empty critical section, entered by the thread that delivers the outcome right before
    /// it resumes the awaiting task, and by that task right after it resumes.
    ///
    /// The continuation already orders the two, but Thread Sanitizer cannot see it: the runtime
    /// hands the outcome over through atomics that are not instrumented, so objects made for
    /// the outcome on the delivering thread (a streamed body's reader, say) looked raced when
    /// the task read them. The lock's release and acquire are an ordering it sees. Two
    /// uncontended lock operations per request, on every build (one code path).
    func handOver() {
        state.withLock { _ in }
    }

    /// Cancels the execution, now or as soon as it is attached.
    func cancel() {
        let execution = state.withLock { state -> (any CancellableRequest)? in
            state.isCancelled = true
            defer { state.execution = nil }
            return state.execution
        }
        execution?.cancel()
    }
}

/// A request execution, seen by whoever may cancel it.
protocol CancellableRequest: AnyObject, Sendable {
    func cancel()
}

/// The endpoint's response type did not match the special case it was dispatched to (never expected).
struct ResponseTypeMismatch: Error, CustomStringConvertible {
    var description: String { "the endpoint's Response type does not match the decoded value" }
}
