import Foundation

extension HTTPResponse {
    /// The links of the response's `Link` header (RFC 8288) by relation type, lowercased:
    /// `next`, `prev`, `first`, `last`, … A relative link is resolved against ``url``; a link
    /// with several relation types (`rel="next last"`) is listed under each; when two links share
    /// one, the first is kept. Empty when there is no `Link` header or nothing in it parses.
    ///
    /// ```swift
    /// // Link: <https://api.example.com/items?page=3>; rel="next", <…?page=9>; rel="last"
    /// response.links["next"]   // https://api.example.com/items?page=3
    /// ```
    public var links: [String: URL] {
        guard let value = header("Link") else { return [:] }
        return LinkHeader.parse(value, relativeTo: url)
    }

    /// The link of the response's `Link` header with relation type `relation` (compared without
    /// case), e.g. the next page of a paginated list; `nil` when there is none.
    ///
    /// ```swift
    /// var page = try await client.send(ListRepos().withHTTPResponse())
    /// while let next = page.response.link(relation: "next") {
    ///     page = try await client.send(Request<[Repo]>(url: next).withHTTPResponse())
    /// }
    /// ```
    ///
    /// - Parameter relation: The relation type, e.g. `"next"`.
    public func link(relation: String) -> URL? {
        links[relation.lowercased()]
    }
}

extension DecodedResponse {
    /// The link of the response's `Link` header with relation type `relation`, as
    /// ``HTTPResponse/link(relation:)`` reads it: the next page of a paginated list, say.
    ///
    /// - Parameter relation: The relation type, e.g. `"next"`.
    public func link(relation: String) -> URL? {
        response.link(relation: relation)
    }
}

/// Reads a `Link` header: `<uri>; rel="next"; title="…", <uri>; rel=last`.
enum LinkHeader {
    /// Each link's relation types, mapped to its URL (the first link wins a relation type).
    static func parse(_ value: String, relativeTo base: URL?) -> [String: URL] {
        var links: [String: URL] = [:]
        var scanner = Substring(value)
        while let open = scanner.firstIndex(of: "<") {
            guard let close = scanner[open...].firstIndex(of: ">") else { break }
            let reference = scanner[scanner.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
            let rest = scanner[scanner.index(after: close)...]
            let end = endOfParameters(in: rest)
            let relations = relationTypes(in: rest[..<end])
            scanner = rest[end...]
            guard !relations.isEmpty, let url = URL(string: reference, relativeTo: base)?.absoluteURL else { continue }
            for relation in relations where links[relation] == nil { links[relation] = url }
        }
        return links
    }

    /// Where one link's parameters end: at the first `,` outside a quoted string, else at the
    /// end of the header.
    private static func endOfParameters(in text: Substring) -> Substring.Index {
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                return index
            }
        }
        return text.endIndex
    }

    /// The lowercased relation types of one link's `rel` parameter (quoted or not, several
    /// separated by spaces).
    private static func relationTypes(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "rel" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { $0.lowercased() }
        }
        return []
    }
}
