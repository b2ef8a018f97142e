import Courier
import Dispatch
import Foundation

/// The endpoint every request benchmark calls: `GET users/42`, decoded into ``BenchPayload/User``.
/// No authenticator is configured, so `requiresAuthentication` only decides whether the request
/// passes the pause gate's check (true: it is checked, like every ordinary request).
struct GetUser: Endpoint {
    typealias Response = BenchPayload.User
    var path: String { "users/42" }
}

/// The same request with `requiresAuthentication == false`: such requests skip the pause check.
struct GetUserUnchecked: Endpoint {
    typealias Response = BenchPayload.User
    var path: String { "users/42" }
    var requiresAuthentication: Bool { false }
}

/// `POST users/42` with a fixed, already-encoded JSON body (no encoder runs), decoded into
/// ``BenchPayload/User``: the request the in-memory comparison builds.
struct PostUser: Endpoint {
    typealias Response = BenchPayload.User
    var path: String { "users/42" }
    var method: HTTPMethod { .post }
    var body: RequestBody { .data(PostUser.payload, contentType: "application/json") }

    static let payload = Data(#"{"name":"Ada Lovelace","active":true}"#.utf8)
}

/// Runs `count` requests keeping at most `inFlight` of them outstanding and returns the time
/// from the first start to the last completion. `start` begins one request and must call the
/// closure it is given exactly once, when that request has completed and been checked.
/// With `inFlight == 1` the requests run strictly one after another.
func drive(count: Int, inFlight: Int, _ start: (@escaping @Sendable () -> Void) -> Void) -> Timing {
    let window = DispatchSemaphore(value: inFlight)
    let group = DispatchGroup()
    let timing = timed {
        for _ in 0..<count {
            window.wait()
            group.enter()
            start {
                window.signal()
                group.leave()
            }
        }
        group.wait()
    }
    // Every completion signalled the window before leaving the group, so the semaphore is back
    // at its initial value here (libdispatch traps when one is freed below it).
    return timing
}

/// Stops the run: a benchmark request failed, so its timing would mean nothing.
func requestFailed(_ what: String, _ error: Any) -> Never {
    print("courier-bench: \(what) failed: \(error)")
    exit(3)
}
