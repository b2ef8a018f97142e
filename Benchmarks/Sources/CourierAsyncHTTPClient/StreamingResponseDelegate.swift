import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1

/// The AsyncHTTPClient delegate of a `NetworkClient.stream(_:)` request: the worked example of
/// a transport that streams (see `ResponseBodyStream`).
///
/// When the head arrives it asks the client's stream whether to take it. If so, the completion
/// gets the head at once and each body part goes to the stream as it arrives; otherwise (an
/// error status, say) the body is collected, up to the size limit, and delivered whole when the
/// request ends (see `AsyncHTTPClientTransport.sendStreaming`).
// @unchecked: AsyncHTTPClient calls a delegate's methods one at a time on the request's event
// loop, and the task's future (which reads `head`, `body`, `streaming`) completes on that loop
// after the last of them; the mutable state is only touched there.
final class StreamingResponseDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void

    /// A collected (not streamed) body passed the limit.
    struct TooLarge: Error {}

    let stream: ResponseBodyStream
    let url: URL?
    let limit: Int
    let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
    /// The head, when its body is collected rather than streamed.
    private(set) var head: HTTPResponse?
    private(set) var body = Data()
    /// The head went to the client and the body goes to `stream`.
    private(set) var streaming = false

    init(stream: ResponseBodyStream, url: URL?, limit: Int,
         completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) {
        self.stream = stream
        self.url = url
        self.limit = limit
        self.completion = completion
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let response = AsyncHTTPClientTransport.makeResponse(status: head.status, headers: head.headers, body: Data(), url: url)
        if stream.shouldStream(response) {
            streaming = true
            completion(.success(response))
        } else {
            self.head = response
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        if streaming {
            stream.yield(Data(buffer.readableBytesView))
        } else if body.count + buffer.readableBytes > limit {
            return task.eventLoop.makeFailedFuture(TooLarge())
        } else {
            body.append(contentsOf: buffer.readableBytesView)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    /// How the request ended, once its future completed: the stream hears of it when the head
    /// went out already, the completion otherwise (exactly once either way).
    func finish(_ result: Result<Void, any Error>) {
        switch (result, streaming) {
        case (.success, true):
            stream.finish()
        case (.failure(let error), true):
            stream.finish(throwing: AsyncHTTPClientTransport.translate(error, limit: limit))
        case (.success, false):
            guard var response = head else { return completion(.failure(URLError(.badServerResponse))) }
            response.body = body
            completion(.success(response))
        case (.failure(let error), false):
            completion(.failure(AsyncHTTPClientTransport.translate(error, limit: limit)))
        }
    }
}
