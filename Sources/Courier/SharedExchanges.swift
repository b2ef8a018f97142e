import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Identical attempts in flight at once, sent to the transport once
/// (``NetworkClient/Configuration/sharesIdenticalRequests``).
///
/// Each attempt that may be shared (see ``ExchangeKey``) joins the exchange in flight for its
/// key, or starts one. The exchange hands the transport's answer to every attempt that joined
/// it and forwards the transport's progress reports to each. An attempt that is cancelled (by
/// its caller, its deadline or its idle timeout) leaves; the transport's task is cancelled only
/// when the last one leaves. An exchange that answered, or that anyone left, is out of the
/// table: a later attempt, such as the retry of one that timed out on a stalled exchange,
/// starts afresh instead of joining it.
final class SharedExchanges: Sendable {
    private let table = Protected<[ExchangeKey: SharedExchange]>([:])

    /// Sends `request` through `transport`, or joins an identical request in flight.
    func send(
        _ request: URLRequest, context: TransportContext, through transport: any HTTPTransport,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        guard let key = ExchangeKey(request, context: context) else {
            return transport.send(request, context: context, completion: completion)
        }
        let member = SharedExchange.Member(completion: completion, progress: context.progress)
        let (exchange, id, starts) = table.withLock { table -> (SharedExchange, Int, Bool) in
            if let running = table[key], let id = running.join(member) { return (running, id, false) }
            let exchange = SharedExchange()
            table[key] = exchange
            return (exchange, exchange.join(member) ?? 0, true)
        }
        if starts {
            var shared = context
            shared.progress = { [weak exchange] progress in exchange?.report(progress) }
            let task = transport.send(request, context: shared) { [self] result in
                forget(key, exchange)
                exchange.finish(result, limit: context.maximumResponseSize)
            }
            exchange.started(task)
        }
        return SharedExchange.Ticket { [self] in
            if exchange.leave(id) { forget(key, exchange) }
        }
    }

    /// Whether an exchange for the same key as `request` is in flight (for tests).
    func isInFlight(_ request: URLRequest, context: TransportContext) -> Bool {
        guard let key = ExchangeKey(request, context: context) else { return false }
        return table.withLock { $0[key] != nil }
    }

    /// Takes `exchange` out of the table, unless another exchange took its key since.
    private func forget(_ key: ExchangeKey, _ exchange: SharedExchange) {
        table.withLock { table in
            if table[key] === exchange { table[key] = nil }
        }
    }
}

/// What makes two attempts identical: everything the transport is given that shapes the answer.
/// `nil` for an attempt that is never shared: a method other than `GET` or `HEAD` (as sent:
/// a plugin may have changed it), a streamed or file body, a download, or a response streamed
/// to the caller.
struct ExchangeKey: Hashable, Sendable {
    let method: String
    let url: URL
    let headers: [String: String]
    let body: Data?
    let cachePolicy: UInt
    let timeout: TimeInterval
    /// Whether the transport may add the session's cookies (`URLSessionTransport` does only then).
    let handlesCookies: Bool
    /// Which networks the request may use, and how (a ``Endpoint/requestModifier`` or a plugin
    /// may set them): a request kept off cellular must not share an exchange that uses it.
    let networkAccess: NetworkAccess
    /// A request that reads its `3xx` must not share the exchange of one that follows it.
    let redirectPolicy: URLSessionTransport.RedirectPolicy?
    let maximumResponseSize: Int
    /// A stub picks its route by the endpoint's path, and answers with the endpoint's sample when
    /// given no body of its own.
    let endpointPath: String
    let sampleData: Data

    init?(_ request: URLRequest, context: TransportContext) {
        let method = (request.httpMethod ?? "GET").uppercased()
        guard method == "GET" || method == "HEAD", let url = request.url,
              request.httpBodyStream == nil, context.uploadFile == nil, !context.writesBodyToFile,
              context.bodyStream == nil, context.partialDownload == nil else { return nil }
        self.method = method
        self.url = url
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers[name.lowercased()] = value }
        self.headers = headers
        body = request.httpBody
        cachePolicy = request.cachePolicy.rawValue
        timeout = request.timeoutInterval
        handlesCookies = request.httpShouldHandleCookies
        networkAccess = NetworkAccess(request)
        redirectPolicy = context.redirectPolicy
        maximumResponseSize = context.maximumResponseSize
        endpointPath = context.endpointPath
        sampleData = context.sampleData
    }
}

/// One exchange with the transport and the attempts waiting for it.
final class SharedExchange: Sendable {
    struct Member: Sendable {
        let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
        let progress: (@Sendable (TransferProgress) -> Void)?
    }

    private struct State: Sendable {
        var members: [Int: Member] = [:]
        var nextID = 0
        var task: (any TransportTask)?
        /// The transport answered, or every member left: nobody is added or completed any more.
        var isClosed = false
        var isAbandoned = false
        /// A member left: the others still wait, but nobody joins any more.
        var isJoinable = true
        /// Some member asked for progress reports; until one does, a report costs one lock.
        var hasListeners = false
    }

    private let state = Protected(State())

    /// Adds `member`; its number, or `nil` when the exchange is closed.
    func join(_ member: Member) -> Int? {
        state.withLock { state in
            guard !state.isClosed, state.isJoinable else { return nil }
            defer { state.nextID += 1 }
            state.members[state.nextID] = member
            if member.progress != nil { state.hasListeners = true }
            return state.nextID
        }
    }

    /// Keeps the transport's task, or cancels it when every member left before it was known.
    func started(_ task: any TransportTask) {
        let cancel = state.withLock { state -> Bool in
            if state.isAbandoned { return true }
            if !state.isClosed { state.task = task }
            return false
        }
        if cancel { task.cancel() }
    }

    /// Removes member `id`; `true` when it was still waiting, and the exchange must then leave
    /// the table: a member that gave up on it (a deadline, an idle timeout) must not find it
    /// again on its retry. When it was the last one, the exchange closes and its task is
    /// cancelled.
    func leave(_ id: Int) -> Bool {
        let (left, task) = state.withLock { state -> (Bool, (any TransportTask)?) in
            guard !state.isClosed, state.members.removeValue(forKey: id) != nil else { return (false, nil) }
            state.isJoinable = false
            guard state.members.isEmpty else { return (true, nil) }
            state.isClosed = true
            state.isAbandoned = true
            defer { state.task = nil }
            return (true, state.task)
        }
        task?.cancel()
        return left
    }

    /// Hands the transport's answer to every member still waiting: the first here, the others
    /// on a global queue each, so that their evaluation and decoding neither queue up behind one
    /// another on the transport's thread nor run inside another caller's `send`. With more than
    /// one, a body the transport wrote to a file is read into memory first, so that each gets it.
    func finish(_ result: Result<HTTPResponse, any Error>, limit: Int) {
        let members = state.withLock { state -> [Member] in
            guard !state.isClosed else { return [] }
            state.isClosed = true
            state.task = nil
            defer { state.members = [:] }
            return state.members.sorted { $0.key < $1.key }.map(\.value)
        }
        guard !members.isEmpty else { return DownloadStorage.discard(result) }
        var answer = result
        if members.count > 1, case .success(let response) = result {
            answer = DownloadStorage.readIntoMemory(response, limit: limit, failWhenLarger: true)
        }
        let delivered = answer
        for member in members.dropFirst() { DispatchQueue.global().async { member.completion(delivered) } }
        members[0].completion(answer)
    }

    /// Forwards a progress report to every member that listens.
    func report(_ progress: TransferProgress) {
        let listeners = state.withLock { state -> [@Sendable (TransferProgress) -> Void] in
            guard state.hasListeners else { return [] }
            return state.members.values.compactMap(\.progress)
        }
        for listener in listeners { listener(progress) }
    }

    /// One member's handle: cancelling it makes the member leave.
    struct Ticket: TransportTask {
        let leave: @Sendable () -> Void

        func cancel() { leave() }
    }
}

/// The fields of a `URLRequest` that choose the network it goes over, for ``ExchangeKey``.
struct NetworkAccess: Hashable, Sendable {
    let cellular: Bool
    let serviceType: UInt
    #if !canImport(FoundationNetworking)
    let expensive: Bool
    let constrained: Bool
    #endif

    init(_ request: URLRequest) {
        cellular = request.allowsCellularAccess
        serviceType = request.networkServiceType.rawValue
        #if !canImport(FoundationNetworking)
        expensive = request.allowsExpensiveNetworkAccess
        constrained = request.allowsConstrainedNetworkAccess
        #endif
    }
}
