import Dispatch
import Foundation

/// A multipart form with file parts, written to a temporary file that every attempt of its
/// request streams; the file is deleted when the request lets go of this object (it has settled,
/// and the transport has finished with the file).
final class StagedForm: Sendable {
    let form: MultipartFormData
    /// Where the encoded form is written: `courier-upload-<UUID>` in the temporary folder,
    /// readable by this user only.
    let file: URL

    /// Where forms are written: one at a time, so that many uploads started together hold one
    /// thread for their blocking file copies rather than one each (the disk is the limit anyway).
    static let queue = DispatchQueue(label: "courier.form-staging")

    init(_ form: MultipartFormData) {
        self.form = form
        file = PrivateFile.temporaryURL(prefix: "courier-upload-")
    }

    /// For tests: called before each piece of every copy, to hold a copy as a stuck read would.
    /// `nil` (nothing called) unless a test sets it.
    static let beforeEachPiece = Protected<(@Sendable () -> Void)?>(nil)

    /// Writes the encoded form to ``file``.
    ///
    /// - Parameter shouldStop: Asked before each piece; `true` abandons the copy.
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when a file part cannot be read or the
    ///   temporary file cannot be written, or ``NetworkError/cancelled`` when `shouldStop` said so.
    func write(shouldStop: () -> Bool) throws(NetworkError) {
        let handle: FileHandle
        do {
            handle = try PrivateFile.create(file)
        } catch {
            throw .invalidRequest(reason: "the multipart body could not be written to \(file.path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        try form.write(into: handle) {
            Self.beforeEachPiece.withLock { $0 }?()
            return shouldStop()
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: file)
    }
}
