/// A request started with ``NetworkClient/request(_:completion:)``; keep it to cancel the request.
///
/// ```swift
/// let task = client.request(Feed.latest) { result in print(result) }
/// task.cancel()   // the completion handler receives .failure(.cancelled)
/// ```
public final class RequestTask: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Cancels the request wherever it is (held by a pause, in flight, waiting to retry); its
    /// completion handler then receives ``NetworkError/cancelled``. Once the request finished,
    /// or when called again, it does nothing.
    public func cancel() {
        onCancel()
    }
}
