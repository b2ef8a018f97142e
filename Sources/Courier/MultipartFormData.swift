import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, in the order they were added.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "name")
/// form.append(pngData, name: "avatar", filename: "ada.png", contentType: "image/png")
/// form.append(movieURL, name: "clip")       // read from disk; named and typed from the URL
/// let endpoint = UploadAvatar(body: .multipart(form))
/// ```
///
/// A form whose parts are all in memory, or whose content is at most 1 MiB in all, is encoded
/// into one `Data` when the request is built (small files are read then). A larger form with file
/// parts (``append(_:name:filename:contentType:)-(URL,_,_,_)``) is never read into memory by the
/// pipeline: before its first attempt, on a serial queue of its own (never the caller's thread),
/// the client writes the encoded form to a temporary file readable only by this user, copying
/// each file part in 64 KiB pieces, and every attempt streams that file (Alamofire does the same
/// above 10 MB). The temporary file is deleted once the request is over. Where the temporary
/// directory is a RAM disk (`tmpfs`, common for `/tmp` on Linux), that copy is in memory after all.
/// A file part that does not exist, is a folder or is not a regular file fails the request with
/// ``NetworkError/invalidRequest(reason:)`` before anything is sent.
public struct MultipartFormData: Sendable, Equatable {
    /// One part of the form.
    public struct Part: Sendable, Equatable {
        /// The form field name.
        public var name: String
        /// The file name reported to the server; `nil` for a plain text field.
        public var filename: String?
        /// The part's `Content-Type`; `nil` for a plain text field (the server assumes `text/plain`).
        public var contentType: String?
        /// The part's content when it is held in memory; unused (empty) for a part read from a
        /// file (see ``fileURL``).
        public var data: Data
        /// The file the part's content is read from when the request is sent, or `nil` for a part
        /// held in ``data``. When set, ``data`` is ignored.
        public var fileURL: URL?

        /// Creates a part held in memory.
        ///
        /// - Parameters:
        ///   - name: the form field name.
        ///   - filename: the file name for a file part; default `nil`.
        ///   - contentType: the part's content type; default `nil`.
        ///   - data: the content.
        public init(name: String, filename: String? = nil, contentType: String? = nil, data: Data) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.data = data
        }

        /// Creates a part whose content is read from a file when the request is sent.
        ///
        /// - Parameters:
        ///   - name: the form field name.
        ///   - filename: the file name reported to the server; default (`nil`) the URL's last
        ///     path component, as ``MultipartFormData/append(_:name:filename:contentType:)-(URL,_,_,_)`` does.
        ///   - contentType: the part's content type; default (`nil`) one guessed from the file's
        ///     extension, else `application/octet-stream`.
        ///   - fileURL: a `file:` URL of a regular file.
        public init(name: String, filename: String? = nil, contentType: String? = nil, fileURL: URL) {
            self.name = name
            self.filename = filename ?? fileURL.lastPathComponent
            self.contentType = contentType ?? MultipartFormData.contentType(forExtension: fileURL.pathExtension)
            self.data = Data()
            self.fileURL = fileURL
        }
    }

    /// The boundary that separates the parts; it appears in the `Content-Type` header.
    public let boundary: String
    /// The parts, in order.
    public private(set) var parts: [Part]

    /// Creates an empty form.
    ///
    /// - Parameters:
    ///   - boundary: the part separator; default a random `courier-…` token that will not occur in your data.
    ///   - parts: initial parts; default none.
    public init(boundary: String = MultipartFormData.randomBoundary(), parts: [Part] = []) {
        self.boundary = boundary
        self.parts = parts
    }

    /// A fresh random boundary, e.g. `courier-3F2A…`.
    public static func randomBoundary() -> String {
        "courier-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
    }

    /// Adds a text field (UTF-8).
    ///
    /// - Parameters:
    ///   - value: the field's text.
    ///   - name: the field name.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, data: Data(value.utf8)))
    }

    /// Adds a file or other binary part.
    ///
    /// - Parameters:
    ///   - data: the content.
    ///   - name: the field name.
    ///   - filename: the file name reported to the server; default `nil`.
    ///   - contentType: the part's content type; default `application/octet-stream`.
    public mutating func append(
        _ data: Data, name: String, filename: String? = nil, contentType: String = "application/octet-stream"
    ) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, data: data))
    }

    /// Adds a part whose content is read from a file when the request is sent, streamed in
    /// pieces, never whole into memory (Alamofire's `append(_:withName:)` for a file URL, Moya's
    /// `.file` form data).
    ///
    /// ```swift
    /// form.append(recording, name: "clip")    // …/Memo.m4a: "Memo.m4a", audio/mp4
    /// form.append(export, name: "report", filename: "q3.csv", contentType: "text/csv")
    /// ```
    ///
    /// - Parameters:
    ///   - fileURL: a `file:` URL of a regular file; its size is taken when the request is sent.
    ///   - name: the field name.
    ///   - filename: the file name reported to the server; default the URL's last path component.
    ///   - contentType: the part's content type; default one guessed from the file's extension
    ///     (`png`, `jpg`, `heic`, `pdf`, `json`, `txt`, `csv`, `zip`, `mp4`, `mov`, `m4a`, `mp3`
    ///     and a few more), else `application/octet-stream`.
    public mutating func append(_ fileURL: URL, name: String, filename: String? = nil, contentType: String? = nil) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, fileURL: fileURL))
    }

    /// The value for the request's `Content-Type` header: `multipart/form-data; boundary=…`.
    public var contentType: String {
        "multipart/form-data; boundary=\(boundary)"
    }

    /// The encoded body: each part framed by the boundary, with CRLF line endings. File parts
    /// are read into memory here; the pipeline calls this only for forms of at most 1 MiB (see
    /// ``MultipartFormData``), so use it to inspect small forms.
    ///
    /// Quotes, CR and LF in field and file names are percent-encoded, and CR, LF and NUL are
    /// removed from a part's content type, so that no caller text can break the framing or add a
    /// header to a part.
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when a file part cannot be read (missing,
    ///   a folder, not a regular file, or changed size while it was read).
    public func encoded() throws(NetworkError) -> Data {
        var body = Data()
        try encode { (piece: Data) throws(NetworkError) in body.append(piece) }
        return body
    }

    /// Whether any part is read from a file.
    var hasFileParts: Bool {
        parts.contains { $0.fileURL != nil }
    }

    /// Forms whose parts hold at most this many bytes in all are encoded in memory, files read
    /// when the request is built; larger forms with file parts are staged on disk.
    static let inMemoryLimit: Int64 = 1 << 20

    /// The bytes of all parts' content (framing not included), file parts measured now.
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when a file part is not a `file:` URL
    ///   of an existing regular file.
    func contentSize() throws(NetworkError) -> Int64 {
        var total: Int64 = 0
        for part in parts {
            if let file = part.fileURL {
                total += try FileBody.regularFile(file, role: Self.role(of: part)).size
            } else {
                total += Int64(part.data.count)
            }
        }
        return total
    }

    /// Writes the encoded form to `handle`, reading each file part in 64 KiB pieces.
    ///
    /// - Parameter shouldStop: Asked before each piece; `true` abandons the write (the request
    ///   was cancelled) with ``NetworkError/cancelled``, which the caller discards.
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when a file part cannot be read or the
    ///   file cannot be written; it may then hold part of the form.
    func write(into handle: FileHandle, shouldStop: () -> Bool = { false }) throws(NetworkError) {
        try encode { (piece: Data) throws(NetworkError) in
            if shouldStop() { throw .cancelled }
            do {
                try handle.write(contentsOf: piece)
            } catch {
                throw .invalidRequest(reason: "the multipart body could not be written: \(error.localizedDescription)")
            }
        }
    }

    /// How errors name the file of `part`.
    private static func role(of part: Part) -> String {
        "the form file of part \"\(part.name)\""
    }

    /// Hands `emit` the encoded form piece by piece, in order: framing, in-memory content, and
    /// each file part's content in pieces of at most `pieceSize` bytes.
    private func encode(pieceSize: Int = 64 << 10, _ emit: (Data) throws(NetworkError) -> Void) throws(NetworkError) {
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
            if let filename = part.filename {
                head += "; filename=\"\(Self.escape(filename))\""
            }
            head += "\r\n"
            if let contentType = part.contentType {
                head += "Content-Type: \(Self.stripLineBreaks(contentType))\r\n"
            }
            head += "\r\n"
            try emit(Data(head.utf8))
            if let file = part.fileURL {
                try Self.read(file, part: part, pieceSize: pieceSize, into: emit)
            } else {
                try emit(part.data)
            }
            try emit(Data("\r\n".utf8))
        }
        try emit(Data("--\(boundary)--\r\n".utf8))
    }

    /// Reads exactly the size `file` has when it is opened, in pieces: a file that is shorter by
    /// the end (it changed meanwhile) fails, and one that grew is cut at that size, so the framing
    /// stays intact and the read always ends. The type and size come from the opened file, so a
    /// pipe swapped in after the check is refused instead of blocking.
    private static func read(
        _ file: URL, part: Part, pieceSize: Int, into emit: (Data) throws(NetworkError) -> Void
    ) throws(NetworkError) {
        let role = role(of: part)
        guard file.isFileURL else {
            throw .invalidRequest(reason: "\(role) needs a file URL, not \(Redaction.redact(file))")
        }
        let opened: (handle: FileHandle, size: Int64)?
        do {
            opened = try PrivateFile.openRegularFile(file)
        } catch {
            throw .invalidRequest(reason: "\(role) \(file.path) cannot be opened: \(error.localizedDescription)")
        }
        guard let (handle, size) = opened else {
            throw .invalidRequest(reason: "\(role) \(file.path) is not a regular file")
        }
        defer { try? handle.close() }
        var remaining = size
        while remaining > 0 {
            let piece: Data?
            do {
                piece = try handle.read(upToCount: Int(min(Int64(pieceSize), remaining)))
            } catch {
                throw .invalidRequest(reason: "\(role) \(file.path) could not be read: \(error.localizedDescription)")
            }
            guard let piece, !piece.isEmpty else {
                throw .invalidRequest(reason: "\(role) \(file.path) became shorter while it was read")
            }
            remaining -= Int64(piece.count)
            try emit(piece)
        }
    }

    /// A content type for common file extensions, else `application/octet-stream`.
    static func contentType(forExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "heic": return "image/heic"
        case "webp": return "image/webp"
        case "pdf": return "application/pdf"
        case "json": return "application/json"
        case "xml": return "application/xml"
        case "zip": return "application/zip"
        case "txt": return "text/plain"
        case "csv": return "text/csv"
        case "html", "htm": return "text/html"
        case "mp4": return "video/mp4"
        case "mov": return "video/quicktime"
        case "m4a": return "audio/mp4"
        case "mp3": return "audio/mpeg"
        case "wav": return "audio/wav"
        default: return "application/octet-stream"
        }
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// Removes CR, LF and NUL. Filtered by scalar: as `Character`s, a CR LF pair is one
    /// character equal to neither `"\r"` nor `"\n"`, and would survive.
    private static func stripLineBreaks(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
        return String(scalars)
    }
}
