import Foundation

extension NetworkClient {
    /// Sends `endpoint` and returns as soon as the response head arrives, with the body to read
    /// as it comes in (Alamofire's `streamRequest`, URLSession's `bytes(for:)`): for Server-Sent
    /// Events, a streaming chat completion, NDJSON feeds, log tails, or a large body you process
    /// piece by piece as fast as it arrives (there is no backpressure: a reader more than
    /// ``Configuration/maximumResponseSize`` bytes behind fails; see ``StreamedResponse``).
    ///
    /// ```swift
    /// let streamed = try await client.stream(ChatCompletion(prompt: "Hello", stream: true))
    /// for try await event in streamed.events {
    ///     print(event.data)
    /// }
    /// ```
    ///
    /// The request runs the whole pipeline up to the head: the pause gate, credentials and the
    /// refresh on a 401, plugins (`didReceive` sees the head, with an empty body), retries, and
    /// status classification.
    /// - A status the endpoint accepts (``Endpoint/acceptedStatusCodes``) returns the
    ///   ``StreamedResponse`` at once; its body streams from then on.
    /// - Any other status throws the ``NetworkError`` that ``send(_:)`` would, with the server's
    ///   metadata read from the whole error body.
    ///
    /// **Timeouts.** The request's timeout (``Endpoint/timeout``, else the client's) covers the
    /// time until the head arrives. After that an idle limit applies (the endpoint's
    /// ``Endpoint/idleTimeout``, else its ``Endpoint/timeout``, else the client's idle timeout,
    /// else the client's timeout; `.infinity` for none): the body ends
    /// with ``NetworkError/timedOut`` (and the transfer is cancelled) when no piece arrives for a
    /// whole period (noticed within two), so a stream that keeps sending may last as long as it
    /// likes. The check runs on ``Configuration/scheduler``, so a ``VirtualClock`` drives it
    /// in tests. Retries apply only until the head.
    ///
    /// **Cancellation.** Cancelling the task that awaits `stream` cancels the request; once the
    /// body streams, stopping the loop, cancelling the reading task or
    /// ``StreamedResponse/cancel()`` cancels the transfer.
    ///
    /// With a transport that does not stream (a stub without ``StubResponse/streaming(_:every:status:headers:delay:)``,
    /// or a transport of your own that ignores ``TransportContext/bodyStream``), the whole body is
    /// read first and arrives as one piece.
    ///
    /// - Parameter endpoint: What to send; its `Response` type is not used.
    /// - Returns: The response head, with its body to iterate.
    /// - Throws: A ``NetworkError`` for a status the endpoint does not accept, a failure before
    ///   the head arrived, a timeout, or ``NetworkError/cancelled``.
    public func stream<E: Endpoint>(_ endpoint: E) async throws -> StreamedResponse {
        try await stream(endpoint, headers: [:])
    }

    /// ``stream(_:)`` with `headers` set on the request as if `endpoint` declared them (over
    /// the client's default headers); plugins and stubs still see `endpoint` itself.
    /// `control`, for an event source's connection: the request is handed to the loop's control,
    /// and neither it nor its body is listed for `cancelAll` on its own (the control lists the
    /// whole loop, which then counts once).
    func stream<E: Endpoint>(
        _ endpoint: E, headers: [String: String], for control: EventSourceControl? = nil
    ) async throws -> StreamedResponse {
        let registry = control == nil ? core.liveRequests : nil
        let request = WeakRequest()
        return try await awaiting(on: nil) { handler throws(NetworkError) in
            let execution = try buildExecution(
                endpoint, adding: headers, resolver: nil, handler: handler, needsDecoding: false, streamsBody: true,
                listed: control == nil
            ) { response in
                if let handle = response.streamedBody {
                    // Listed before the request settles, with it: a `cancelAll` meanwhile ends
                    // both and counts one.
                    if let registry { handle.reader.list(in: registry, endpoint: endpoint, request: request) }
                    return .success(StreamedResponse(head: response, reader: handle.reader))
                }
                return .success(StreamedResponse(complete: response))
            }
            request.set(execution)
            // Cancelled before it starts when `cancelAll` reached the loop first (it settles at once).
            if let control, !control.connectionBuilt(execution) { execution.cancel() }
            return execution
        }
    }
}
