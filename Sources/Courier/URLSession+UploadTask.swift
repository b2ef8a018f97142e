import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How file uploads are sent on Linux, and the memory they may hold.
///
/// FoundationNetworking's upload task reads the file asynchronously and, when a read completes
/// after the task was cancelled, traps inside libcurl's pause handling (a forced `try` on
/// "libcurl.Easy Code=43" in FoundationNetworking's code, none in ours), which any cancelled
/// upload could reach.
/// A body sent from memory has nothing to resume after a cancel, so a file of up to
/// ``largestFile`` bytes is read (mapped) and sent as a data task's body while the uploads in
/// flight hold at most ``budget`` bytes that way (FoundationNetworking copies such a body into
/// memory of its own); a larger file, or one past the budget, goes through the upload task.
enum UploadFromMemory {
    /// The largest file sent from memory (64 MiB); settable by tests.
    static let largestFile = Protected<Int64>(64 << 20)
    /// The most bytes all uploads in flight hold in memory at once (256 MiB).
    static let budget: Int64 = 256 << 20
    private static let inUse = Protected<Int64>(0)

    /// The bytes the uploads in flight hold now.
    static var bytesInUse: Int64 { inUse.withLock { $0 } }

    /// Takes `bytes` from the budget; `false` (nothing taken) when they do not fit.
    static func reserve(_ bytes: Int64) -> Bool {
        inUse.withLock { used in
            guard used + bytes <= budget else { return false }
            used += bytes
            return true
        }
    }

    /// Gives `bytes` back to the budget.
    static func release(_ bytes: Int64) {
        guard bytes > 0 else { return }
        inUse.withLock { $0 -= bytes }
    }
}

extension URLSession {
    /// A task that sends `request` with its body read from `file`, and the bytes it took from
    /// ``UploadFromMemory``'s budget (to give back with ``UploadFromMemory/release(_:)`` when it ends).
    ///
    /// On Apple platforms an upload task. On Linux a data task with the file's bytes as its
    /// body when ``UploadFromMemory`` allows it, else an upload task.
    func courierUploadTask(with request: URLRequest, fromFile file: URL) -> (task: URLSessionTask, memory: Int64) {
        var request = request
        // URLSession sizes the body from the file (or the data) as it sends it; a Content-Length
        // of ours would go stale if the file changed.
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        request.httpBody = nil
        #if canImport(FoundationNetworking)
        let largest = UploadFromMemory.largestFile.withLock { $0 }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        if let size, size <= largest, UploadFromMemory.reserve(size) {
            // The size is checked again on what was read: the file may have grown meanwhile.
            if let body = try? Data(contentsOf: file, options: .alwaysMapped), Int64(body.count) <= size {
                request.httpBody = body
                return (dataTask(with: request), size)
            }
            UploadFromMemory.release(size)
        }
        #endif
        return (uploadTask(with: request, fromFile: file), 0)
    }
}
