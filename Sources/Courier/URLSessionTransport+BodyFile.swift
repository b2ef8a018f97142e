import Foundation

/// The file a download's body is written to as it arrives, owned by the transport until the
/// client takes it (``HTTPResponse/bodyFileURL``).
///
/// A data task with its chunks written here, rather than a `URLSessionDownloadTask`: on Linux a
/// download task leaves its own temporary file behind when it is cancelled or fails, and traps
/// when a write fails (a full disk); here a failed write fails the request and every failure
/// deletes the file.
// @unchecked: used only from the session's delegate queue, which runs one callback at a time
// (`maxConcurrentOperationCount = 1`), so no two threads touch `handle` or `length` at once.
final class BodyFileWriter: @unchecked Sendable {
    /// Where the body goes: `courier-download-<UUID>` in the temporary directory, readable by
    /// this user only.
    let url: URL
    private var handle: FileHandle?
    /// How many bytes the file holds.
    private(set) var length: Int64 = 0

    /// Creates an empty file for a body.
    ///
    /// - Throws: The file system's error when the file cannot be created.
    init() throws {
        url = PrivateFile.temporaryURL(prefix: "courier-download-")
        handle = try PrivateFile.create(url)
    }

    /// Reopens the file of `partial` to append the rest of its body (cut to the bytes it is
    /// known to hold, should more have reached the disk). Only a private file of this user that
    /// still holds those bytes is reopened, never through a link (see
    /// ``PrivateFile/openOwnFileForWriting(_:minimumSize:)``): a shorter one would leave a gap.
    ///
    /// - Throws: The file system's error when the file is gone, is not such a file, or cannot be written.
    init(resuming partial: PartialDownload) throws {
        url = partial.fileURL
        let handle = try PrivateFile.openOwnFileForWriting(partial.fileURL, minimumSize: partial.length)
        do {
            try handle.truncate(atOffset: UInt64(partial.length))
            try handle.seekToEnd()
        } catch {
            try? handle.close()
            throw error
        }
        self.handle = handle
        length = partial.length
    }

    /// Appends `data`. Throws when the disk refuses it (full, removed, no permission).
    func write(_ data: Data) throws {
        guard let handle else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        try handle.write(contentsOf: data)
        length += Int64(data.count)
    }

    /// Closes the file, which now holds the whole body. Throws when the last write cannot be flushed.
    func finish() throws {
        let closing = handle
        handle = nil
        try closing?.close()
    }

    /// Closes the file and hands over what it holds, to be resumed by a later attempt; `nil`
    /// (and the file deleted) when it holds nothing, holds the whole body already (asking for
    /// the rest would get a `416`), or cannot be closed.
    func keep(validator: String, totalLength: Int64?) -> PartialDownload? {
        do {
            try finish()
        } catch {
            discard()
            return nil
        }
        guard length > 0, totalLength.map({ length < $0 }) ?? true else {
            discard()
            return nil
        }
        return PartialDownload(fileURL: url, length: length, validator: validator, totalLength: totalLength)
    }

    /// Closes and deletes the file: the request failed, or nobody will claim it.
    func discard() {
        try? handle?.close()
        handle = nil
        try? FileManager.default.removeItem(at: url)
    }
}
