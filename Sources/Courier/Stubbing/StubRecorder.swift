import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records every request a stubbed client sent to its stub transport, credentials included,
/// so tests can assert on what left the pipeline.
///
/// ```swift
/// let recorder = StubRecorder()
/// let client = NetworkClient.stubbing().recording(into: recorder).makeClient()
/// _ = try client.request(Users.list).wait()
/// XCTAssertEqual(recorder.requests.first?.url?.path, "/users")
/// ```
///
/// `@unchecked Sendable`: the list is only touched under its lock.
public final class StubRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [URLRequest] = []

    /// Creates an empty recorder.
    public init() {}

    /// The requests received so far, in the order they reached the transport.
    public var requests: [URLRequest] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// How many requests reached the transport.
    public var count: Int { requests.count }

    /// Forgets every recorded request.
    public func reset() {
        lock.lock()
        recorded.removeAll()
        lock.unlock()
    }

    func record(_ request: URLRequest) {
        lock.lock()
        recorded.append(request)
        lock.unlock()
    }
}
