import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a raw URLSession request to the test server produced.
struct RawResponse: Sendable {
    let statusCode: Int
    let headers: [String: String]
    let body: Data
    let url: URL?

    /// A response header, matched case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body parsed as a JSON object (empty when it is not one).
    var jsonObject: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }
}

/// Errors of the raw helper itself.
enum RawFetchError: Error, CustomStringConvertible {
    case noResponse(String)
    case timedOutWaiting(TimeInterval)

    var description: String {
        switch self {
        case .noResponse(let detail): return "no HTTP response: \(detail)"
        case .timedOutWaiting(let seconds): return "no completion within \(seconds) s"
        }
    }
}

extension TestServer {
    /// Sends one request with a plain URLSession (no Courier code involved) and waits for it.
    ///
    /// - Parameters:
    ///   - method: the HTTP method.
    ///   - pathAndQuery: appended to `baseURL`, e.g. `"/counter/k/statuses?seq=503,200"`.
    ///   - body: the request body; default none.
    ///   - headers: request headers; default none.
    ///   - followRedirects: when false, a 3xx response is returned as it is; default true.
    ///   - timeout: the request's timeout; the wait is bounded by this plus two seconds.
    /// - Throws: the transport error (a `URLError`), or `RawFetchError`.
    func fetch(_ method: String, _ pathAndQuery: String, body: Data? = nil,
               headers: [String: String] = [:], followRedirects: Bool = true,
               timeout: TimeInterval = 5) throws -> RawResponse {
        try Self.fetch(url: url(pathAndQuery), method: method, body: body, headers: headers,
                       followRedirects: followRedirects, timeout: timeout)
    }

    /// `fetch` with the `GET` method.
    func fetch(_ pathAndQuery: String, headers: [String: String] = [:], followRedirects: Bool = true,
               timeout: TimeInterval = 5) throws -> RawResponse {
        try fetch("GET", pathAndQuery, headers: headers, followRedirects: followRedirects, timeout: timeout)
    }

    /// `fetch` for an absolute URL (for example one on `localhostURL`).
    static func fetch(url: URL, method: String = "GET", body: Data? = nil, headers: [String: String] = [:],
                      followRedirects: Bool = true, timeout: TimeInterval = 5) throws -> RawResponse {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        let delegate = followRedirects ? nil : RedirectRefuser()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let outcome = RawOutcome()
        session.dataTask(with: request) { data, response, error in
            if let http = response as? HTTPURLResponse, error == nil {
                var fields: [String: String] = [:]
                for (key, value) in http.allHeaderFields {
                    fields[String(describing: key)] = String(describing: value)
                }
                outcome.finish(.success(RawResponse(statusCode: http.statusCode, headers: fields,
                                                    body: data ?? Data(), url: http.url)))
            } else {
                outcome.finish(.failure(error ?? RawFetchError.noResponse(String(describing: response))))
            }
        }.resume()
        return try outcome.wait(timeout: timeout + 2)
    }

    /// Clears the server's counters and auth state (`POST /reset`).
    func reset() throws {
        _ = try fetch("POST", "/reset")
    }
}

/// A one-shot result slot the data task's completion fills in.
// @unchecked Sendable: `result` is written once and read only while holding `lock`; `done` is a semaphore.
private final class RawOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<RawResponse, any Error>?
    private let done = DispatchSemaphore(value: 0)

    func finish(_ value: Result<RawResponse, any Error>) {
        lock.withLock { result = value }
        done.signal()
    }

    func wait(timeout: TimeInterval) throws -> RawResponse {
        guard done.wait(timeout: .now() + timeout) == .success else {
            throw RawFetchError.timedOutWaiting(timeout)
        }
        let value = lock.withLock { result }
        guard let value else { throw RawFetchError.noResponse("empty result") }
        return try value.get()
    }
}

/// A session delegate that refuses every redirect, so the 3xx response itself is delivered.
private final class RedirectRefuser: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
