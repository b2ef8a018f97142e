import Foundation

/// Credential names recognised by their words rather than by a fragment of text: `newPwd`,
/// `user_pass`, `privateKey`, `X-GitHub-OTP`, `client_assertion`, `code_verifier`. A fragment
/// such as `otp` or `pass` would also match `footprint` or `compass`; a word does not.
extension Redaction {
    /// Words that make any name holding them a credential's, in headers, query items, form
    /// fields and JSON members alike.
    private static let sensitiveWords: Set<String> = [
        "pass", "pwd", "passwd", "passcode", "passphrase", "otp", "hmac", "assertion", "verifier",
    ]

    /// Further words that mark a header (`X-ZUMO-AUTH`, `Auth`); in a query item or a JSON
    /// member `auth` is too common a word (`auth_type`, `oauth_provider`) to hide.
    private static let sensitiveHeaderWords: Set<String> = ["auth"]

    /// Whole names, compared without case, `-`, `_` or `.`: OAuth's authorization and device
    /// codes, PINs, session identifiers of common servers, SAML answers, and OpenWeatherMap-style
    /// `appid` keys.
    private static let sensitiveSquashedNames: Set<String> = [
        "authcode", "authorizationcode", "devicecode", "pin", "sid", "phpsessid", "jsessionid", "sessid",
        "aspnetsessionid", "samlresponse", "appid",
    ]

    /// The words of a name: split at anything but a letter or digit, and where a lowercase letter
    /// or digit meets an uppercase one (`privateKey` → `private`, `key`), lowercased.
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previousIsLowerOrDigit = false
        for scalar in name.unicodeScalars {
            guard scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) else {
                if !current.isEmpty { words.append(current) }
                current = ""
                previousIsLowerOrDigit = false
                continue
            }
            let isUpper = scalar.properties.isUppercase
            if isUpper, previousIsLowerOrDigit, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.unicodeScalars.append(contentsOf: String(scalar).lowercased().unicodeScalars)
            previousIsLowerOrDigit = !isUpper
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `true` when the words of `name` mark a credential: one of the sensitive words, a last word
    /// `key` (`privateKey`, `access.key`), or a squashed name from the list.
    static func hasSensitiveWords(_ name: String, isHeader: Bool) -> Bool {
        let parts = words(of: name)
        if parts.last == "key" { return true }
        if parts.contains(where: { sensitiveWords.contains($0) || (isHeader && sensitiveHeaderWords.contains($0)) }) {
            return true
        }
        return sensitiveSquashedNames.contains(parts.joined())
    }
}
