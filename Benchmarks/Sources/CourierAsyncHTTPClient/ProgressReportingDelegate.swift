import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOHTTP1

/// The AsyncHTTPClient delegate of a request whose caller listens for progress (a
/// `ProgressHandler`, or an `idleTimeout` watching for activity): it collects the body up to the
/// size limit, as `ResponseAccumulator` does, and reports through `context.progress` once the
/// request body is sent, when the head arrives and with each body part.
///
/// Requests nobody listens to keep `ResponseAccumulator`, so they pay for none of this.
// @unchecked: AsyncHTTPClient calls a delegate's methods one at a time on the request's event
// loop, and the task's future (which returns `didFinishRequest`'s response) completes on that loop
// after the last of them; the mutable state is only touched there.
final class ProgressReportingDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = HTTPResponse

    let url: URL?
    let limit: Int
    /// The request body's size: every report says it was all sent (AsyncHTTPClient sends the
    /// body before the head can arrive).
    let sent: Int64
    let progress: @Sendable (TransferProgress) -> Void
    private var head: HTTPResponseHead?
    private var body = Data()
    private var expected: Int64?

    init(url: URL?, limit: Int, sent: Int64, progress: @escaping @Sendable (TransferProgress) -> Void) {
        self.url = url
        self.limit = limit
        self.sent = sent
        self.progress = progress
    }

    func didSendRequest(task: HTTPClient.Task<HTTPResponse>) {
        report()
    }

    func didReceiveHead(task: HTTPClient.Task<HTTPResponse>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        expected = head.headers.first(name: "Content-Length").flatMap { Int64($0) }
        report()
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<HTTPResponse>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard body.count + buffer.readableBytes <= limit else {
            return task.eventLoop.makeFailedFuture(StreamingResponseDelegate.TooLarge())
        }
        body.append(contentsOf: buffer.readableBytesView)
        report()
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<HTTPResponse>) throws -> HTTPResponse {
        guard let head else { throw URLError(.badServerResponse) }
        return AsyncHTTPClientTransport.makeResponse(status: head.status, headers: head.headers, body: body, url: url)
    }

    private func report() {
        progress(TransferProgress(
            bytesSent: sent, totalBytesToSend: sent, bytesReceived: Int64(body.count), totalBytesToReceive: expected))
    }
}

/// A `TransportTask` over the AsyncHTTPClient task of a request that reports progress.
struct ProgressReportingTask: TransportTask {
    let task: HTTPClient.Task<HTTPResponse>

    func cancel() {
        task.cancel()
    }
}
