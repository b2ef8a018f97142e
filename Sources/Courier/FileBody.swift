import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks and opens the file of a ``RequestBody/file(_:contentType:)`` body.
enum FileBody {
    /// A stream over `file`, its size in bytes, and the file itself with its symbolic links
    /// resolved (what a transport must read: URLSession measures a link itself otherwise, and
    /// would send the length of the path it holds).
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when `file` is not a `file:` URL, does
    ///   not exist, is not a regular file (a folder, a pipe, a device), or cannot be opened.
    static func open(_ file: URL) throws(NetworkError) -> (stream: InputStream, size: Int64, resolved: URL) {
        let (resolved, size) = try regularFile(file, role: "the body file")
        guard let stream = InputStream(url: resolved), FileManager.default.isReadableFile(atPath: resolved.path) else {
            throw .invalidRequest(reason: "the body file \(file.path) cannot be opened")
        }
        return (stream, size, resolved)
    }

    /// `file` with its symbolic links resolved, and its size in bytes.
    ///
    /// A symbolic link is followed: its own size is the length of the path it holds, which sent
    /// as `Content-Length` would hang the request or corrupt the connection. Only a regular file
    /// has a size that its content matches: a pipe or a device (`/dev/zero`) is refused rather
    /// than read without end.
    ///
    /// - Parameter role: How errors name the file, e.g. "the body file".
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` naming `role` and the path.
    static func regularFile(_ file: URL, role: String) throws(NetworkError) -> (url: URL, size: Int64) {
        guard file.isFileURL else {
            throw .invalidRequest(reason: "\(role) needs a file URL, not \(Redaction.redact(file))")
        }
        let resolved = file.resolvingSymlinksInPath()
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: resolved.path)
        } catch {
            throw .invalidRequest(reason: "\(role) \(file.path) cannot be read: \(error.localizedDescription)")
        }
        switch attributes[.type] as? FileAttributeType {
        case .typeRegular?:
            return (resolved, (attributes[.size] as? NSNumber)?.int64Value ?? 0)
        case .typeDirectory?:
            throw .invalidRequest(reason: "\(role) \(file.path) is a folder")
        default:
            throw .invalidRequest(reason: "\(role) \(file.path) is not a regular file")
        }
    }

    /// Gives `request` a fresh stream over `file` and the file's current size, for one attempt
    /// (a stream is read once, and the file may have changed since the request was built).
    ///
    /// - Returns: The stream, to tell later whether a plugin replaced the body, and the file with
    ///   its links resolved, for the transport.
    /// - Throws: What ``open(_:)`` throws: the file is gone, or is no longer a readable file.
    static func prepare(_ request: inout URLRequest, from file: URL) throws(NetworkError) -> (stream: InputStream, resolved: URL) {
        let opened = try open(file)
        request.httpBodyStream = opened.stream
        request.setValue(String(opened.size), forHTTPHeaderField: "Content-Length")
        return (opened.stream, opened.resolved)
    }
}
