import Foundation

/// The body of a request and how it is encoded.
///
/// ```swift
/// var body: RequestBody { .json(NewUser(name: "Ada")) }                 // application/json
/// var body: RequestBody { .form(["q": "swift promises", "page": "2"]) } // x-www-form-urlencoded
/// var body: RequestBody { .data(png, contentType: "image/png") }
/// var body: RequestBody { .file(movieURL, contentType: "video/mp4") }    // streamed from disk
/// ```
///
/// The `Content-Type` header is set from the body unless the endpoint sets one itself.
public enum RequestBody: Sendable {
    /// No body.
    case none
    /// A value encoded with the client's `JSONEncoder`; `Content-Type: application/json`.
    case json(any Encodable & Sendable)
    /// Raw bytes sent as they are, with the given `Content-Type`.
    case data(Data, contentType: String)
    /// Form fields, `application/x-www-form-urlencoded`, keys sorted, names and values percent-encoded
    /// (space as `%20`; `&`, `=`, `+` and every other reserved character escaped).
    case form([String: String])
    /// A `multipart/form-data` body; see ``MultipartFormData``.
    case multipart(MultipartFormData)
    /// The content of a file, streamed from disk as it is sent and never read into memory whole
    /// (Alamofire's `upload(_:to:)` from a file URL, Moya's `.uploadFile`). Each attempt (a retry,
    /// a replay after a credential refresh, a request held by a pause) opens the file again and
    /// sends its size at that moment as `Content-Length`. A URL that is not a `file:` URL, or a
    /// file that does not exist or is a folder, fails with ``NetworkError/invalidRequest(reason:)``
    /// before anything is sent, and so does a file removed before a retry.
    ///
    /// ```swift
    /// var body: RequestBody { .file(recording, contentType: "video/mp4") }
    /// ```
    case file(URL, contentType: String)
    /// A value's fields as an `application/x-www-form-urlencoded` body, spelled by a
    /// ``URLFormEncoder`` (Alamofire's `URLEncodedFormParameterEncoder`, Moya's
    /// `.requestParameters(…, encoding: URLEncoding.httpBody)`): nested values as `user[name]`,
    /// arrays as `tags[]`, booleans as `1`/`0` by default. The value is encoded when the request is
    /// built; one that cannot be (not keyed fields, a non-finite number) fails with
    /// ``NetworkError/invalidRequest(reason:)``.
    ///
    /// ```swift
    /// struct Login: Encodable, Sendable { let user: String; let password: String; let remember: Bool }
    /// var body: RequestBody { .urlEncoded(Login(user: "ada", password: secret, remember: true)) }
    /// // password=…&remember=1&user=ada
    /// ```
    case urlEncoded(any Encodable & Sendable, encoder: URLFormEncoder = URLFormEncoder())

    /// The encoded bytes and their content type (both `nil` for ``none``), or, for a body that is
    /// streamed (``file(_:contentType:)``, a form with file parts), where it streams from.
    ///
    /// - Throws: ``NetworkError/invalidRequest(reason:)`` when a ``json(_:)`` or
    ///   ``urlEncoded(_:encoder:)`` value cannot be encoded
    ///   (for example a `Double.nan`, or an `encode(to:)` that throws), naming the problem, or when
    ///   a form's file part is not a readable regular file.
    func encoded(using encoder: JSONEncoder) throws(NetworkError) -> (data: Data?, contentType: String?, upload: UploadSource?) {
        switch self {
        case .none:
            return (nil, nil, nil)
        case .json(let value):
            do {
                return (try encoder.encode(value), "application/json", nil)
            } catch {
                throw NetworkError.invalidRequest(reason: Self.describeEncodingFailure(error, of: value, as: "JSON"))
            }
        case .data(let data, let contentType):
            return (data, contentType, nil)
        case .form(let fields):
            return (Data(Self.formEncoded(fields).utf8), "application/x-www-form-urlencoded", nil)
        case .urlEncoded(let value, let formEncoder):
            do {
                return (Data(Self.formText(try formEncoder.encode(value)).utf8), "application/x-www-form-urlencoded", nil)
            } catch {
                throw NetworkError.invalidRequest(reason: Self.describeEncodingFailure(error, of: value, as: "form"))
            }
        case .multipart(let form) where form.hasFileParts:
            if try form.contentSize() > MultipartFormData.inMemoryLimit {
                return (nil, form.contentType, .form(form))   // written to a file when sent: see `StagedForm`
            }
            return (try form.encoded(), form.contentType, nil)
        case .multipart(let form):
            return (try form.encoded(), form.contentType, nil)
        case .file(let file, let contentType):
            return (nil, contentType, .file(file))   // streamed: see `RequestBuilder`
        }
    }

    /// The characters left as they are in a form: RFC 3986's unreserved set.
    private static let formAllowed: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return set
    }()

    /// `["b": "x y", "a": "1&2"]` → `a=1%262&b=x%20y`.
    static func formEncoded(_ fields: [String: String]) -> String {
        fields.keys.sorted().map { key in
            formEscape(key) + "=" + formEscape(fields[key] ?? "")
        }.joined(separator: "&")
    }

    /// Form fields in the order given, a name repeated as often as it appears,
    /// `application/x-www-form-urlencoded`: for arrays and for servers that read the order
    /// (what the dictionary form cannot say). Names and values are encoded as there; an item with a `nil`
    /// value is sent as the bare name. Array conventions are yours to spell: `tags[]` or `tags`.
    ///
    /// ```swift
    /// var body: RequestBody {
    ///     .form([URLQueryItem(name: "tags[]", value: "swift"), URLQueryItem(name: "tags[]", value: "http"),
    ///            URLQueryItem(name: "draft", value: nil)])   // tags%5B%5D=swift&tags%5B%5D=http&draft
    /// }
    /// ```
    ///
    /// - Parameter items: The fields, in order.
    /// - Returns: A `.data` body with the encoded fields and the form content type.
    public static func form(_ items: [URLQueryItem]) -> RequestBody {
        .data(Data(formText(items).utf8), contentType: "application/x-www-form-urlencoded")
    }

    /// `items` as form text, in order; an item without a value is the bare name.
    private static func formText(_ items: [URLQueryItem]) -> String {
        items.map { item in
            item.value.map { formEscape(item.name) + "=" + formEscape($0) } ?? formEscape(item.name)
        }.joined(separator: "&")
    }

    private static func formEscape(_ text: String) -> String {
        // Only fails for invalid UTF-16, which a Swift String cannot hold; fall back to the text itself.
        text.addingPercentEncoding(withAllowedCharacters: formAllowed) ?? text
    }

    private static func describeEncodingFailure(_ error: any Error, of value: any Encodable, as kind: String) -> String {
        let name = value is JSONObjectBody ? "a dictionary" : "\(type(of: value))"
        let subject = "The \(kind) body (\(name)) could not be encoded"
        guard let error = error as? EncodingError else { return subject + ": \(error)" }
        switch error {
        case .invalidValue(let invalid, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            let location = path.isEmpty ? "" : " at " + path.joined(separator: ".")
            return subject + ": invalid value \(invalid)\(location) — \(context.debugDescription)"
        @unknown default:
            return subject + ": \(error)"
        }
    }
}

/// Where a streamed request body comes from.
enum UploadSource: Sendable {
    /// A ``RequestBody/file(_:contentType:)`` body: each attempt reopens the file.
    case file(URL)
    /// A form with file parts: written to a temporary file before the first attempt (see `StagedForm`).
    case form(MultipartFormData)
}
