import Foundation
@testable import Courier

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects every text the scenario can produce.
// @unchecked Sendable: `texts` and `foundationTexts` are only touched while holding `lock`.
final class TextSink: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [String] = []
    /// Foundation's own descriptions of a `URLRequest` or a `URLError` (they print the URL
    /// verbatim, so a credential the caller put in the query shows there, which Courier cannot
    /// change), kept apart and checked for header credentials only.
    private var foundationTexts: [String] = []

    /// Every captured text, in order.
    var lines: [String] { lock.withLock { texts } }

    /// Captures one line as it is (a log line, say).
    func append(_ text: String) { lock.withLock { texts.append(text) } }

    /// Captures the ways a caller may print `value`: interpolation, `String(describing:)`,
    /// `String(reflecting:)`, and for errors `localizedDescription`.
    func expose(_ value: Any, _ label: String) {
        var found = ["\(label): \(value)", String(describing: value), String(reflecting: value)]
        if let error = value as? any Error { found.append(error.localizedDescription) }
        lock.withLock { texts += found }
    }

    /// Texts captured by ``exposeFoundation(_:)``.
    var foundationDescriptions: [String] { lock.withLock { foundationTexts } }

    /// Captures Foundation's descriptions of a `URLRequest`, a `URLError` or another Foundation value.
    func exposeFoundation(_ value: Any) {
        var found = [String(describing: value), String(reflecting: value), "\(value)"]
        if let error = value as? any Error { found.append(error.localizedDescription) }
        lock.withLock { foundationTexts += found }
    }

    /// Captures a settled request's result and, for a `NetworkError`, everything it carries.
    func exposeResult<T>(_ result: Result<T, any Error>?) {
        guard let result else { return append("unsettled") }
        switch result {
        case .success(let value):
            // A decoded body is the app's own data (it may legitimately hold a token); a response
            // value is described without its body.
            if let response = value as? HTTPResponse { expose(response, "success") } else { append("success") }
        case .failure(let error):
            expose(error, "failure")
            guard let error = error as? NetworkError else { return }
            if let response = error.response { expose(response, "error response") }
            if let metadata = error.metadata {
                expose(metadata, "metadata")
                append("metadata status \(metadata.status ?? "-") message \(metadata.message ?? "-")")
            }
            if case .transport(let underlying) = error { exposeFoundation(underlying) }
            if case .authenticationFailed(let underlying) = error { expose(underlying, "auth underlying") }
        }
    }
}

/// A plugin that describes everything passing through the pipeline into a `TextSink` — the way
/// an app's own logging plugin would.
// @unchecked Sendable: `count` is only touched while holding `lock`; the sink is thread-safe.
final class DescribingPlugin: RequestPlugin, @unchecked Sendable {
    private let sink: TextSink
    private let lock = NSLock()
    private var count = 0

    init(sink: TextSink) { self.sink = sink }

    /// How many requests `willSend` saw.
    var requestCount: Int { lock.withLock { count } }

    func willSend(_ request: URLRequest) {
        lock.withLock { count += 1 }
        sink.exposeFoundation(request)
        sink.append(Redaction.describe(request))
    }

    func didReceive(_ result: Result<HTTPResponse, NetworkError>, for request: URLRequest) {
        sink.exposeFoundation(request)
        sink.exposeResult(result.mapError { $0 as any Error })
    }
}

