import Courier
import Foundation
import Promises

/// Scenario 3: a response slower than the request's timeout, and a typed 4xx with metadata.
enum TimeoutScenario {
    static func run(on backend: DemoBackend, trace: Trace) {
        trace.heading("3. A delayed response outlives its timeout; a typed 404")
        let client = backend.makeClient { $0.plugins = [DemoTracePlugin(trace: trace, headerField: "Authorization")] }

        trace.log("GET /delay/3 answers after 3 s; the endpoint's timeout is 0.5 s")
        let started = Date()
        let slow = Result { try client.request(SlowReport()).wait() }
        let elapsed = Date().timeIntervalSince(started)
        trace.log("  settled after \(Int(elapsed * 1000)) ms: \(describe(slow))")
        if case .failure(NetworkError.timedOut) = slow {
            trace.check(elapsed >= 0.45 && elapsed < 2, "ended in .timedOut at the 0.5 s deadline, not after 3 s")
        } else {
            trace.check(false, "expected NetworkError.timedOut, got \(describe(slow))")
        }

        trace.log("GET /status/404 with a {\"metadata\":{…}} body")
        let missing = Result { try client.request(MissingUser()).wait() }
        guard case .failure(NetworkError.clientError(let status, let metadata, _)) = missing else {
            return trace.check(false, "expected NetworkError.clientError, got \(describe(missing))")
        }
        trace.log("  NetworkError.clientError(statusCode: \(status), metadata: status \(metadata?.status ?? "nil"), message \(metadata?.message ?? "nil"))")
        trace.check(status == 404, "a 404 became a typed client error")
        if case .stubs = backend {
            trace.check(metadata?.message == "No such user", "the server's metadata travelled with the error")
        } else if let message = metadata?.message, !message.isEmpty {
            // A real server writes its own message; that one arrived is what counts.
            trace.check(true, "the server's metadata travelled with the error (\"\(message)\")")
        } else {
            trace.log("  (this server's 404 has no metadata body to carry)")
        }
    }
}
