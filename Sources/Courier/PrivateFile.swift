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

    /// How long a temporary file of the client's must have gone unused before a sweep deletes
    /// it. A request touches its staged form and its saved download part at every attempt
    /// (``touch(_:)``), and writes to a download's file as it arrives, so only a single attempt
    /// that runs longer than this, or a wait of this long between attempts, could see its file
    /// go; such a file was left by a process that was killed or crashed.
    static let staleAge: TimeInterval = 24 * 60 * 60

    private static let sweepOnce: Void = {
        DispatchQueue.global(qos: .utility).async {
            _ = sweepStaleTemporaryFiles(in: FileManager.default.temporaryDirectory, olderThan: staleAge)
        }
    }()

    /// Deletes the regular files in `directory` that this process's user owns, named with one of
    /// ``temporaryPrefixes`` and last modified more than `age` seconds before `now`. Other users'
    /// files are left alone even when the process may delete them (it runs as root), and nothing
    /// is deleted through a link or recursively: each file is removed with `unlink`.
    ///
    /// - Returns: The files deleted.
    @discardableResult
    static func sweepStaleTemporaryFiles(in directory: URL, olderThan age: TimeInterval, now: Date = Date()) -> [URL] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        let user = geteuid()
        var deleted: [URL] = []
        for name in names where temporaryPrefixes.contains(where: name.hasPrefix) {
            let entry = directory.appendingPathComponent(name)
            var status = stat()
            // lstat: a link is judged as the link itself (not a regular file), never its target.
            guard lstat(entry.path, &status) == 0, status.st_mode & 0o170000 == 0o100000, status.st_uid == user else {
                continue
            }
            let modified = Date(timeIntervalSince1970: TimeInterval(modificationSeconds(of: status)))
            guard now.timeIntervalSince(modified) > age else { continue }
            if unlink(entry.path) == 0 { deleted.append(entry) }
        }
        return deleted
    }

    /// Marks `url` as used now (its modification time), so that a sweep by another process
    /// leaves it alone. Failures are ignored: the file's next use reports them.
    static func touch(_ url: URL) {
        _ = utimes(url.path, nil)
    }

    /// The whole seconds of a file's modification time.
    private static func modificationSeconds(of status: stat) -> Int {
        #if canImport(Darwin)
        Int(status.st_mtimespec.tv_sec)
        #else
        Int(status.st_mtim.tv_sec)
        #endif
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

    /// The size of `url` when it is one of the client's private files: a regular file of this
    /// user, readable by no one else, with no other name (a link is judged as the link itself,
    /// never its target); `nil` otherwise.
    static func sizeOfOwnRegularFile(_ url: URL) -> Int64? {
        var status = stat()
        guard lstat(url.path, &status) == 0, isOwnPrivateFile(status) else { return nil }
        return Int64(status.st_size)
    }

    /// Opens the existing file `url` for writing, only when it is one of the client's private
    /// files (see ``sizeOfOwnRegularFile(_:)``) holding at least `minimumSize` bytes, and never
    /// through a link: a saved download part is reopened this way, so that a link, a pipe or
    /// another user's file planted under its name (in a shared temporary directory, after the
    /// file was swept) is refused. The type and size are read from the opened file itself.
    ///
    /// - Throws: A `POSIXError` when it cannot be opened or is not such a file.
    static func openOwnFileForWriting(_ url: URL, minimumSize: Int64) throws -> FileHandle {
        let descriptor = open(url.path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw posixError() }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw posixError() }
        guard isOwnPrivateFile(status), Int64(status.st_size) >= minimumSize else { throw POSIXError(.EPERM) }
        return handle
    }

    /// A regular file of this user, with no permission for anyone else and a single name.
    private static func isOwnPrivateFile(_ status: stat) -> Bool {
        status.st_mode & 0o170000 == 0o100000 && status.st_mode & 0o077 == 0 && status.st_uid == geteuid()
            && status.st_nlink == 1
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
