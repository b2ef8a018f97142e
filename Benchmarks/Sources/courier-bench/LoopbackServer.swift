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
    ///
    /// - Parameter onSilentRequest: Called (on the server's loop) when a request for `/silent`
    ///   has arrived; that request is never answered.
    init(threads: Int = 1, onSilentRequest: @escaping @Sendable () -> Void = {}) throws {
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(FixedResponseHandler(onSilentRequest: onSilentRequest))
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

/// Answers each request, once its end has arrived, with the fixed JSON body. A few paths used
/// only by `check-adapter` answer differently (the benchmarks never request them):
/// - `/big`: a 4 096-byte body;
/// - `/redirect`: `302 Found` to `/users/42`;
/// - `/headers`: two `X-Multi` fields (`a`, `b`) and an empty body;
/// - `/echo`: the request body back, with `X-Method` (the request's method) and `X-Seen`
///   (the request's `X-Test` header);
/// - `/silent`: no answer at all (the connection stays open until the client gives up).
private final class FixedResponseHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let onSilentRequest: @Sendable () -> Void
    private var keepAlive = true
    private var buffer: ByteBuffer?
    private var requestHead: HTTPRequestHead?
    private var requestBody: ByteBuffer?

    init(onSilentRequest: @escaping @Sendable () -> Void) {
        self.onSilentRequest = onSilentRequest
    }

    func handlerAdded(context: ChannelHandlerContext) {
        buffer = context.channel.allocator.buffer(bytes: BenchPayload.body)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            requestHead = head
            requestBody = nil
        case .body(var part):
            if requestBody == nil {
                requestBody = part
            } else {
                requestBody?.writeBuffer(&part)
            }
        case .end:
            let uri = requestHead?.uri ?? "/"
            if uri == "/users/42" {
                respond(context, status: .ok, headers: [("Content-Type", "application/json")],
                        body: buffer ?? context.channel.allocator.buffer(bytes: BenchPayload.body))
            } else {
                respondToProbe(context, uri: uri)
            }
        }
    }

    private func respondToProbe(_ context: ChannelHandlerContext, uri: String) {
        let allocator = context.channel.allocator
        switch uri {
        case "/big":
            respond(context, status: .ok, headers: [], body: allocator.buffer(repeating: UInt8(ascii: "x"), count: 4_096))
        case "/redirect":
            respond(context, status: .found, headers: [("Location", "/users/42")], body: allocator.buffer(capacity: 0))
        case "/headers":
            respond(context, status: .ok, headers: [("X-Multi", "a"), ("X-Multi", "b")], body: allocator.buffer(capacity: 0))
        case "/echo":
            let head = requestHead
            respond(context, status: .ok, headers: [
                ("X-Method", head?.method.rawValue ?? ""),
                ("X-Seen", head?.headers.first(name: "X-Test") ?? ""),
            ], body: requestBody ?? allocator.buffer(capacity: 0))
        case "/chunks", "/chunks-hold":
            // A body in separate flushed parts, with no length (chunked); "-hold" sends the first
            // part and never ends the body (the connection closes when the client lets go).
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            let parts = uri == "/chunks" ? ["one", "two", "three"] : ["first"]
            for part in parts {
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(allocator.buffer(string: part)))), promise: nil)
            }
            if uri == "/chunks" { context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil) }
        case "/silent":
            onSilentRequest()
        default:
            respond(context, status: .ok, headers: [("Content-Type", "application/json")],
                    body: buffer ?? allocator.buffer(bytes: BenchPayload.body))
        }
    }

    private func respond(
        _ context: ChannelHandlerContext, status: HTTPResponseStatus, headers fields: [(String, String)],
        body: ByteBuffer
    ) {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(name: name, value: value) }
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if !keepAlive { context.close(promise: nil) }
    }
}
