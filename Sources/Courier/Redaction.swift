import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keeps secrets out of descriptions and logs.
///
/// Header values and URL query items (and `#fragment` parameters) whose names look like credentials are
/// replaced by ``placeholder``; user names and passwords embedded in URLs are dropped.
enum Redaction {
    /// What a secret value is replaced by.
    static let placeholder = "<redacted>"

    private static let sensitiveHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2",
        "x-auth-token", "x-api-key", "x-csrf-token", "x-xsrf-token", "dpop",
    ]
    private static let sensitiveHeaderFragments = [
        "token", "secret", "api-key", "api_key", "apikey", "password", "authorization", "cookie",
        "signature", "jwt", "credential", "x-auth", "authentication", "session",
    ]

    private static let sensitiveQueryNames: Set<String> = [
        "key", "code", "sig", "signature", "auth", "authorization", "password", "passwd", "pwd",
        "session", "sessionid", "session_id", "jwt", "credential", "credentials", "pass",
    ]
    private static let sensitiveQueryFragments = [
        "token", "secret", "api_key", "api-key", "apikey", "password", "signature", "jwt", "credential",
    ]

    /// `key` alone or as the last word of a name (`X-Auth-Key`, `Ocp-Apim-Subscription-Key`,
    /// `private_key`, `access_key`): keys are credentials in most APIs. (`Idempotency-Key` is
    /// redacted too, which costs nothing.)
    private static func endsInKey(_ name: String) -> Bool {
        name == "key" || name.hasSuffix("-key") || name.hasSuffix("_key") || name.hasSuffix(".key")
    }

    /// `true` when a header with this name carries a credential: `Authorization`, `Proxy-Authorization`,
    /// `Cookie`, `Set-Cookie`, `X-Auth-Token`, `X-Api-Key`, any name containing `token`, `secret`,
    /// `api-key` (also `api_key`, `apikey`), `password`, `signature`, `jwt`, `credential`, `x-auth`,
    /// `authentication` or `session` (`X-Session-Id`), and any name whose last word is `key`
    /// (`X-Auth-Key`). Case-insensitive. (`WWW-Authenticate`, a challenge, is not a credential.)
    static func isSensitive(headerName: String) -> Bool {
        isSensitive(headerName, asHeader: true)
    }

    /// `true` when a JSON member, a form field or a multipart part with this name carries a
    /// credential: the header rules (without the header-only words, such as `auth`) or the query
    /// item rules.
    static func isSensitive(fieldName: String) -> Bool {
        isSensitive(fieldName, asHeader: false) || isSensitive(queryItemName: fieldName)
    }

    private static func isSensitive(_ headerName: String, asHeader: Bool) -> Bool {
        let name = headerName.lowercased()
        return sensitiveHeaderNames.contains(name) || sensitiveHeaderFragments.contains { name.contains($0) }
            || endsInKey(name) || hasSensitiveWords(headerName, isHeader: asHeader)
            || registeredHeaderNames.withLock { $0.contains(name) }
    }

    /// Header names declared sensitive at run time (a ``TokenAuthenticator``'s `headerField`, or
    /// ``NetworkClient/markSensitiveHeader(_:)``); they are redacted and stripped on cross-host
    /// redirects like the built-in ones.
    private static let registeredHeaderNames = Protected<Set<String>>([])

    /// Credential values in use (a ``TokenAuthenticator``'s current and recent tokens): removed from
    /// any description or log text, so a server message that quotes the credential cannot leak it.
    /// At most ``secretValueLimit`` are kept, the newest last.
    private static let registeredSecretValues = Protected<[String]>([])
    static let secretValueLimit = 16

    /// Long-lived credential values (a ``BasicAuthenticator``'s password, sensitive default
    /// headers, values passed to ``NetworkClient/markSensitiveValue(_:)``), kept apart so that
    /// rotating tokens never push them out. At most ``pinnedSecretValueLimit``, the newest last.
    private static let pinnedSecretValues = Protected<[String]>([])
    static let pinnedSecretValueLimit = 64

    /// Remembers `value` as a secret to scrub from texts; values shorter than 8 characters are
    /// ignored (they would match ordinary words). `pinned` values are kept in a list of their own.
    static func register(secretValue value: String, pinned: Bool = false) {
        guard value.count >= 8 else { return }
        let limit = pinned ? pinnedSecretValueLimit : secretValueLimit
        let insert = { (values: inout [String]) in
            values.removeAll { $0 == value }
            values.append(value)
            if values.count > limit { values.removeFirst(values.count - limit) }
        }
        if pinned {
            pinnedSecretValues.withLock(insert)
        } else {
            registeredSecretValues.withLock(insert)
        }
    }

    /// Registers the value of a credential header as a pinned secret: the whole value, and the
    /// credentials inside it, which a server is more likely to quote: the part after an
    /// authorization scheme (`Bearer abc…` → `abc…`), each cookie's value (`session=abc…; theme=dark`
    /// → `abc…`), or else the value itself. Only a credential that looks like one, 12 characters
    /// or more without white space, is registered (with the whole value): a header whose name
    /// merely looks sensitive (`X-Auth-Mode: standard`) must not hide an ordinary word from every
    /// text.
    static func register(credentialHeaderValue value: String) {
        let credentials = credentialParts(of: value).filter { $0.count >= 12 && !$0.contains(where: \.isWhitespace) }
        guard !credentials.isEmpty else { return }
        register(secretValue: value, pinned: true)
        for credential in credentials.prefix(maximumCredentialParts) {
            register(secretValue: credential, pinned: true)
        }
    }

    /// At most this many credentials are registered from one header value (a cookie header with
    /// many cookies must not push every other pinned value out).
    static let maximumCredentialParts = 8

    /// The credentials a header value carries: after a scheme word (`Bearer`, `Basic`, `DPoP`,
    /// `AWS4-HMAC-SHA256`: letters, digits and `-` only), the rest; in a `name=value; …` list,
    /// each value; after any other first word, the rest; otherwise the whole value.
    private static func credentialParts(of value: String) -> [String] {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        let words = trimmed.split(separator: " ", maxSplits: 1)
        // After a scheme word (`Bearer`, `DPoP`), or after any first word when the value is no
        // `name=value` list (`Bearer_v2 abc…`, `Token: abc…`).
        if words.count == 2, words[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) || !trimmed.contains("=") {
            return [words[1].trimmingCharacters(in: .whitespaces)]
        }
        if trimmed.contains("=") {
            let values = trimmed.split(separator: ";").compactMap { pair -> String? in
                guard let equals = pair.firstIndex(of: "=") else { return nil }
                return pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            }
            // `abc=` (Base64 padding) is a value of its own, not a cookie list.
            if values.contains(where: { !$0.isEmpty }) { return values + [trimmed] }
        }
        return [trimmed]
    }

    /// Every registered secret value, pinned and rotating.
    private static var allSecretValues: [String] {
        pinnedSecretValues.withLock { $0 } + registeredSecretValues.withLock { $0 }
    }

    /// `text` with every registered secret value replaced by ``placeholder``.
    static func scrub(_ text: String) -> String {
        var result = text
        for value in allSecretValues where result.contains(value) {
            result = result.replacingOccurrences(of: value, with: placeholder)
        }
        return result
    }

    /// Declares `headerName` sensitive for the rest of the process.
    static func register(headerName: String) {
        let name = headerName.lowercased()
        registeredHeaderNames.withLock { _ = $0.insert(name) }
    }

    /// `json` with the values of credential-named members (at any depth) replaced by ``placeholder``,
    /// and every other string redacted as free text (see ``redact(stringValue:depth:)``): a URL
    /// with a token in its query, JSON or a form kept inside a string. `true`, `false` and `null`
    /// are never hidden (they cannot be a secret, and `otp_enabled: true` says what happened).
    ///
    /// Two shapes are read by meaning rather than by name: a `code` is shown in an error (in an
    /// object that has a `message`, `msg`, `desc`, `description`, `detail` or `error_description`
    /// string, or that stands right under an `error`, `errors` or `extensions` member), where it is
    /// an error code rather than an OAuth or one-time code; and a `{"name": "password", "value": …}`
    /// pair hides its `value`. Nothing inherits the error reading from an enclosing object, so a
    /// `code` nested in the `data` beside a `message` stays hidden.
    ///
    /// With `scrubbingStrings`, every string (member names included) that contains a registered
    /// secret value is replaced too, so that JSON escaping cannot hide it from ``scrub(_:)``.
    ///
    /// - Parameters:
    ///   - depth: How many JSON documents kept in strings enclose `json` (see ``maximumEmbeddedDepth``).
    ///   - level: How deeply `json` is nested in the text being redacted, strings' documents
    ///     included: JSON kept in a string is read only near the top (``maximumEmbeddingLevel``),
    ///     so the walk's recursion stays within one document's limit of nesting.
    static func redactMembers(_ json: JSON, scrubbingStrings: Bool = false, depth: Int = 0, level: Int = 0) -> JSON {
        let secrets = scrubbingStrings ? allSecretValues : []
        return redactMembers(json, secrets: secrets, inError: false, depth: depth, level: level)
    }

    /// `inError`: `json` stands right under an `error`, `errors` or `extensions` member (or is an
    /// element of an array that does).
    private static func redactMembers(_ json: JSON, secrets: [String], inError: Bool, depth: Int, level: Int) -> JSON {
        switch json {
        case .string(let text) where secrets.contains(where: { text.contains($0) }):
            return .string(placeholder)
        case .string(let text):
            return .string(redact(stringValue: text, depth: depth, level: level))
        case .object(let members):
            let isError = inError || errorMessageNames.contains { members[$0]?.string != nil }
            let lowercased = Dictionary(members.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            let pairName = pairNameMembers.lazy.compactMap { lowercased[$0]?.string }.first
            let hidesPairValue = pairName.map { isSensitive(fieldName: $0) } ?? false
            var result: [String: JSON] = [:]
            for (key, value) in members {
                let lowerKey = key.lowercased()
                var secret = isSensitive(fieldName: key)
                if lowerKey == "code", isError { secret = false }
                if hidesPairValue, lowerKey == "value" { secret = true }
                if value.bool != nil || value == .null { secret = false }
                let name = secrets.contains(where: { key.contains($0) }) ? placeholder : key
                result[name] = secret
                    ? .string(placeholder)
                    : redactMembers(
                        value, secrets: secrets, inError: errorContainerNames.contains(lowerKey), depth: depth,
                        level: level + 1)
            }
            return .object(result)
        case .array(let items):
            return .array(items.map { redactMembers($0, secrets: secrets, inError: inError, depth: depth, level: level + 1) })
        default:
            return json
        }
    }

    /// Members that make an object an error's (whose `code` is then shown).
    private static let errorMessageNames = ["message", "msg", "desc", "description", "detail", "error_description"]
    /// Members whose contents describe an error (GraphQL's `extensions` included).
    private static let errorContainerNames: Set<String> = ["error", "errors", "extensions"]
    /// Members that name the `value` beside them (`[{"name": "password", "value": "…"}]`), compared without case.
    private static let pairNameMembers = ["name", "key", "field", "param", "parameter"]

    /// `true` when a URL query item with this name carries a credential: `token`, `access_token`,
    /// `api_key`, `apiKey`, `client_secret`, `password`, `pass`, `key`, `private_key`, `code`, `sig`,
    /// `signature`, `X-Amz-Signature`, `oauth_signature` and the like, also as a part of a nested
    /// or array name (`user[pass]`, `code[]`, `auth.key`).
    static func isSensitive(queryItemName: String) -> Bool {
        // Only the ASCII part counts: credential names are ASCII, and a stray combining mark
        // (or other invisible scalar) must not hide `code` or `token`.
        var ascii = String.UnicodeScalarView()
        ascii.append(contentsOf: queryItemName.unicodeScalars.filter(\.isASCII))
        // A bracketed or dotted name (`user[pass]`, `pass[]`, `auth.key`, as form encoders write
        // nested values and arrays) is sensitive when any of its parts is; a plain name is its
        // only part. (No credential word contains `[`, `]` or `.`, so the parts see every match
        // the whole name would.)
        return String(ascii).lowercased().split(whereSeparator: { $0 == "[" || $0 == "]" || $0 == "." })
            .contains { isSensitive(nameComponent: String($0)) }
            || hasSensitiveWords(String(ascii), isHeader: false)
    }

    private static func isSensitive(nameComponent name: String) -> Bool {
        sensitiveQueryNames.contains(name) || sensitiveQueryFragments.contains { name.contains($0) } || endsInKey(name)
    }

    /// `true` when `text` contains a registered secret value (see ``register(secretValue:)``).
    static func containsRegisteredSecret(_ text: String) -> Bool {
        allSecretValues.contains { text.contains($0) }
    }

    /// The headers with every sensitive value replaced by ``placeholder``, and in the others
    /// (`Location`, `Link`, …) the query and fragment parameters and the user and password of URLs
    /// redacted.
    static func redact(_ headers: [String: String]) -> [String: String] {
        var result = headers
        for (name, value) in headers {
            result[name] = isSensitive(headerName: name) ? placeholder : removingURLCredentials(in: redactQueries(in: value))
        }
        return result
    }

    /// `text` with the sensitive parameters of every URL query or fragment in it redacted:
    /// each run after a `?` or `#`, up to white space, a double quote, `<`, `>` or a backtick (or
    /// the next `?` or `#`), is read as `name=value&…` parameters. For free text such as header
    /// values and the descriptions of other libraries' errors, which may quote a URL. Commas,
    /// brackets and semicolons stay inside a run: they are legal in a query
    /// (`?fields=id,name&access_token=…`).
    ///
    /// Scanned by Unicode scalar: a delimiter followed by a combining mark would otherwise merge
    /// with it into one `Character` and hide the next parameter.
    ///
    /// `Location: /cb?code=XYZ&state=1` → `Location: /cb?code=<redacted>&state=1`
    static func redactQueries(in text: String) -> String {
        let scalars = text.unicodeScalars
        let isMark: (Unicode.Scalar) -> Bool = { $0 == "?" || $0 == "#" }
        guard scalars.contains(where: isMark) else { return text }
        let endsRun: (Unicode.Scalar) -> Bool = {
            isMark($0) || $0.properties.isWhitespace || $0 == "\"" || $0 == "<" || $0 == ">" || $0 == "`"
        }
        var result = ""
        var index = scalars.startIndex
        while let mark = scalars[index...].firstIndex(where: isMark) {
            let start = scalars.index(after: mark)
            let end = scalars[start...].firstIndex(where: endsRun) ?? scalars.endIndex
            result += Substring(scalars[index...mark])
            let run = Substring(scalars[start..<end])
            result += run.unicodeScalars.contains("=") ? redact(parameters: run) : String(run)
            index = end
        }
        result += Substring(scalars[index...])
        return result
    }

    /// The URL as text with sensitive query items and fragment parameters replaced by ``placeholder``
    /// and any user name or password removed.
    ///
    /// `https://u:p@api.example.com/a?token=abc&page=2` → `https://api.example.com/a?token=<redacted>&page=2`
    static func redact(_ url: URL) -> String {
        var text = url.absoluteString
        let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? text.endIndex
        if var components = URLComponents(string: String(text[..<end])), components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
            text = (components.string ?? String(text[..<end])) + text[end...]
        }
        // The query and the fragment (a hash route's `#/callback?code=…` included) are the runs
        // `redactQueries` reads.
        return redactQueries(in: text)
    }

    /// `a=1&token=x` → `a=1&token=<redacted>`; names are compared after percent-decoding, and a
    /// value that decodes to text containing a registered secret is redacted whatever its name.
    static func redact(parameters: Substring) -> String {
        // Pairs are split at "&" and at ";" (the older separator), by scalar, not by `Character`:
        // a separator followed by a combining mark is one `Character` and a split by `Character`
        // would not see it.
        let scalars = parameters.unicodeScalars
        var result = ""
        var start = scalars.startIndex
        var hidingValue = false   // the last pair's value was redacted
        var separator: Unicode.Scalar?   // the one before the current pair, written with it
        while true {
            let end = scalars[start...].firstIndex(where: { $0 == "&" || $0 == ";" }) ?? scalars.endIndex
            let pair = scalars[start..<end]
            if hidingValue, separator == ";", !pair.contains("=") {
                // `api_key=abc;def`: a `;` with no pair after it is part of the hidden value, and
                // goes with it. (Decided before the `;` is written: taking a scalar back off a
                // `String` copies it whole.)
            } else {
                if let separator { result.unicodeScalars.append(separator) }
                let redacted = redact(pair: pair)
                hidingValue = redacted.hasSuffix("=" + placeholder)
                result += redacted
            }
            guard end < scalars.endIndex else { return result }
            separator = scalars[end]
            start = scalars.index(after: end)
        }
    }

    /// One `name=value` pair, its value redacted when the name is sensitive or the value holds a
    /// registered secret.
    private static func redact(pair scalars: Substring.UnicodeScalarView.SubSequence) -> String {
        let pair = Substring(scalars)
        guard let equals = scalars.firstIndex(of: "=") else { return String(pair) }
        let rawName = Substring(scalars[..<equals])
        let value = Substring(scalars[scalars.index(after: equals)...])
        if isSensitive(queryItemName: formDecoded(rawName)) || containsRegisteredSecret(formDecoded(value)) {
            return rawName + "=" + placeholder
        }
        return String(pair)
    }

    /// A query or form component decoded: `+` as a space, then percent escapes.
    private static func formDecoded(_ raw: Substring) -> String {
        String(raw).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(raw)
    }

    /// A one-line, secret-free description of a request: method, redacted URL, redacted headers
    /// (sorted by name) and the body size, e.g.
    /// `POST https://api.example.com/login [Authorization: <redacted>, Content-Type: application/json] body 42 bytes`.
    static func describe(_ request: URLRequest) -> String {
        var text = request.httpMethod ?? "GET"
        text += " " + (request.url.map(redact) ?? "<no URL>")
        let headers = request.allHTTPHeaderFields ?? [:]
        if !headers.isEmpty { text += " [" + describe(headers: headers) + "]" }
        if let body = request.httpBody, !body.isEmpty {
            text += " body \(body.count) bytes"
        }
        return text
    }

    /// `A: x, Authorization: <redacted>`: the fields sorted by name, sensitive values redacted.
    static func describe(headers: [String: String]) -> String {
        let redacted = redact(headers)
        return redacted.keys.sorted().map { "\($0): \(redacted[$0] ?? "")" }.joined(separator: ", ")
    }
}
