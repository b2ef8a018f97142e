import Foundation

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
}
