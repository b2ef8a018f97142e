import Courier
import Foundation
import Promises

/// Scenario 2: 401s while the token is stale → traffic held, one refresh, everything replayed
/// with the new token; then the manual pause()/resume() style.
enum RefreshScenario {
    static func run(on backend: DemoBackend, trace: Trace) {
        trace.heading("2. Pause/resume during an auth refresh")
        let refreshes = Counter()
        let lateRequests = Box<[Promise<JSON>]>([])
        let clientBox = Box<NetworkClient?>(nil)

        let auth = TokenAuthenticator(token: nil) { expired in
            let number = refreshes.increment()
            trace.log("⟳ refresh #\(number) starts (traffic paused: \(clientBox.value?.isPaused ?? false)); the rejected token was \(expired.map(redacted) ?? "none")")
            // Requests issued while the refresh runs are held, and leave with the new token.
            if let client = clientBox.value {
                lateRequests.value = (6...7).map { client.request(Protected(number: $0)) }
                trace.log("  issued #6 and #7 during the refresh: held")
            }
            return clientBox.value.map { client in
                client.request(RefreshToken()).map { $0["token"].string ?? "" }
                    .recover { _ in Promise.value("demo-token-\(UUID().uuidString.prefix(8))") }  // httpbin has no /auth/token
            } ?? Promise.value("demo-token")
        }
        let client = backend.makeClient {
            $0.authenticator = auth
            $0.plugins = [DemoTracePlugin(trace: trace, headerField: "Authorization")]
        }
        clientBox.value = client

        trace.log("5 requests at once, with no valid token yet")
        let first = (1...5).map { client.request(Protected(number: $0)) }
        let firstResults = Result { try when(resolved: first).wait() }
        let lateResults = Result { try when(resolved: lateRequests.value).wait() }
        let all = ((try? firstResults.get()) ?? []) + ((try? lateResults.get()) ?? [])
        let succeeded = all.filter { if case .success = $0 { true } else { false } }.count
        trace.check(refreshes.value == 1, "exactly one refresh ran (\(refreshes.value))")
        trace.check(all.count == 7 && succeeded == 7, "all 7 requests succeeded after the refresh (\(succeeded)/\(all.count))")
        trace.check(!client.isPaused, "traffic resumed after the refresh")

        trace.log("manual style: client.pause(); request #8; … obtain a token …; client.resume()")
        client.pause()
        let held = client.request(Protected(number: 8))
        trace.check(client.isPaused && held.isPending, "#8 is held while paused")
        client.resume()
        trace.check((try? held.wait()) != nil, "#8 left on resume() and succeeded")
    }
}

/// A thread-safe counter.
/// `@unchecked Sendable`: `count` is only touched under `lock`.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() -> Int { lock.withLock { count += 1; return count } }
}

/// A thread-safe box.
/// `@unchecked Sendable`: `stored` is only touched under `lock`.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
