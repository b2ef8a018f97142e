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
}
