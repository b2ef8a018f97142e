import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Promises

extension NetworkClient {
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
}
