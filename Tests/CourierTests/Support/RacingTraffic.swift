import Foundation
import XCTest
@testable import Courier
import Promises

/// Stubbed traffic that meets everything a request can meet at once: retries, 1 ms deadlines,
/// cancellations on the spot and from another thread, and one thread pausing and resuming the
/// client as it goes. The stress tests of plugin pairing and of the activity plugin drive it.
enum RacingTraffic {
    /// A stubbed client on `configuration` whose every seventh answer is a `503` after 1 ms and
    /// the others `{}` after 0 to 2 ms; `answered` counts the attempts the stub answered.
    static func makeClient(configuration: NetworkClient.Configuration) -> (client: NetworkClient, answered: SharedValue<Int>) {
        let answered = SharedValue(0)
        let client = NetworkClient.stubbing().respond { _ in
            let n = answered.withLock { value -> Int in value += 1; return value }
            return n % 7 == 0 ? StubResponse(status: 503, delay: 0.001) : .json("{}", delay: Double(n % 3) * 0.001)
        }.makeClient(configuration: configuration)
        return (client, answered)
    }

    /// Sends `perThread` requests from each of `threads` threads and waits at most 60 s for all
    /// of them to settle; whether they did. Thread 0 pauses the client every ten requests and
    /// resumes it five later, so with `perThread` a multiple of ten it ends resumed.
    static func run(_ client: NetworkClient, threads: Int, perThread: Int) -> Bool {
        let settled = DispatchGroup()
        for thread in 0..<threads {
            DispatchQueue.global().async(group: settled) {
                for index in 0..<perThread {
                    if thread == 0 && index % 10 == 0 { client.pause() }
                    if thread == 0 && index % 10 == 5 { client.resume() }
                    var request = Request<JSON>("items/\(index % 5)")
                    switch (index + thread) % 6 {
                    case 0: request.retryPolicy = RetryPolicy(maximumRetryCount: 2, delayBeforeRetry: .milliseconds(1), jitter: 0)
                    case 1: request.timeout = 0.001
                    default: break
                    }
                    let promise = client.request(request)
                    switch (index * 7 + thread) % 5 {
                    case 0: promise.cancel()
                    case 1: DispatchQueue.global().async { promise.cancel() }
                    default: break
                    }
                    settled.enter()
                    promise.tap { _ in settled.leave() }.cauterize()
                }
            }
        }
        return settled.wait(timeout: .now() + 60) == .success
    }
}
