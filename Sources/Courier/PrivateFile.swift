import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Files the client creates or reads on the caller's behalf, opened so that neither another
/// user nor a file swapped in at the last moment can interfere.
enum PrivateFile {
    /// A new, unused name in the temporary directory: `<prefix><UUID>`. The first call in a
    /// process also starts ``sweepStaleTemporaryFiles(in:olderThan:now:)`` in the background.
    static func temporaryURL(prefix: String) -> URL {
        _ = sweepOnce
        return FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString)
    }

    /// The name prefixes of the temporary files the client creates: download bodies (and their
    /// resumable parts) and staged multipart forms.
    static let temporaryPrefixes = ["courier-download-", "courier-upload-"]

    /// How old a temporary file of the client's must be before a sweep deletes it: no request
    /// lives this long, so such a file was left by a process that was killed or crashed.
    static let staleAge: TimeInterval = 24 * 60 * 60

    private static let sweepOnce: Void = {
        DispatchQueue.global(qos: .utility).async {
            _ = sweepStaleTemporaryFiles(in: FileManager.default.temporaryDirectory, olderThan: staleAge)
        }
    }()

    /// Deletes this process's user's regular files in `directory` named with one of
    /// ``temporaryPrefixes`` and last modified more than `age` seconds before `now` (a download
    /// being written is modified as it goes, and a staged form lives no longer than its request).
    /// Files of other users are left alone: the sticky temporary directory refuses to delete them.
    ///
    /// - Returns: The files deleted.
    @discardableResult
    static func sweepStaleTemporaryFiles(in directory: URL, olderThan age: TimeInterval, now: Date = Date()) -> [URL] {
        let keys: [URLResourceKey] = [.isRegularFileKey, .contentModificationDateKey]
        guard let entries = try? FileManager.default.contentsOfDirectory(
            at: directory, includingPropertiesForKeys: keys, options: [.skipsSubdirectoryDescendants]
        ) else { return [] }
        var deleted: [URL] = []
        for entry in entries where temporaryPrefixes.contains(where: entry.lastPathComponent.hasPrefix) {
            guard let values = try? entry.resourceValues(forKeys: Set(keys)), values.isRegularFile == true,
                  let modified = values.contentModificationDate, now.timeIntervalSince(modified) > age
            else { continue }
            if (try? FileManager.default.removeItem(at: entry)) != nil { deleted.append(entry) }
        }
        return deleted
    }

    /// Creates `url` for writing, readable and writable by this user only (mode 0600: the shared
    /// temporary directory is readable by every local user, and a body or a form may be private),
    /// failing if anything already has that name (a planted link is never followed).
    ///
    /// - Throws: A `POSIXError` when the file cannot be created.
    static func create(_ url: URL) throws -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw posixError() }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Opens `url` for reading and returns it with its size, only when it is a regular file: the
    /// type and size are read from the opened file itself, so a pipe swapped in after an earlier
    /// check is refused rather than blocking the reader (it is opened without waiting for a writer).
    ///
    /// - Returns: `nil` for anything that is not a regular file.
    /// - Throws: A `POSIXError` when it cannot be opened.
    static func openRegularFile(_ url: URL) throws -> (handle: FileHandle, size: Int64)? {
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError() }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw posixError() }
        // S_IFMT and S_IFREG: the same values on every POSIX system.
        guard status.st_mode & 0o170000 == 0o100000 else { return nil }
        return (handle, Int64(status.st_size))
    }

    private static func posixError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
