import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The outcome of ``NetworkClient/download(_:to:progress:)-(_,URL,_)``: where the body was saved, and the
/// response it came with.
///
/// ```swift
/// client.download(Report(id: 7), to: reportsFolder.appendingPathComponent("7.pdf"))
///     .done { file in print("saved", file.fileURL.path, file.response.header("ETag") ?? "") }
/// ```
public struct DownloadedFile: Sendable, Equatable {
    /// The file holding the body: the destination the download was given, or the one its
    /// ``DownloadDestination`` chose.
    public let fileURL: URL
    /// The response, its status accepted by the endpoint. Its ``HTTPResponse/body`` is empty and
    /// its ``HTTPResponse/bodyFileURL`` is ``fileURL``.
    public let response: HTTPResponse

    /// Creates a value (for tests of code that consumes downloads).
    ///
    /// - Parameters:
    ///   - fileURL: Where the body is.
    ///   - response: The response it came with.
    public init(fileURL: URL, response: HTTPResponse) {
        self.fileURL = fileURL
        self.response = response
    }
}

/// Moves a downloaded body to its destination, reads one into memory when it is needed there (an
/// error body, for its metadata), and deletes the files nobody will claim.
enum DownloadStorage {
    /// Refuses a destination that cannot be a file, before anything is sent.
    static func validate(_ destination: URL) throws(NetworkError) {
        guard destination.isFileURL, !destination.path.isEmpty, !destination.hasDirectoryPath else {
            throw NetworkError.invalidRequest(
                reason: "a download destination must be the URL of a file, not \(Redaction.redact(destination))")
        }
        if isDirectory(destination) {
            throw NetworkError.invalidRequest(
                reason: "the download destination \(destination.path) is a directory")
        }
    }

    /// Refuses a folder for ``DownloadDestination/suggested(in:fallback:)`` that cannot be one,
    /// before anything is sent: not a file URL, or an existing file.
    static func validate(folder: URL) throws(NetworkError) {
        guard folder.isFileURL, !folder.path.isEmpty else {
            throw NetworkError.invalidRequest(
                reason: "a download folder must be a file URL, not \(Redaction.redact(folder))")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw NetworkError.invalidRequest(reason: "the download folder \(folder.path) is a file")
        }
    }

    /// Saves the body of `response` where `destination` chooses; a chosen URL that cannot be a
    /// file fails as the save would (the body is deleted). A destination that keeps existing
    /// files gets the first free name of "name.ext", "name 2.ext", "name 3.ext"…, reserved by
    /// creating it exclusively, so that no file is replaced even by a download racing this one.
    static func save(_ response: HTTPResponse, to destination: DownloadDestination) -> Result<DownloadedFile, NetworkError> {
        let chosen = destination.choose(response)
        let target: URL
        do {
            do {
                try validate(chosen)
            } catch {
                // The request was fine; the file system's kind of error says what is wrong with the URL.
                throw CocoaError(.fileWriteInvalidFileName, userInfo: [NSFilePathErrorKey: chosen.isFileURL ? chosen.path : Redaction.redact(chosen)])
            }
            if destination.keepsExistingFiles {
                try FileManager.default.createDirectory(at: chosen.deletingLastPathComponent(), withIntermediateDirectories: true)
                target = try reserveFreeName(like: chosen)
            } else {
                target = chosen
            }
        } catch {
            discard(response)
            var failed = response
            failed.bodyFileURL = nil
            return .failure(.decodingFailed(underlying: error, response: failed))
        }
        let saved = save(response, to: target)
        if case .failure = saved, destination.keepsExistingFiles { try? FileManager.default.removeItem(at: target) }
        return saved
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Creates (empty, exclusively) the first of `url`, "stem 2.ext", "stem 3.ext"… that does not
    /// exist yet, and returns it; the save then replaces this placeholder.
    private static func reserveFreeName(like url: URL) throws -> URL {
        let folder = url.deletingLastPathComponent()
        let stem = url.deletingPathExtension().lastPathComponent
        let suffix = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
        for number in 1...10_000 {
            let candidate = number == 1 ? url : folder.appendingPathComponent(
                fitting(stem, before: " \(number)\(suffix)"), isDirectory: false)
            do {
                try PrivateFile.create(candidate).close()
                return candidate
            } catch let error as POSIXError {
                guard error.code == .EEXIST else { throw posixError(error.code.rawValue, candidate) }
            }
        }
        throw posixError(EEXIST, url)
    }

    /// `stem` shortened, scalar by scalar, so that it and `tail` fit in one file name (a
    /// suggested name may already use all 255 bytes before " 2" is added).
    private static func fitting(_ stem: String, before tail: String) -> String {
        var scalars = Array(stem.unicodeScalars)
        var total = stem.utf8.count + tail.utf8.count
        while total > SuggestedFilename.maximumLength, let last = scalars.popLast() { total -= UTF8.width(last) }
        return String(String.UnicodeScalarView(scalars)) + tail
    }

    /// Puts the body of `response` at `destination`, replacing any file there and creating missing
    /// directories: moves the transport's file, or writes a body the transport kept in memory.
    /// Either way the new file replaces the old one in one step, so a save that fails leaves the
    /// old file as it was.
    ///
    /// - Returns: The saved file, or ``NetworkError/decodingFailed(underlying:response:)`` carrying
    ///   the file system's error when it could not be saved (the transport's file is deleted then).
    static func save(_ response: HTTPResponse, to destination: URL) -> Result<DownloadedFile, NetworkError> {
        let files = FileManager.default
        var saved = response
        saved.body = Data()
        saved.bodyFileURL = destination
        do {
            try files.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let source = response.bodyFileURL {
                try replace(destination, with: source)
            } else {
                try response.body.write(to: destination, options: .atomic)
            }
        } catch {
            discard(response)
            var failed = response
            failed.bodyFileURL = nil
            return .failure(.decodingFailed(underlying: error, response: failed))
        }
        return .success(DownloadedFile(fileURL: destination, response: saved))
    }

    /// Renames `source` to `destination`, which replaces a file there atomically. Across file
    /// systems (the temporary directory on another volume) the file is first copied next to the
    /// destination, then renamed.
    private static func replace(_ destination: URL, with source: URL) throws {
        if rename(source.path, destination.path) == 0 { return }
        guard errno == EXDEV else { throw posixError(errno, destination) }
        // A short name: the destination's own may be up to 255 bytes already.
        let staging = destination.deletingLastPathComponent().appendingPathComponent(".courier-\(UUID().uuidString)")
        do {
            try FileManager.default.moveItem(at: source, to: staging)
            guard rename(staging.path, destination.path) == 0 else { throw posixError(errno, destination) }
        } catch {
            try? FileManager.default.removeItem(at: staging)
            throw error
        }
    }

    private static func posixError(_ code: Int32, _ destination: URL) -> any Error {
        let posix = POSIXErrorCode(rawValue: code) ?? .EIO
        return CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path, NSUnderlyingErrorKey: POSIXError(posix)])
    }

    /// `response` with its file's content in ``HTTPResponse/body`` (the file deleted): at most
    /// `limit` bytes. When the file holds more, `tooLarge` decides: `true` fails with
    /// ``NetworkError/invalidRequest(reason:)`` ("response larger than …"), `false` keeps the
    /// first `limit` bytes (enough for an error body's metadata). A file that cannot be read
    /// fails as a transport error.
    static func readIntoMemory(
        _ response: HTTPResponse, limit: Int, failWhenLarger tooLarge: Bool
    ) -> Result<HTTPResponse, any Error> {
        guard let file = response.bodyFileURL else { return .success(response) }
        defer { try? FileManager.default.removeItem(at: file) }
        var loaded = response
        loaded.bodyFileURL = nil
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let wanted = limit < Int.max ? limit + 1 : limit
            var body = try handle.read(upToCount: wanted) ?? Data()
            if body.count > limit {
                if tooLarge { return .failure(NetworkError.responseTooLarge(limit: limit)) }
                body = body.prefix(limit)
            }
            loaded.body = body
            return .success(loaded)
        } catch {
            return .failure(NetworkError.transport(underlying: error))
        }
    }

    /// Deletes the transport's file of a response nobody will use (a late or failed attempt).
    static func discard(_ response: HTTPResponse) {
        if let file = response.bodyFileURL { try? FileManager.default.removeItem(at: file) }
    }

    /// ``discard(_:)`` for a transport's result.
    static func discard(_ result: Result<HTTPResponse, any Error>) {
        if case .success(let response) = result { discard(response) }
    }
}
