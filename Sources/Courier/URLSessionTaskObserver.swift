import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Watches the `URLSessionTask`s a ``URLSessionTransport`` runs, for tools that log at the task
/// level, such as Pulse's `NetworkLogger` (Get's `sessionDelegate`, Alamofire's `EventMonitor`).
///
/// The transport keeps its session delegate to itself, because it makes the decisions on
/// redirects, challenges, size limits and cookies; an observer hears what happened and decides
/// nothing. Every method has an empty default, so implement only what you need:
///
/// ```swift
/// struct PulseBridge: URLSessionTaskObserver {
///     let logger: NetworkLogger
///     func taskCreated(_ task: URLSessionTask) { logger.logTaskCreated(task) }
///     func task(_ task: URLSessionDataTask, didReceive data: Data) { logger.logDataTask(task, didReceive: data) }
///     func task(_ task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
///         logger.logTask(task, didFinishCollecting: metrics)
///     }
///     func task(_ task: URLSessionTask, didCompleteWithError error: (any Error)?) {
///         logger.logTask(task, didCompleteWithError: error)
///     }
/// }
///
/// let transport = URLSessionTransport(taskObserver: PulseBridge(logger: .shared))
/// ```
///
/// **Where it runs.** ``taskCreated(_:)`` runs on the thread that sends the request, before the
/// task starts; the other methods run on the session's delegate queue, one at a time and in
/// the order URLSession reports them. Keep them quick: the transport's own handling of the
/// same callback waits for them.
///
/// **What it sees.** Every task, including one the transport starts itself to follow a `307`
/// or `308` with its body, and every attempt of a retried request. Requests carry their
/// credentials: redact them before writing anything down (``CurlCommand`` and the descriptions
/// of ``NetworkError`` already do). On Linux, FoundationNetworking does not report
/// `URLSessionTaskMetrics`, so ``task(_:didFinishCollecting:)`` is called on Apple platforms only.
public protocol URLSessionTaskObserver: Sendable {
    /// A task was created for a request and is about to start.
    ///
    /// - Parameter task: The task, not yet resumed.
    func taskCreated(_ task: URLSessionTask)

    /// A chunk of a response body arrived.
    ///
    /// - Parameters:
    ///   - task: The task it belongs to.
    ///   - data: The bytes, in order after the previous chunks.
    func task(_ task: URLSessionDataTask, didReceive data: Data)

    /// URLSession reported the task's timings.
    ///
    /// - Parameters:
    ///   - task: The task.
    ///   - metrics: Its timings (DNS, connection, TLS, request, response).
    func task(_ task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics)

    /// The task ended, as URLSession reports it (the transport may still turn a completed task
    /// into a failure, for example a response over the size limit).
    ///
    /// - Parameters:
    ///   - task: The task.
    ///   - error: `nil` when the transfer completed, otherwise why it did not.
    func task(_ task: URLSessionTask, didCompleteWithError error: (any Error)?)
}

extension URLSessionTaskObserver {
    /// Default: does nothing.
    public func taskCreated(_ task: URLSessionTask) {}
    /// Default: does nothing.
    public func task(_ task: URLSessionDataTask, didReceive data: Data) {}
    /// Default: does nothing.
    public func task(_ task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {}
    /// Default: does nothing.
    public func task(_ task: URLSessionTask, didCompleteWithError error: (any Error)?) {}
}
