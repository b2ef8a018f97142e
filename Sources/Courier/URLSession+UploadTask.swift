import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// The largest file FoundationNetworking sends from memory instead of with an upload task (64 MiB).
    static let largestUploadFromMemory: Int64 = 64 << 20

    /// A task that sends `request` with its body read from `file`.
    ///
    /// On Apple platforms an upload task. On Linux, a file of up to ``largestUploadFromMemory``
    /// bytes is read (mapped) and sent as the request's body by a data task:
    /// FoundationNetworking's upload task reads the file asynchronously and, when a read completes
    /// after the task was cancelled, traps inside libcurl's pause handling ("'try!' expression
    /// unexpectedly raised an error: libcurl.Easy Code=43"), which any cancelled upload could
    /// reach. A larger file still goes through an upload task, with that risk (Docs/Reliability.md).
    func courierUploadTask(with request: URLRequest, fromFile file: URL) -> URLSessionTask {
        var request = request
        // URLSession sizes the body from the file (or the data) as it sends it; a Content-Length
        // of ours would go stale if the file changed.
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        #if canImport(FoundationNetworking)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        if let size, size <= Self.largestUploadFromMemory, let body = try? Data(contentsOf: file, options: .alwaysMapped) {
            request.httpBody = body
            return dataTask(with: request)
        }
        #endif
        return uploadTask(with: request, fromFile: file)
    }
}
