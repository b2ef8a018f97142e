import Foundation

/// Why a stubbed client could not answer a request. It reaches callers as
/// ``NetworkError/transport(underlying:)``.
public enum StubError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// A fixture folder was configured but holds no file for this request.
    /// - Parameters: `request` is "METHOD path"; `searched` lists the file paths tried.
    case missingFixture(request: String, searched: [String])
    /// A fixture file exists but could not be read.
    case unreadableFixture(path: String)
    /// A request was answered with ``StubResponse/passthrough`` but the builder has no
    /// ``StubbingBuilder/passthrough(to:)`` transport. `request` is "METHOD path".
    case noPassthroughTransport(request: String)

    /// A one-line explanation naming the request or fixture path involved.
    public var description: String {
        switch self {
        case .missingFixture(let request, let searched):
            "No stub fixture for \(request); looked for: \(searched.joined(separator: ", "))"
        case .unreadableFixture(let path):
            "The stub fixture at \(path) could not be read"
        case .noPassthroughTransport(let request):
            "The stub for \(request) passes it through, but no passthrough transport was configured"
        }
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
