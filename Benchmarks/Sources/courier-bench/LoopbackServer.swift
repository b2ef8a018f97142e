import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// The JSON document every benchmark request receives, and the type it decodes into.
enum BenchPayload {
    /// A small user record (about 150 bytes), the same body for every request.
    static let body = Data(#"""
        {"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true,"score":97.5,"roles":["admin","author"],"createdAt":"2026-01-01T00:00:00Z"}
        """#.utf8)

    /// The decoded form of ``body``.
    struct User: Decodable, Sendable, Equatable {
        let id: Int
        let name: String
        let email: String
        let active: Bool
        let score: Double
        let roles: [String]
        let createdAt: String
    }

    /// Stops the run when a decoded body is not the expected record.
    static func verify(_ user: User) {
        check(user.id == 42 && user.roles.count == 2, "decoded body mismatch: \(user)")
    }
}

/// A swift-nio HTTP/1.1 server on 127.0.0.1 that answers every request with ``BenchPayload/body``
/// (`200`, `Content-Type: application/json`, keep-alive). It runs on its own event-loop thread
/// and is much faster than any client measured here, so the client is what the numbers measure.
final class LoopbackServer {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// The port the kernel chose.
    let port: Int

    /// Binds 127.0.0.1 on a free port.
    init(threads: Int = 1) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(FixedResponseHandler())
                }
            }
        do {
            channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        port = channel.localAddress?.port ?? 0
    }

    /// `http://127.0.0.1:PORT/`
    var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)/") ?? URL(fileURLWithPath: "/")
    }

    /// Closes the listening socket and stops the event loop.
    func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Answers each request, once its end has arrived, with the fixed JSON body.
private final class FixedResponseHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var keepAlive = true
    private var buffer: ByteBuffer?

    func handlerAdded(context: ChannelHandlerContext) {
        buffer = context.channel.allocator.buffer(bytes: BenchPayload.body)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
        case .body:
            break
        case .end:
            let body = buffer ?? context.channel.allocator.buffer(bytes: BenchPayload.body)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if !keepAlive { context.close(promise: nil) }
        }
    }
}
