import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport of a stubbed client: answers each request from a ``StubbingBuilder``'s plan,
/// after the stub's delay, on the client's scheduler (so a delay races the request's deadline
/// exactly as a slow server would).
///
/// `@unchecked Sendable`: `plan` is an immutable value; the sequence counters are only touched
/// under `lock`.
final class StubTransport: HTTPTransport, @unchecked Sendable {
    private let plan: StubbingBuilder
    private let lock = NSLock()
    private var routeCounters: [Int: Int] = [:]

    init(plan: StubbingBuilder) {
        self.plan = plan
    }

    /// Where requests answered with ``StubResponse/passthrough`` go.
    var passthroughTransport: (any HTTPTransport)? { plan.passthroughTransport }

    /// A report of everything `request` sends, and `received` bytes of `total` received.
    static func progress(of request: URLRequest, received: Int64, of total: Int64) -> TransferProgress {
        // A file body (a `.file`, a staged form) streams: its size is the `Content-Length` each
        // attempt sets from the file.
        let streamed = request.httpBodyStream == nil
            ? nil : request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
        let sent = streamed ?? Int64(request.httpBody?.count ?? 0)
        return TransferProgress(
            bytesSent: sent, totalBytesToSend: request.httpBodyStream == nil || streamed != nil ? sent : nil,
            bytesReceived: received, totalBytesToReceive: total)
    }

    func send(
        _ request: URLRequest, context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        plan.recorder?.record(request)
        let stub = answer(for: request, context: context)
        if stub.passesThrough { return forward(request, after: stub.delay, context: context, completion: completion) }
        let outcome: Result<HTTPResponse, any Error>
        if let failure = stub.failure {
            outcome = .failure(failure)
        } else {
            let body = stub.usesSampleData ? context.sampleData : stub.body
            let streams = !stub.pieces.isEmpty && context.bodyStream != nil   // no limit on a streamed whole
            if body.count > context.maximumResponseSize && !streams {
                // The same typed failure the network transport gives an oversized body.
                outcome = .failure(NetworkError.responseTooLarge(limit: context.maximumResponseSize))
            } else {
                outcome = .success(HTTPResponse(statusCode: stub.status, headers: stub.headers, body: body, url: request.url))
            }
        }
        if !stub.pieces.isEmpty, case .success(let head) = outcome {
            return StubPieceFeeder.send(stub, head: head, for: request, context: context, completion: completion)
        }
        let progress = context.progress
        let work = context.scheduler.schedule(after: stub.delay) {
            // One report when the stub answers: everything sent, everything received.
            if let progress, case .success(let response) = outcome {
                let received = Int64(response.body.count)
                progress(Self.progress(of: request, received: received, of: received))
            }
            completion(outcome)
        }
        return StubTask { work.cancel() }
    }

    /// Picks the answer by the precedence documented on ``StubbingBuilder``.
    private func answer(for request: URLRequest, context: TransportContext) -> StubResponse {
        let path = StubRoute.segments(of: context.endpointPath.split(
            separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "")
        let query = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
        let candidates = plan.routes.filter { $0.matches(method: context.method, path: path, query: query) }
        if let route = candidates.max(by: { ($0.specificity, $0.order) < ($1.specificity, $1.order) }) {
            return respond(from: route.source, counter: route.order, request: request)
        }
        if let responder = plan.responder { return responder(request) }
        if !plan.sequenceResponses.isEmpty {
            return respond(from: .sequence(plan.sequenceResponses), counter: -1, request: request)
        }
        if let seeded = seededResponse(for: request) { return seeded }
        if let folder = plan.fixtureFolder {
            switch StubFixtures.load(from: folder, method: context.method, path: path) {
            case .success(let body): return StubResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
            case .failure(let error) where !plan.hasExplicitDefault && plan.passthroughTransport == nil:
                return .failure(error)
            case .failure: break
            }
        }
        return plan.fallbackResponse
    }

    private func respond(from source: StubSource, counter key: Int, request: URLRequest) -> StubResponse {
        switch source {
        case .fixed(let response):
            return response
        case .responder(let responder):
            return responder(request)
        case .sequence(let responses):
            lock.lock()
            let index = routeCounters[key, default: 0]
            routeCounters[key] = index + 1
            lock.unlock()
            return responses.isEmpty ? plan.fallbackResponse : responses[min(index, responses.count - 1)]
        }
    }

    private func seededResponse(for request: URLRequest) -> StubResponse? {
        guard !plan.seeds.isEmpty, let url = request.url else { return nil }
        var keys = [url.absoluteString]
        if var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.query = nil
            if let bare = components.string { keys.append(bare) }
        }
        keys += keys.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 + "/" }
        guard let json = keys.lazy.compactMap({ self.plan.seeds[$0] }).first else { return nil }
        return .json(json)
    }
}

/// Cancels a pending stub answer.
struct StubTask: TransportTask {
    let onCancel: @Sendable () -> Void

    func cancel() {
        onCancel()
    }
}

/// Reads response fixtures from a folder.
enum StubFixtures {
    static func load(from folder: URL, method: HTTPMethod, path: [String]) -> Result<Data, StubError> {
        let relative = path.isEmpty ? "index" : path.joined(separator: "/")
        // Only files inside the folder. The client already refuses an endpoint path with a ".."
        // segment; this keeps the loader safe on its own.
        if path.contains(where: { $0 == "." || $0 == ".." }) {
            return .failure(.missingFixture(request: "\(method.rawValue) /\(relative)", searched: []))
        }
        let candidates = [
            folder.appendingPathComponent(method.rawValue.lowercased()).appendingPathComponent(relative + ".json"),
            folder.appendingPathComponent(relative + ".json"),
        ]
        for file in candidates where FileManager.default.fileExists(atPath: file.path) {
            guard let data = try? Data(contentsOf: file) else { return .failure(.unreadableFixture(path: file.path)) }
            return .success(data)
        }
        return .failure(.missingFixture(request: "\(method.rawValue) /\(relative)", searched: candidates.map(\.path)))
    }
}
