import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Courier
import Promises

/// A test-only transport that records every request and answers from a closure.
///
/// - `.immediate`: answers inside `send` (the hardest case for the pipeline's bookkeeping).
/// - `.async`: answers from a global queue.
/// - `.manual`: never answers by itself; the test calls ``complete(_:with:)``.
// @unchecked: every mutable property is read and written only while holding `lock`.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    enum Mode: Sendable {
        case immediate(@Sendable (URLRequest) -> Result<HTTPResponse, any Error>)
        case async(@Sendable (URLRequest) -> Result<HTTPResponse, any Error>)
        case manual
    }

    private let mode: Mode
    /// Guards the properties below; signalled on every send, for ``waitForSends(_:timeout:)``.
    private let lock = NSCondition()
    private var _requests: [URLRequest] = []
    private var _contexts: [TransportContext] = []
    private var _completions: [@Sendable (Result<HTTPResponse, any Error>) -> Void] = []
    private var _cancelledIndices: [Int] = []
    private let onSend: (@Sendable (Int) -> Void)?
    /// Whether completions are kept for ``complete(_:with:)``; a kept completion holds its
    /// request (and so the client's core, and this transport) alive.
    private let keepsCompletions: Bool

    init(_ mode: Mode, keepsCompletions: Bool = true, onSend: (@Sendable (Int) -> Void)? = nil) {
        self.mode = mode
        self.keepsCompletions = keepsCompletions
        self.onSend = onSend
    }

    /// Answers every request at once with `status` and `body`.
    static func answering(_ status: Int = 200, body: String = "", headers: [String: String] = [:]) -> RecordingTransport {
        RecordingTransport(.immediate { request in
            .success(HTTPResponse(statusCode: status, headers: headers, body: Data(body.utf8), url: request.url))
        })
    }

    var requests: [URLRequest] { lock.withLock { _requests } }
    var contexts: [TransportContext] { lock.withLock { _contexts } }
    var sendCount: Int { lock.withLock { _requests.count } }
    var cancelledIndices: [Int] { lock.withLock { _cancelledIndices } }

    /// Blocks until at least `count` requests have reached the transport, or `timeout` passes.
    ///
    /// - Returns: `true` when `count` requests arrived in time.
    func waitForSends(_ count: Int, timeout: TimeInterval = 5) -> Bool {
        lock.waitUntil({ _requests.count >= count }, timeout: timeout)
    }

    /// The async form of ``waitForSends(_:timeout:)``: the blocking wait runs on a global queue,
    /// so no thread of Swift's cooperative pool is held.
    func sends(_ count: Int, timeout: TimeInterval = 5) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.waitForSends(count, timeout: timeout)) }
        }
    }

    /// Completes the `index`-th request (0-based) with `result`.
    func complete(_ index: Int, with result: Result<HTTPResponse, any Error>) {
        let completion = lock.withLock { index < _completions.count ? _completions[index] : nil }
        completion?(result)
    }

    func send(
        _ request: URLRequest, context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        let index = lock.withLock { () -> Int in
            _requests.append(request)
            _contexts.append(context)
            _completions.append(keepsCompletions ? completion : { @Sendable _ in })
            lock.broadcast()
            return _requests.count - 1
        }
        onSend?(index)
        switch mode {
        case .immediate(let answer):
            completion(answer(request))
        case .async(let answer):
            DispatchQueue.global().async { completion(answer(request)) }
        case .manual:
            break
        }
        return Task { [self] in lock.withLock { _cancelledIndices.append(index) } }
    }

    struct Task: TransportTask {
        let onCancel: @Sendable () -> Void
        func cancel() { onCancel() }
    }
}

/// A scheduler whose clock only moves when the test says so.
// @unchecked: every mutable property is read and written only while holding `lock`.
final class ManualScheduler: RequestScheduler, @unchecked Sendable {
    private struct Entry {
        let id: Int
        let due: TimeInterval
        let work: @Sendable () -> Void
    }

    /// Guards the properties below; signalled on every `schedule`, for ``waitForScheduled(_:timeout:)``.
    private let lock = NSCondition()
    private var now: TimeInterval = 0
    private var nextID = 0
    private var entries: [Entry] = []
    private var _requestedDelays: [TimeInterval] = []

    /// Every delay ever asked for, in order.
    var requestedDelays: [TimeInterval] { lock.withLock { _requestedDelays } }
    /// How many works wait to run.
    var pendingCount: Int { lock.withLock { entries.count } }

    func schedule(after delay: TimeInterval, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let id = lock.withLock { () -> Int in
            nextID += 1
            _requestedDelays.append(delay)
            entries.append(Entry(id: nextID, due: now + max(0, delay), work: work))
            lock.broadcast()
            return nextID
        }
        return ScheduledWork { [self] in lock.withLock { entries.removeAll { $0.id == id } } }
    }

    /// Blocks until at least `count` delays have been asked for in all, or `timeout` passes.
    ///
    /// - Returns: `true` when `count` delays were asked for in time.
    func waitForScheduled(_ count: Int, timeout: TimeInterval = 5) -> Bool {
        lock.waitUntil({ _requestedDelays.count >= count }, timeout: timeout)
    }

    /// Moves the clock forward and runs, in due order, every work that becomes due.
    func advance(by seconds: TimeInterval) {
        let target = lock.withLock { now + seconds }
        while true {
            let next = lock.withLock { () -> Entry? in
                guard let index = entries.indices.filter({ entries[$0].due <= target })
                    .min(by: { entries[$0].due < entries[$1].due }) else { return nil }
                now = max(now, entries[index].due)
                return entries.remove(at: index)
            }
            guard let next else { break }
            next.work()
        }
        lock.withLock { now = target }
    }
}

/// A plugin that records what it sees.
// @unchecked: every mutable property is read and written only while holding `lock`.
final class RecordingPlugin: RequestPlugin, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [String] = []
    private var _results: [Result<HTTPResponse, NetworkError>] = []
    let header: (name: String, value: String)?

    init(addingHeader header: (name: String, value: String)? = nil) {
        self.header = header
    }

    var events: [String] { lock.withLock { _events } }
    var results: [Result<HTTPResponse, NetworkError>] { lock.withLock { _results } }

    func prepare(_ request: URLRequest, for endpoint: any Endpoint) -> URLRequest {
        lock.withLock { _events.append("prepare \(endpoint.path)") }
        guard let header else { return request }
        var request = request
        request.setValue(header.value, forHTTPHeaderField: header.name)
        return request
    }

    func willSend(_ request: URLRequest) {
        lock.withLock { _events.append("willSend") }
    }

    func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {
        lock.withLock {
            _results.append(result)
            switch result {
            case .success(let response): _events.append("didReceive \(response.statusCode)")
            case .failure(let error): _events.append("didReceive \(error.shortName)")
            }
        }
    }
}

extension NetworkError {
    /// The case name, for compact assertions.
    var shortName: String {
        switch self {
        case .clientError(let status, _, _): "clientError(\(status))"
        case .serverError(let status, _, _): "serverError(\(status))"
        case .unexpectedStatus(let status, _): "unexpectedStatus(\(status))"
        case .decodingFailed: "decodingFailed"
        case .transport: "transport"
        case .timedOut: "timedOut"
        case .cancelled: "cancelled"
        case .authenticationFailed: "authenticationFailed"
        case .invalidRequest: "invalidRequest"
        }
    }
}

/// The outcome of a promise as a `NetworkError` case name or "ok".
func outcomeName<T>(_ result: Result<T, any Error>?) -> String {
    switch result {
    case nil: return "pending"
    case .success?: return "ok"
    case .failure(let error as NetworkError)?: return error.shortName
    case .failure(let error)?: return "other: \(error)"
    }
}

/// A value shared between threads in tests.
// @unchecked: `value` is read and written only while holding `lock`.
final class SharedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.withLock { body(&value) }
    }
}

extension RecordingTransport {
    /// Answers successive requests with successive statuses; the last one repeats.
    static func statuses(_ statuses: [Int], body: String = "{}", keepsCompletions: Bool = true) -> RecordingTransport {
        let remaining = SharedValue(statuses)
        let mode = Mode.immediate { request in
            let status = remaining.withLock { list in list.count > 1 ? list.removeFirst() : (list.first ?? 200) }
            return .success(HTTPResponse(statusCode: status, body: Data(body.utf8), url: request.url))
        }
        return RecordingTransport(mode, keepsCompletions: keepsCompletions)
    }
}

/// A client of `https://api.example.com` over `transport`, its configuration adjusted by `configure`.
func exampleClient(
    _ transport: any HTTPTransport, _ configure: (inout NetworkClient.Configuration) -> Void = { _ in }
) -> NetworkClient {
    guard let base = URL(string: "https://api.example.com") else { preconditionFailure("a valid URL literal") }
    var configuration = NetworkClient.Configuration(baseURL: base)
    configure(&configuration)
    return NetworkClient(configuration: configuration, transport: transport)
}
