import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Dispatch
import Foundation
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An endpoint for the adapter checks; every field is set by the check.
private struct Probe: Endpoint {
    typealias Response = HTTPResponse
    var path: String
    var method: HTTPMethod = .get
    var headers: [String: String] = [:]
    var body: RequestBody = .none
    var timeout: TimeInterval? = 5
    var idleTimeout: TimeInterval?
}

/// `courier-bench check-adapter`: what `AsyncHTTPClientTransport` promises in its documentation,
/// checked against the loopback server (no benchmark). Each check is bounded by a deadline of a
/// few seconds. Prints one line per check and "N passed, M failed"; returns the failure count.
func runAdapterChecks() -> Int {
    let silentArrived = DispatchSemaphore(value: 0)
    let server: LoopbackServer
    do {
        server = try LoopbackServer(onSilentRequest: { silentArrived.signal() })
    } catch {
        print("check-adapter: could not start the loopback server: \(error)")
        return 1
    }
    let http = AsyncHTTPClientTransport.makeHTTPClient()
    let transport = AsyncHTTPClientTransport(client: http)
    var configuration = NetworkClient.Configuration(baseURL: server.baseURL)
    configuration.maximumResponseSize = 1_024
    let client = NetworkClient(configuration: configuration, transport: transport)
    defer {
        try? http.syncShutdown()
        server.stop()
    }

    var passed = 0
    var failed = 0
    func expect(_ name: String, _ condition: Bool, _ detail: @autoclosure () -> String) {
        if condition {
            passed += 1
            print("PASS \(name)")
        } else {
            failed += 1
            print("FAIL \(name): \(detail())")
        }
    }
    func outcome(_ probe: Probe) -> Result<HTTPResponse, any Error> {
        Result { try client.response(for: probe).wait() }
    }

    // A decoded request through the whole client.
    let user = Result { try client.request(GetUser()).wait() }
    expect("GET decodes the JSON body", (try? user.get())?.id == 42, "\(user)")

    // Method, headers and body reach the server; the body comes back.
    let echoed = outcome(Probe(path: "echo", method: .post, headers: ["X-Test": "seen"],
                               body: .data(Data("ping".utf8), contentType: "text/plain")))
    let echo = try? echoed.get()
    expect("POST sends method, headers and body",
           echo?.header("X-Method") == "POST" && echo?.header("x-seen") == "seen" && echo?.body == Data("ping".utf8),
           "\(echoed)")

    // Repeated response fields are joined in order.
    let multi = outcome(Probe(path: "headers"))
    expect("repeated response headers are joined with \", \"", (try? multi.get())?.header("x-multi") == "a, b",
           "\(multi)")

    // A redirect is not followed: the 302 reaches the caller.
    let redirect = outcome(Probe(path: "redirect"))
    if case .failure(let error) = redirect, let networkError = error as? NetworkError {
        expect("a redirect is not followed (302 surfaces as unexpectedStatus)", networkError.statusCode == 302,
               "\(networkError)")
    } else {
        expect("a redirect is not followed (302 surfaces as unexpectedStatus)", false, "\(redirect)")
    }

    // A body over maximumResponseSize fails with the size-limit error.
    let big = outcome(Probe(path: "big"))
    if case .failure(NetworkError.invalidRequest(let reason)) = big {
        expect("a body over maximumResponseSize fails with invalidRequest", reason.contains("larger than 1024"), reason)
    } else {
        expect("a body over maximumResponseSize fails with invalidRequest", false, "\(big)")
    }

    // Transport alone: cancelling a request in flight reports URLError(.cancelled).
    let context = TransportContext(method: .get, endpointPath: "silent")
    let silentURL = server.baseURL.appendingPathComponent("silent")
    let cancelled = sendAlone(transport, URLRequest(url: silentURL, timeoutInterval: 30), context) { task in
        _ = silentArrived.wait(timeout: .now() + 5)
        task.cancel()
    }
    expect("cancel() reports URLError(.cancelled)", (cancelled?.failureCode) == .cancelled, "\(String(describing: cancelled))")

    // Transport alone: the request's timeout becomes AsyncHTTPClient's deadline -> URLError(.timedOut).
    let timedOut = sendAlone(transport, URLRequest(url: silentURL, timeoutInterval: 0.3), context) { _ in }
    expect("timeoutInterval reports URLError(.timedOut)", (timedOut?.failureCode) == .timedOut,
           "\(String(describing: timedOut))")

    // Through the client: the endpoint's timeout ends a silent request with .timedOut.
    let clientTimeout = outcome(Probe(path: "silent", timeout: 0.3))
    if case .failure(NetworkError.timedOut) = clientTimeout {
        expect("the client's deadline ends a silent request with .timedOut", true, "")
    } else {
        expect("the client's deadline ends a silent request with .timedOut", false, "\(clientTimeout)")
    }

    // Progress: a listener hears the body arrive, up to its whole size.
    let reports = ReportLog()
    let reported = Result {
        try client.request(Probe(path: "echo", method: .post, body: .data(Data("ping".utf8), contentType: "text/plain")),
                           progress: ProgressHandler { reports.add($0) }).wait()
    }
    let last = reports.last
    expect("a progress handler hears the whole body sent and received",
           (try? reported.get()) != nil && last?.bytesSent == 4 && last?.bytesReceived == 4 && last?.totalBytesToReceive == 4,
           "\(reported), last report \(String(describing: last))")

    // Idle timeout: a silent server ends the attempt after the idle period, long before the deadline.
    let started = Date()
    let idle = outcome(Probe(path: "silent", timeout: 30, idleTimeout: 0.3))
    if case .failure(NetworkError.timedOut) = idle, Date().timeIntervalSince(started) < 5 {
        expect("an idleTimeout ends a silent request with .timedOut", true, "")
    } else {
        expect("an idleTimeout ends a silent request with .timedOut", false, "\(idle) after \(Date().timeIntervalSince(started)) s")
    }
    // ... and a request that answers at once is not cut short by it.
    let quick = outcome(Probe(path: "headers", idleTimeout: 0.3))
    expect("an idleTimeout lets a request that answers complete", (try? quick.get())?.statusCode == 200, "\(quick)")

    // Streaming: stream(_:) returns at the head, and the body arrives as it is sent.
    let firstPiece = waitAsync {
        for try await piece in try await client.stream(Probe(path: "chunks-hold")) {
            return String(decoding: piece, as: UTF8.self)   // the body never ends: only streaming gets here
        }
        return "(ended)"
    }
    expect("stream(_:) delivers a piece of a body that never ends", (try? firstPiece?.get()) == "first",
           "\(String(describing: firstPiece))")
    let wholeBody = waitAsync {
        String(decoding: try await client.stream(Probe(path: "chunks")).reduce(into: Data()) { $0.append($1) }, as: UTF8.self)
    }
    expect("stream(_:) delivers every part of a chunked body in order", (try? wholeBody?.get()) == "onetwothree",
           "\(String(describing: wholeBody))")

    print("check-adapter: \(passed) passed, \(failed) failed")
    return failed
}

/// Runs `body` in a task and waits at most 10 s for it; `nil` when it did not finish in time
/// (the task is cancelled then).
private func waitAsync<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Result<T, any Error>? {
    let done = DispatchSemaphore(value: 0)
    let box = AsyncResultBox<T>()
    let task = Task {
        do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
        done.signal()
    }
    guard done.wait(timeout: .now() + 10) == .success else {
        task.cancel()
        return nil
    }
    return box.get()
}

/// Holds one task's result across threads.
// @unchecked: `result` is written once under `lock` by the task and read under `lock` after the
// semaphore that the task signals.
private final class AsyncResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) { lock.withLock { result = value } }
    func get() -> Result<T, any Error>? { lock.withLock { result } }
}

/// Sends `request` with the transport alone, runs `whileInFlight` with its task, and waits at
/// most 10 s for the completion.
private func sendAlone(
    _ transport: any HTTPTransport, _ request: URLRequest, _ context: TransportContext,
    whileInFlight: (any TransportTask) -> Void
) -> Result<HTTPResponse, any Error>? {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox()
    let task = transport.send(request, context: context) { result in
        box.set(result)
        done.signal()
    }
    whileInFlight(task)
    guard done.wait(timeout: .now() + 10) == .success else { return nil }
    return box.get()
}

/// Holds one completion result across threads.
private final class ResultBox: Sendable {
    private let lock = NSLock()
    // nonisolated(unsafe): written once under `lock` by the completion, read under `lock` after
    // the semaphore that the completion signals.
    nonisolated(unsafe) private var result: Result<HTTPResponse, any Error>?

    func set(_ value: Result<HTTPResponse, any Error>) {
        lock.lock()
        result = value
        lock.unlock()
    }

    func get() -> Result<HTTPResponse, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return result
    }
}

extension Result where Failure == any Error {
    /// The `URLError` code of a failure, if it is one.
    fileprivate var failureCode: URLError.Code? {
        if case .failure(let error) = self { return (error as? URLError)?.code }
        return nil
    }
}

/// The progress reports one check hears, from the handler's queue.
private final class ReportLog: Sendable {
    private let lock = NSLock()
    // nonisolated(unsafe): only touched while holding `lock`.
    nonisolated(unsafe) private var reports: [TransferProgress] = []

    func add(_ report: TransferProgress) { lock.withLock { reports.append(report) } }
    var last: TransferProgress? { lock.withLock { reports.last } }
}
