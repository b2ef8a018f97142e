import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields and files, in the order they were added.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "name")
/// form.append(pngData, name: "avatar", filename: "ada.png", contentType: "image/png")
/// let endpoint = UploadAvatar(body: .multipart(form))
/// ```
public struct MultipartFormData: Sendable, Equatable {
    /// One part of the form.
    public struct Part: Sendable, Equatable {
        /// The form field name.
        public var name: String
        /// The file name reported to the server; `nil` for a plain text field.
        public var filename: String?
        /// The part's `Content-Type`; `nil` for a plain text field (the server assumes `text/plain`).
        public var contentType: String?
        /// The part's content.
        public var data: Data

        /// Creates a part.
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

    /// The value for the request's `Content-Type` header: `multipart/form-data; boundary=…`.
    public var contentType: String {
        "multipart/form-data; boundary=\(boundary)"
    }

    /// The encoded body: each part framed by the boundary, with CRLF line endings.
    ///
    /// Quotes, CR and LF in field and file names are percent-encoded, and CR, LF and NUL are
    /// removed from a part's content type, so that no caller text can break the framing or add a
    /// header to a part.
    public func encoded() -> Data {
        var body = Data()
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
            body.append(Data(head.utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return body
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
