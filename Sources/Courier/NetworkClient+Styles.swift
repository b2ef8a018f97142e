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
        if E.Response.self == HTTPResponse.self {
            return execute(endpoint, needsDecoding: false) { response in
                guard let raw = response as? E.Response else {
                    return .failure(.decodingFailed(underlying: ResponseTypeMismatch(), response: response))
                }
                return .success(raw)
            }
        }
        if E.Response.self == JSON.self {
            return execute(endpoint) { response in
                do {
                    let json = response.body.isEmpty ? JSON.null : try JSON(data: response.body)
                    guard let value = json as? E.Response else {
                        return .failure(.decodingFailed(underlying: ResponseTypeMismatch(), response: response))
                    }
                    return .success(value)
                } catch {
                    return .failure(.decodingFailed(underlying: error, response: response))
                }
            }
        }
        let decoder = core.configuration.decoder
        return execute(endpoint) { response in
            do {
                return .success(try decoder.decode(E.Response.self, from: response.body))
            } catch {
                return .failure(.decodingFailed(underlying: error, response: response))
            }
        }
    }

    /// Sends `endpoint` and delivers the raw response once its status is classified: a status
    /// outside 200...299 still rejects with a ``NetworkError``, but the body is not decoded.
    ///
    /// ```swift
    /// client.response(for: Avatar(id: 7)).done { response in save(response.body) }
    /// ```
    public func response<E: Endpoint>(for endpoint: E) -> Promise<HTTPResponse> {
        execute(endpoint, needsDecoding: false) { .success($0) }
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
        do {
            return try await request(endpoint).value
        } catch {
            throw NetworkError.fromTransport(error)
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
        let promise = request(endpoint)
        _ = promise.tap(on: core.configuration.callbackQueue) { result in
            completion(result.mapError { NetworkError.fromTransport($0) })
        }
        return RequestTask { promise.cancel() }
    }

    /// Builds the request and starts its execution; the one pipeline behind every style.
    private func execute<E: Endpoint, R: Sendable>(
        _ endpoint: E, needsDecoding: Bool = true,
        decode: @escaping @Sendable (HTTPResponse) -> Result<R, NetworkError>
    ) -> Promise<R> {
        let request: URLRequest
        do {
            request = try core.builder.makeURLRequest(for: endpoint)
        } catch {
            return Promise(error: error)
        }
        let (promise, resolver) = Promise<R>.pending()
        let execution = RequestExecution(
            core: core, endpoint: endpoint, request: request, resolver: resolver,
            needsDecoding: needsDecoding, decode: decode)
        resolver.onCancel { execution.cancel() }
        execution.start()
        return promise
    }
}

/// The endpoint's response type did not match the special case it was dispatched to (never expected).
struct ResponseTypeMismatch: Error, CustomStringConvertible {
    var description: String { "the endpoint's Response type does not match the decoded value" }
}
