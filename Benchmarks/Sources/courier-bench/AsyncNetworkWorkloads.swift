import AsyncHTTPClient
import Courier
import Dispatch
import Foundation
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The loopback comparisons of ``NetworkWorkloads`` in async/await style: Courier's `send`
/// against each engine's own async API. Both sides resume an awaiting task when the response is
/// in, so neither makes a thread hand-off that the other does not.
enum AsyncNetworkWorkloads {
    /// `try await client.send(GetUser())`.
    static func courier(_ name: String, client: NetworkClient, count: Int, inFlight: Int) -> Workload {
        Workload(name: name, units: count) {
            driveAsync(count: count, inFlight: inFlight) {
                do {
                    BenchPayload.verify(try await client.send(GetUser()))
                } catch {
                    requestFailed(name, error)
                }
            }
        }
    }

    /// `try await session.data(for:)` with the same `URLRequest` as the raw completion-handler
    /// workload, a status check and `JSONDecoder`.
    static func rawURLSession(_ name: String, session: URLSession, url: URL, count: Int, inFlight: Int) -> Workload {
        let decoder = JSONDecoder()
        return Workload(name: name, units: count) {
            driveAsync(count: count, inFlight: inFlight) {
                var request = URLRequest(url: url, timeoutInterval: 60)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                do {
                    let (data, response) = try await session.data(for: request)
                    guard (response as? HTTPURLResponse)?.statusCode == 200 else { requestFailed(name, response) }
                    BenchPayload.verify(try decoder.decode(BenchPayload.User.self, from: data))
                } catch {
                    requestFailed(name, error)
                }
            }
        }
    }

    /// AsyncHTTPClient's async API: `execute(_:timeout:)` with an `HTTPClientRequest`, the body
    /// collected (up to 1 MiB), a status check and `JSONDecoder` on the body copied into `Data`.
    static func rawAsyncHTTPClient(_ name: String, client: HTTPClient, url: URL, count: Int, inFlight: Int) -> Workload {
        let decoder = JSONDecoder()
        let address = url.absoluteString
        return Workload(name: name, units: count) {
            driveAsync(count: count, inFlight: inFlight) {
                var request = HTTPClientRequest(url: address)
                request.headers.add(name: "Accept", value: "application/json")
                do {
                    let response = try await client.execute(request, timeout: .seconds(60))
                    guard response.status == .ok else { requestFailed(name, response.status) }
                    let body = try await response.body.collect(upTo: 1 << 20)
                    BenchPayload.verify(try decoder.decode(BenchPayload.User.self, from: Data(body.readableBytesView)))
                } catch {
                    requestFailed(name, error)
                }
            }
        }
    }
}

/// Runs `count` requests as `inFlight` tasks, each awaiting its share one after another, and
/// returns the time from the start to the last completion. With `inFlight == 1` the requests run
/// strictly one after another.
func driveAsync(count: Int, inFlight: Int, _ one: @escaping @Sendable () async -> Void) -> Timing {
    let finished = DispatchSemaphore(value: 0)
    return timed {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for lane in 0..<inFlight {
                    let share = count / inFlight + (lane < count % inFlight ? 1 : 0)
                    group.addTask {
                        for _ in 0..<share { await one() }
                    }
                }
            }
            finished.signal()
        }
        finished.wait()
    }
}
