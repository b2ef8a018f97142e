import Courier
import Dispatch
import Foundation
import Promises
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that answers every request at once, inside `send`, with one canned response:
/// what is left of a request's time is the client's own work.
struct ImmediateTransport: HTTPTransport {
    let response: HTTPResponse

    init(body: Data = BenchPayload.body) {
        response = HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: body)
    }

    func send(
        _ request: URLRequest, context: TransportContext,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> any TransportTask {
        completion(.success(response))
        return NothingToCancel()
    }

    private struct NothingToCancel: TransportTask {
        func cancel() {}
    }
}

/// Issue 3's "client's own cost" comparison and issue 5's pause-check comparison.
enum InMemoryWorkloads {
    /// A client over ``ImmediateTransport`` with the default configuration and `plugins` (default none).
    static func makeClient(plugins: [any RequestPlugin] = []) -> NetworkClient {
        let base = URL(string: "https://bench.courier.invalid/") ?? URL(fileURLWithPath: "/")
        var configuration = NetworkClient.Configuration(baseURL: base)
        configuration.plugins = plugins
        return NetworkClient(configuration: configuration, transport: ImmediateTransport())
    }

    /// A plugin that implements every hook and does nothing: what a client with plugins pays for
    /// calling them, the header check after `prepare` and the request's metrics.
    struct SilentPlugin: RequestPlugin {
        func willSend(_ request: URLRequest, for endpoint: any Endpoint) {}
        func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint) {}
        func didFinish(
            _ result: Result<HTTPResponse, NetworkError>, for request: URLRequest, endpoint: any Endpoint,
            metrics: RequestMetrics
        ) {}
    }

    /// `count` requests started back to back from one thread (promise style, one `tap` handler
    /// each that checks the decoded value); the time runs until the last handler has run.
    static func promiseBurst<E: Endpoint>(
        _ name: String, client: NetworkClient, endpoint: E, count: Int
    ) -> Workload where E.Response == BenchPayload.User {
        Workload(name: name, units: count) {
            let group = DispatchGroup()
            return timed {
                for _ in 0..<count {
                    group.enter()
                    _ = client.request(endpoint).tap { result in
                        switch result {
                        case .success(let user): BenchPayload.verify(user)
                        case .failure(let error): requestFailed(name, error)
                        }
                        group.leave()
                    }
                }
                group.wait()
            }
        }
    }

    /// `count` requests one at a time (each starts after the previous handler ran), promise style:
    /// the latency of the client's thread hand-offs, with no network to hide them.
    static func promiseSequential(_ name: String, client: NetworkClient, count: Int) -> Workload {
        Workload(name: name, units: count) {
            drive(count: count, inFlight: 1) { done in
                _ = client.request(GetUser()).tap { result in
                    switch result {
                    case .success(let user): BenchPayload.verify(user)
                    case .failure(let error): requestFailed(name, error)
                    }
                    done()
                }
            }
        }
    }

    /// `count` requests awaited one after another in one task (`try await client.send`): the
    /// async style needs no thread hand-off when the transport answers inside `send`, so this
    /// is the client's own cost with nothing else added. The time runs until the task ends.
    static func asyncSequential(_ name: String, client: NetworkClient, count: Int) -> Workload {
        Workload(name: name, units: count) {
            driveAsync(count: count, inFlight: 1) {
                do {
                    BenchPayload.verify(try await client.send(PostUser()))
                } catch {
                    requestFailed(name, error)
                }
            }
        }
    }

    /// The same burst in completion-handler style (one more hop, onto the callback queue).
    static func completionBurst(_ name: String, client: NetworkClient, count: Int) -> Workload {
        Workload(name: name, units: count) {
            let group = DispatchGroup()
            return timed {
                for _ in 0..<count {
                    group.enter()
                    client.request(PostUser()) { result in
                        switch result {
                        case .success(let user): BenchPayload.verify(user)
                        case .failure(let error): requestFailed(name, error)
                        }
                        group.leave()
                    }
                }
                group.wait()
            }
        }
    }

    /// The floor: on one thread, build the same `URLRequest` Courier builds for ``PostUser`` (URL
    /// from the base URL text and path, method, the headers dictionary assigned once, timeout, body)
    /// and decode the same body with `JSONDecoder` into the same type.
    ///
    /// With `handOff`, each decoded value is then checked in a block on the global queue, as a
    /// promise handler would be (`Promise`'s default queue): the floor plus the one hand-off any
    /// asynchronous API makes; the time runs until the last block has run.
    static func floor(_ name: String, count: Int, handOff: Bool = false) -> Workload {
        let base = "https://bench.courier.invalid/"
        let path = "users/42"
        let decoder = JSONDecoder()
        let body = BenchPayload.body
        return Workload(name: name, units: count) {
            let group = DispatchGroup()
            return timed {
                defer { group.wait() }
                for _ in 0..<count {
                    guard let url = URL(string: base + path) else { requestFailed(name, "bad URL") }
                    var request = URLRequest(url: url, timeoutInterval: 60)
                    request.httpMethod = "POST"
                    request.allHTTPHeaderFields = ["Accept": "application/json", "Content-Type": "application/json"]
                    request.httpBody = PostUser.payload
                    do {
                        let user = try decoder.decode(BenchPayload.User.self, from: body)
                        if handOff {
                            DispatchQueue.global().async(group: group) { BenchPayload.verify(user) }
                        } else {
                            BenchPayload.verify(user)
                        }
                    } catch {
                        requestFailed(name, error)
                    }
                    withExtendedLifetime(request) {}
                }
            }
        }
    }
}
