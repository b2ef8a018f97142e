import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks and opens the file of a ``RequestBody/file(_:contentType:)`` body.
enum FileBody {
    /// A stream over `file` and its size in bytes.
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when `file` is not a `file:` URL, does
    ///   not exist, is a folder, or cannot be opened.
    static func open(_ file: URL) throws(NetworkError) -> (stream: InputStream, size: Int64) {
        guard file.isFileURL else {
            throw .invalidRequest(reason: "a file body needs a file URL, not \(Redaction.redact(file))")
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        } catch {
            throw .invalidRequest(reason: "the body file \(file.path) cannot be read: \(error.localizedDescription)")
        }
        guard (attributes[.type] as? FileAttributeType) != .typeDirectory else {
            throw .invalidRequest(reason: "the body file \(file.path) is a folder")
        }
        guard let stream = InputStream(url: file), FileManager.default.isReadableFile(atPath: file.path) else {
            throw .invalidRequest(reason: "the body file \(file.path) cannot be opened")
        }
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        return (stream, size)
    }

    /// Gives `request` a fresh stream over `file` and the file's current size, for one attempt
    /// (a stream is read once, and the file may have changed since the request was built).
    ///
    /// - Returns: The stream, to tell later whether a plugin replaced the body.
    /// - Throws: What ``open(_:)`` throws: the file is gone, or is no longer a readable file.
    static func prepare(_ request: inout URLRequest, from file: URL) throws(NetworkError) -> InputStream {
        let opened = try open(file)
        request.httpBodyStream = opened.stream
        request.setValue(String(opened.size), forHTTPHeaderField: "Content-Length")
        return opened.stream
    }
}
