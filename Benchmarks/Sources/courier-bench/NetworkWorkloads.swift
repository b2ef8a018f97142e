import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue 3's loopback comparisons: the same `GET users/42` against ``LoopbackServer``, through
/// Courier and through the engine underneath it used directly. Each side builds its request,
/// sends it, checks the status and decodes the same body into the same `Decodable`, so the
/// difference is what Courier adds (building, gate, deadline, promise, classification, hops).
enum NetworkWorkloads {
    /// Courier over its default transport (`NetworkClient(configuration:)`, an ephemeral
    /// URLSession), completion-handler style (the style with the most hops: it also hops to
    /// the client's callback queue).
    static func courier(
        _ name: String, client: NetworkClient, count: Int, inFlight: Int
    ) -> Workload {
        Workload(name: name, units: count) {
            drive(count: count, inFlight: inFlight) { done in
                client.request(GetUser()) { result in
                    switch result {
                    case .success(let user): BenchPayload.verify(user)
                    case .failure(let error): requestFailed(name, error)
                    }
                    done()
                }
            }
        }
    }

    /// Courier over the same client, promise style: `request(_:)` and one `tap` handler on the
    /// promises' default queue (no hop to the callback queue).
    static func courierPromise(
        _ name: String, client: NetworkClient, count: Int, inFlight: Int
    ) -> Workload {
        Workload(name: name, units: count) {
            drive(count: count, inFlight: inFlight) { done in
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

    /// A Courier transport used alone, without `NetworkClient`: the same `URLRequest` as the raw
    /// workloads, `send(_:context:completion:)`, a status check and `JSONDecoder`. The gap between
    /// this and the raw engine is the adapter's; between this and Courier, the client pipeline's.
    ///
    /// With `deliverOn` set, the completion then hops to that queue before it reports done: the
    /// one hand-off every Courier call style makes (to `callbackQueue`, to a promise handler's
    /// queue, to an awaiting task's executor) that a raw engine's callback does not.
    static func transportAlone(
        _ name: String, transport: any HTTPTransport, url: URL, count: Int, inFlight: Int,
        deliverOn queue: DispatchQueue? = nil
    ) -> Workload {
        let decoder = JSONDecoder()
        let context = TransportContext(method: .get, endpointPath: "users/42")
        return Workload(name: name, units: count) {
            drive(count: count, inFlight: inFlight) { done in
                var request = URLRequest(url: url, timeoutInterval: 60)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                _ = transport.send(request, context: context) { result in
                    switch result {
                    case .success(let response):
                        guard response.statusCode == 200 else { requestFailed(name, response.statusCode) }
                        do {
                            BenchPayload.verify(try decoder.decode(BenchPayload.User.self, from: response.body))
                        } catch {
                            requestFailed(name, error)
                        }
                    case .failure(let error):
                        requestFailed(name, error)
                    }
                    if let queue { queue.async { done() } } else { done() }
                }
            }
        }
    }

    /// Raw URLSession: a `URLRequest` with the same URL, `Accept` header and timeout, a data task
    /// with a completion handler, a status check and `JSONDecoder`.
    static func rawURLSession(
        _ name: String, session: URLSession, url: URL, count: Int, inFlight: Int
    ) -> Workload {
        let decoder = JSONDecoder()
        return Workload(name: name, units: count) {
            drive(count: count, inFlight: inFlight) { done in
                var request = URLRequest(url: url, timeoutInterval: 60)
                request.setValue("application/json", forHTTPHeaderField: "Accept")
                session.dataTask(with: request) { data, response, error in
                    guard let status = (response as? HTTPURLResponse)?.statusCode, status == 200, let data else {
                        requestFailed(name, error.map { "\($0)" } ?? "no 200 response")
                    }
                    do {
                        BenchPayload.verify(try decoder.decode(BenchPayload.User.self, from: data))
                    } catch {
                        requestFailed(name, error)
                    }
                    done()
                }.resume()
            }
        }
    }

    /// Raw AsyncHTTPClient: an `HTTPClient.Request` with the same URL and `Accept` header,
    /// `execute(request:deadline:)` (which accumulates the body), a status check, and
    /// `JSONDecoder` on the body copied into `Data` (what Courier's adapter does too).
    static func rawAsyncHTTPClient(
        _ name: String, client: HTTPClient, url: URL, count: Int, inFlight: Int
    ) -> Workload {
        let decoder = JSONDecoder()
        return Workload(name: name, units: count) {
            drive(count: count, inFlight: inFlight) { done in
                let request: HTTPClient.Request
                do {
                    request = try HTTPClient.Request(
                        url: url, method: .GET, headers: ["Accept": "application/json"])
                } catch {
                    requestFailed(name, error)
                }
                client.execute(request: request, deadline: .now() + .seconds(60)).whenComplete { result in
                    switch result {
                    case .success(let response):
                        guard response.status == .ok, let body = response.body else {
                            requestFailed(name, response.status)
                        }
                        do {
                            let data = Data(body.readableBytesView)
                            BenchPayload.verify(try decoder.decode(BenchPayload.User.self, from: data))
                        } catch {
                            requestFailed(name, error)
                        }
                    case .failure(let error):
                        requestFailed(name, error)
                    }
                    done()
                }
            }
        }
    }
}

/// The clients and servers of one `requests` run; everything is stopped by ``stop()``.
final class NetworkFixture {
    let server: LoopbackServer
    let url: URL
    let courierURLSession: NetworkClient
    let rawSession: URLSession
    /// A raw session without a URL cache, as `URLSessionTransport` runs its own on Linux (a
    /// cancel during FoundationNetworking's cache lookup can trap the process): the reference
    /// that leaves the cache lookup out of the comparison.
    let rawSessionWithoutCache: URLSession
    let httpClient: HTTPClient
    let courierAsyncHTTPClient: NetworkClient
    let urlSessionTransport: URLSessionTransport
    let asyncHTTPClientTransport: AsyncHTTPClientTransport

    init() throws {
        server = try LoopbackServer()
        url = server.baseURL.appendingPathComponent("users/42")
        courierURLSession = NetworkClient(configuration: NetworkClient.Configuration(baseURL: server.baseURL))
        rawSession = URLSession(configuration: .ephemeral)
        let withoutCache = URLSessionConfiguration.ephemeral
        withoutCache.urlCache = nil
        rawSessionWithoutCache = URLSession(configuration: withoutCache)
        httpClient = AsyncHTTPClientTransport.makeHTTPClient()
        urlSessionTransport = URLSessionTransport()
        asyncHTTPClientTransport = AsyncHTTPClientTransport(client: httpClient)
        courierAsyncHTTPClient = NetworkClient(
            configuration: NetworkClient.Configuration(baseURL: server.baseURL),
            transport: AsyncHTTPClientTransport(client: httpClient))
    }

    func stop() {
        rawSession.invalidateAndCancel()
        rawSessionWithoutCache.invalidateAndCancel()
        try? httpClient.syncShutdown()
        server.stop()
    }
}
