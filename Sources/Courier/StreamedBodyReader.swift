import Foundation

/// Ties a stream to whoever reads it: when the last holder of a ``StreamedResponse``, or an
/// iterator over its body, lets go before the body ended, the transfer is cancelled (leaving a
/// `for try await` loop early ends it).
final class StreamedBodyReader: Sendable {
    let stream: ResponseBodyStream
    /// An iterator's reader keeps the response's alive: the loop may outlive the response value
    /// (`for try await piece in try await client.stream(e)`).
    private let owner: StreamedBodyReader?
    /// The body's entry in its client's list for ``NetworkClient/cancelAll(where:)``, kept as
    /// long as the body can be read.
    private let listing = Protected<LiveWork?>(nil)

    init(_ stream: ResponseBodyStream) {
        self.stream = stream
        owner = nil
    }

    /// A reader for an iterator over `owner`'s body.
    init(iterating owner: StreamedBodyReader) {
        stream = owner.stream
        self.owner = owner
    }

    /// Lists the body in `registry` under `endpoint`, so that ``NetworkClient/cancelAll(where:)``
    /// stops it as long as it can be read.
    /// `request` is the request that delivers the body, listed too until it settles: stopping
    /// the body cancels it if it has not settled, so that the two count once.
    func list(in registry: LiveRequests, endpoint: any Endpoint, request: WeakRequest) {
        let stream = stream
        let work = LiveWork(endpoint: endpoint, registry: registry) {
            let cancelledRequest = request.request?.cancelIfPending() ?? false
            let stoppedBody = stream.stop()
            return cancelledRequest || stoppedBody
        }
        listing.withLock { $0 = work }
    }

    /// The next piece, for this reader (see ``ResponseBodyStream/next(for:)``).
    func next() async throws(NetworkError) -> Data? {
        try await stream.next(for: ObjectIdentifier(self))
    }

    /// The response's own reader stops the transfer when it goes (its iterators have gone
    /// first: they keep it); an iterator's only when it was the one reading, so that a second
    /// loop that was refused does not stop the first.
    deinit {
        if owner == nil {
            stream.stop()
        } else {
            stream.readerLeft(ObjectIdentifier(self))
        }
    }
}

/// How a streamed attempt's reader travels with its response head from the transport to the
/// decoding step. Not part of the response's value: two responses compare equal whatever it holds.
struct StreamedBodyHandle: Sendable, Equatable {
    let reader: StreamedBodyReader

    static func == (_: StreamedBodyHandle, _: StreamedBodyHandle) -> Bool { true }
}

extension ResponseBodyStream {
    /// `result` with this stream's reader attached to the response head when a transport
    /// streams the body here; unchanged otherwise.
    func attachReader(to result: Result<HTTPResponse, any Error>) -> Result<HTTPResponse, any Error> {
        guard case .success(var response) = result, isClaimed else { return result }
        response.streamedBody = StreamedBodyHandle(reader: StreamedBodyReader(self))
        return .success(response)
    }
}
