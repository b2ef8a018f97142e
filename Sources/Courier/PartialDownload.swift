import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The start of a download's body that an attempt cut short by a transport error left in its
/// file: the next attempt (a retry) asks the server for the rest with `Range` and `If-Range`,
/// and appends it when the server answers `206 Partial Content` for exactly that rest.
///
/// Made by `URLSessionTransport` when the response can be resumed (see ``validator(status:headers:request:)``);
/// owned by the request between attempts, and by the transport during one. Whoever holds it
/// last deletes the file when it is not used.
struct PartialDownload: Sendable {
    /// The transport's body file, holding the first ``length`` bytes of the body.
    let fileURL: URL
    /// How many bytes of the body the file holds.
    let length: Int64
    /// What `If-Range` carries: the response's strong `ETag`, or its `Last-Modified` date.
    let validator: String
    /// The whole body's length, when the server declared it.
    let totalLength: Int64?

    /// Deletes the file.
    func discard() {
        try? FileManager.default.removeItem(at: fileURL)
    }

    /// `request` asking for the rest of the body, as long as it is still the same body.
    func requestingRest(of request: URLRequest) -> URLRequest {
        var request = request
        request.setValue("bytes=\(length)-", forHTTPHeaderField: "Range")
        request.setValue(validator, forHTTPHeaderField: "If-Range")
        return request
    }

    /// The complete length of the body when `status` and `headers` answer ``requestingRest(of:)``
    /// in full, `nil` otherwise: a 206 whose `Content-Range` runs from right after the bytes held
    /// to the end of a body of known length (the length declared before, if one was), with a body
    /// that is not compressed (its offsets would count compressed bytes), and no `ETag` other
    /// than the one `If-Range` named (a server that ignored `If-Range` would send another's).
    func answer(status: Int, headers: [String: String]) -> Int64? {
        guard status == 206, !Self.isCompressed(headers),
              let range = headers.headerValue("Content-Range").flatMap(Self.contentRange),
              range.first == length, let complete = range.complete, range.last + 1 == complete,
              totalLength == nil || totalLength == complete else {
            return nil
        }
        if validator.hasPrefix("\""), let tag = headers.headerValue("ETag")?.trimmingCharacters(in: .whitespaces),
           tag != validator {
            return nil
        }
        return complete
    }

    /// The value a later `If-Range` may carry for the response `status`/`headers` to `request`,
    /// or `nil` when its body cannot be resumed: not a `200` (a `206` is the rest of a resumed
    /// body, whose validator the client keeps), a request whose caller asked for a range, a
    /// compressed body, a weak `ETag` (even with a `Last-Modified`), or no validator. A strong
    /// `ETag` is preferred; a `Last-Modified` date counts only when the response's `Date` is at
    /// least a second later (RFC 9110, 8.8.2.2: otherwise the date may not be a strong validator).
    ///
    /// - Parameter callerSetRange: Whether the request carries a `Range` of the caller's (not
    ///   one the client added to resume).
    static func validator(status: Int, headers: [String: String], callerSetRange: Bool) -> String? {
        guard status == 200, !callerSetRange, !isCompressed(headers) else { return nil }
        if let tag = headers.headerValue("ETag")?.trimmingCharacters(in: .whitespaces) {
            // A weak tag (W/"…") may not be used in If-Range; a malformed one is not trusted.
            guard tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\""),
                  !tag.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
                return nil
            }
            return tag
        }
        let now = Date()
        guard let modified = headers.headerValue("Last-Modified"), let modifiedDate = HTTPDate.parse(modified, now: now),
              let date = headers.headerValue("Date").flatMap({ HTTPDate.parse($0, now: now) }),
              date.timeIntervalSince(modifiedDate) >= 1 else {
            return nil
        }
        return modified
    }

    /// Whether `headers` declare a content coding other than `identity`.
    private static func isCompressed(_ headers: [String: String]) -> Bool {
        guard let encoding = headers.headerValue("Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return !encoding.isEmpty && encoding != "identity"
    }

    /// The bytes of `bytes <first>-<last>/<complete length or *>`, or `nil` for any other form.
    static func contentRange(_ value: String) -> (first: Int64, last: Int64, complete: Int64?)? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let rangeAndLength = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bounds = rangeAndLength[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard rangeAndLength.count == 2, bounds.count == 2,
              bounds.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last, last < Int64.max else {
            return nil
        }
        let lengthText = rangeAndLength[1]
        if lengthText == "*" { return (first, last, nil) }
        guard !lengthText.isEmpty, lengthText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let complete = Int64(lengthText), last < complete else {
            return nil
        }
        return (first, last, complete)
    }
}

/// An attempt of a download that a transport error cut short after part of a resumable body
/// arrived: the error, and that part for the next attempt. The request unwraps it as soon as
/// the transport answers; nothing else ever sees it.
struct InterruptedDownload: Error {
    let underlying: any Error
    let partial: PartialDownload
}

/// A saved start carried back by an error answer (see ``HTTPResponse``'s `unresumedPart`).
struct UnresumedPart: Sendable, Equatable {
    let part: PartialDownload

    static func == (_: UnresumedPart, _: UnresumedPart) -> Bool { true }
}
