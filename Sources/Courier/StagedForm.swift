import Foundation

/// A multipart form with file parts, written to a temporary file that every attempt of its
/// request streams; the file is deleted when the request lets go of this object (it has settled,
/// and the transport has finished with the file).
final class StagedForm: Sendable {
    let form: MultipartFormData
    /// Where the encoded form is written: `courier-upload-<UUID>` in the temporary folder.
    let file: URL

    init(_ form: MultipartFormData) {
        self.form = form
        file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID().uuidString)")
    }

    /// Writes the encoded form to ``file``.
    ///
    /// - Parameter shouldStop: Asked before each piece; `true` abandons the copy.
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when a file part cannot be read or the
    ///   temporary file cannot be written, or ``NetworkError/cancelled`` when `shouldStop` said so.
    func write(shouldStop: () -> Bool) throws(NetworkError) {
        try form.write(to: file, shouldStop: shouldStop)
    }

    deinit {
        try? FileManager.default.removeItem(at: file)
    }
}
