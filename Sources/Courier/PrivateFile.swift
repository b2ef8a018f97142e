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
    /// A new, unused name in the temporary directory: `<prefix><UUID>`.
    static func temporaryURL(prefix: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(prefix + UUID().uuidString)
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
