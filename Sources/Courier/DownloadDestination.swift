import Foundation

/// Where ``NetworkClient/download(_:to:progress:)-(_,DownloadDestination,_)`` saves a body: a
/// file chosen up front, a file named by the server in a folder you choose, or a file your code
/// picks once the response is known (Alamofire's `Destination` closure and
/// `suggestedDownloadDestination`).
///
/// ```swift
/// client.download(Report(id: 7), to: .file(reports.appendingPathComponent("7.pdf")))
/// client.download(Report(id: 7), to: .suggested(in: reports))    // "Q3 results.pdf", from the server
/// client.download(Report(id: 7), to: .custom { response in
///     reports.appendingPathComponent(response.header("ETag") == nil ? "7.pdf" : "7-tagged.pdf")
/// })
/// ```
///
/// Missing folders are created. With ``file(_:)`` and ``custom(_:)`` an existing file at the
/// chosen URL is replaced; ``suggested(in:fallback:)`` keeps it and picks the next free name. A
/// URL chosen from the response that is not a file URL, or is a folder, rejects the download
/// with ``NetworkError/decodingFailed(underlying:response:)`` carrying the response and a
/// `CocoaError` naming the path (the body is deleted), since the request itself was fine.
public struct DownloadDestination: Sendable {
    /// Checked before the request is sent.
    let check: @Sendable () throws(NetworkError) -> Void
    /// The file for an accepted response.
    let choose: @Sendable (HTTPResponse) -> URL
    /// `true`: an existing file of the chosen name is kept, and the body gets the next free name.
    var keepsExistingFiles = false

    /// A file chosen before sending: what ``NetworkClient/download(_:to:progress:)-(_,URL,_)``
    /// uses.
    ///
    /// - Parameter fileURL: The file URL to save the body to. One that is not a file URL, or is
    ///   a folder, rejects with ``NetworkError/invalidRequest(reason:)`` before anything is sent.
    public static func file(_ fileURL: URL) -> DownloadDestination {
        DownloadDestination(check: { () throws(NetworkError) in try DownloadStorage.validate(fileURL) }, choose: { _ in fileURL })
    }

    /// A file in `folder`, named by ``HTTPResponse/suggestedFilename`` (the server's
    /// `Content-Disposition` file name, else the last path component of the response's URL), or
    /// `fallback` when neither gives a usable name.
    ///
    /// The server's name is made safe first (see ``HTTPResponse/suggestedFilename``): path
    /// separators become `_`, control and format characters are removed, leading dots are
    /// dropped, and the name is cut to 255 bytes, so the file always lands directly in `folder`.
    /// The server does not get to replace your files: when a file of that name exists, the body
    /// is saved as "name 2.ext", "name 3.ext" and so on, as browsers do. (On a file system that
    /// ignores case, "REPORT.PDF" finds "report.pdf" taken too.)
    ///
    /// - Parameters:
    ///   - folder: Where to save; created if missing. One that is not a file URL, or is an
    ///     existing file, rejects with ``NetworkError/invalidRequest(reason:)`` before sending.
    ///   - fallback: The name used when the response suggests none. Default: `"download"`.
    public static func suggested(in folder: URL, fallback: String = "download") -> DownloadDestination {
        let safeFallback = SuggestedFilename.sanitize(fallback) ?? "download"
        return DownloadDestination(
            check: { () throws(NetworkError) in try DownloadStorage.validate(folder: folder) },
            choose: { response in folder.appendingPathComponent(response.suggestedFilename ?? safeFallback, isDirectory: false) },
            keepsExistingFiles: true)
    }

    /// A file your code picks from the response (its status is already accepted).
    ///
    /// - Parameter choose: Returns the file URL to save the body to. It runs once per download,
    ///   just before the body is saved and on the same thread (where the transfer ended, or a
    ///   global queue), so keep it quick.
    public static func custom(_ choose: @escaping @Sendable (HTTPResponse) -> URL) -> DownloadDestination {
        DownloadDestination(check: {}, choose: choose)
    }
}
