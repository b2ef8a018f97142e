import Courier
import Foundation
import Promises

/// Scenario 1: a list request, then a detail request for its first item.
enum ChainedScenario {
    static func run(on backend: DemoBackend, trace: Trace) {
        trace.heading("1. Chained calls: promises, then async/await")
        let client = backend.makeClient { $0.plugins = [DemoTracePlugin(trace: trace, headerField: "Authorization")] }

        trace.log("promise chain: request(list).map { first id }.then { request(detail) }.map { name }.done { … }")
        let chain = client.request(ProductList())
            .map { list -> Int in
                guard let id = list["products"][0]["id"].int else {
                    trace.log("  (the list has no products[0].id: an echo server; using id 1)")
                    return 1
                }
                return id
            }
            .then { id -> Promise<JSON> in
                trace.log("  first item id \(id): requesting its detail")
                return client.request(ProductDetail(id: id))
            }
            .map { detail -> String in name(of: detail) }
            .done { name in trace.log("  done: \(name)") }
        let promiseOutcome = Result { try chain.wait() }
        trace.check((try? promiseOutcome.get()) != nil, "the promise chain fulfilled (\(describe(promiseOutcome)))")

        trace.log("async/await: let list = try await client.send(list); let detail = try await client.send(detail)")
        let asyncOutcome = blockOn {
            let list = try await client.send(ProductList())
            let id = list["products"][0]["id"].int ?? 1
            let detail = try await client.send(ProductDetail(id: id))
            return name(of: detail)
        }
        if case .success(let name) = asyncOutcome { trace.log("  awaited: \(name)") }
        trace.check((try? asyncOutcome.get()) != nil, "the async/await version succeeded (\(describe(asyncOutcome)))")
    }
}

/// A product's name; from an echo server (scripts/test-server.sh's `path`, httpbin's `url`, whose
/// query would repeat the base URL's), the path the request reached.
private func name(of detail: JSON) -> String {
    detail["name"].string ?? detail["path"].string ?? detail["url"].string.flatMap { URL(string: $0)?.path } ?? "?"
}

/// Runs async work from the synchronous demo and waits for it.
func blockOn<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
    let (promise, resolver) = Promise<T>.pending()
    Task {
        do { resolver.fulfill(try await work()) } catch { resolver.reject(error) }
    }
    return Result { try promise.wait() }
}

/// "ok" or the error, for check messages.
func describe<T>(_ result: Result<T, any Error>) -> String {
    switch result {
    case .success: "ok"
    case .failure(let error): "\(error)"
    }
}
