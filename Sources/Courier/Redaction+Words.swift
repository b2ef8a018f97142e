import Foundation

/// Credential names recognised by their words rather than by a fragment of text: `newPwd`,
/// `user_pass`, `privateKey`, `X-GitHub-OTP`, `client_assertion`, `code_verifier`. A fragment
/// such as `otp` or `pass` would also match `footprint` or `compass`; a word does not. The
/// words must end the name: `otp_enabled`, `passTypeIdentifier` and `publicKey` stay shown.
extension Redaction {
    /// Last words that make a name a credential's, in headers, query items, form fields and
    /// JSON members alike.
    private static let sensitiveLastWords: Set<String> = [
        "pass", "pwd", "passwd", "passcode", "passphrase", "otp", "hmac", "assertion", "verifier",
    ]

    /// Words before a last word `key` that make it a credential (`privateKey`, `accessKey`);
    /// `publicKey`, `sortKey` or `LastEvaluatedKey` are not. (`private_key` and other names with
    /// a separator before `key` are redacted whatever comes first; see `endsInKey`.)
    private static let keyQualifiers: Set<String> = [
        "private", "access", "signing", "master", "app", "client", "auth", "encryption", "license",
        "subscription", "session", "shared", "secret", "api", "developer", "consumer",
    ]

    /// Further last words that mark a header (`X-ZUMO-AUTH`, `Auth`); in a query item or a JSON
    /// member `auth` is too common a word (`auth_type`, `oauth_provider`) to hide.
    private static let sensitiveHeaderLastWords: Set<String> = ["auth"]

    /// Whole names, compared without case, `-`, `_` or `.`: OAuth's authorization and device
    /// codes, session identifiers of common servers, SAML answers.
    private static let sensitiveSquashedNames: Set<String> = [
        "authcode", "authorizationcode", "devicecode", "phpsessid", "jsessionid", "sessid", "aspnetsessionid",
        "samlresponse",
    ]

    /// The words of a name, lowercased: split at anything but an ASCII letter or digit, where a
    /// lowercase letter or a digit meets an uppercase one (`privateKey` → `private`, `key`), before
    /// the last capital of a run followed by a lowercase letter (`OTPCode` → `otp`, `code`), and
    /// where letters meet digits (`pwd2` → `pwd`, `2`).
    static func words(of name: String) -> [String] {
        let scalars = Array(name.unicodeScalars)
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { scalar.isASCII && scalar.properties.isAlphabetic }
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        func isUpper(_ scalar: Unicode.Scalar) -> Bool { isLetter(scalar) && scalar.properties.isUppercase }
        for (offset, scalar) in scalars.enumerated() {
            guard isLetter(scalar) || isDigit(scalar) else {
                if !current.isEmpty { words.append(String(current).lowercased()) }
                current = String.UnicodeScalarView()
                continue
            }
            if let previous = current.last {
                let next = offset + 1 < scalars.count ? scalars[offset + 1] : nil
                let startsWord = (isUpper(scalar) && (!isUpper(previous) && isLetter(previous) || isDigit(previous)))
                    || (isUpper(scalar) && isUpper(previous) && next.map { isLetter($0) && !isUpper($0) } == true)
                    || (isDigit(scalar) != isDigit(previous))
                if startsWord {
                    words.append(String(current).lowercased())
                    current = String.UnicodeScalarView()
                }
            }
            current.append(scalar)
        }
        if !current.isEmpty { words.append(String(current).lowercased()) }
        return words
    }

    /// `true` when the words of `name` mark a credential: a sensitive last word, a last word
    /// `key` after a qualifier (`privateKey`), or a squashed name from the list.
    static func hasSensitiveWords(_ name: String, isHeader: Bool) -> Bool {
        var parts = words(of: name)
        if sensitiveSquashedNames.contains(parts.joined()) { return true }
        while let last = parts.last, last.allSatisfy(\.isNumber) { parts.removeLast() }   // `pwd2`
        guard let last = parts.last else { return false }
        if sensitiveLastWords.contains(last) || (isHeader && sensitiveHeaderLastWords.contains(last)) { return true }
        guard parts.count >= 2 else { return false }
        let qualifier = parts[parts.count - 2]
        return (last == "key" && keyQualifiers.contains(qualifier)) || (last == "code" && codeQualifiers.contains(qualifier))
    }

    /// Words before a last word `code` that make it a one-time or authorization code
    /// (`OTPCode`, `pin_code`, `verification_code`); `country_code` or `error_code` are not.
    private static let codeQualifiers: Set<String> = [
        "otp", "pin", "mfa", "totp", "sms", "verification", "auth", "authorization", "device", "security", "reset",
    ]
}
