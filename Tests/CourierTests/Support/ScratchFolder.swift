import Foundation

/// A new, empty folder in the temporary directory for a test that writes files, named after
/// `owner`; delete it with `removeScratchFolder(_:)` in `tearDown`.
func makeScratchFolder(_ owner: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(owner)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// Deletes a folder made by `makeScratchFolder(_:)` and everything in it.
func removeScratchFolder(_ folder: URL?) {
    if let folder { try? FileManager.default.removeItem(at: folder) }
}

/// Writes `content` to a new file `name` in `folder` and returns its URL.
func writeFile(_ content: Data, in folder: URL, named name: String = "file-\(UUID().uuidString)") throws -> URL {
    let file = folder.appendingPathComponent(name)
    try content.write(to: file)
    return file
}

/// Everything `stream` holds (a request's `httpBodyStream`, read as a server would).
func readAll(_ stream: InputStream) -> Data {
    stream.open()
    defer { stream.close() }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while true {
        let count = stream.read(&buffer, maxLength: buffer.count)
        if count <= 0 { break }
        data.append(buffer, count: count)
    }
    return data
}
