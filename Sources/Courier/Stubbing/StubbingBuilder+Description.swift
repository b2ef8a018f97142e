import Foundation

extension StubbingBuilder: CustomStringConvertible, CustomReflectable {
    /// A summary of the plan, for test failure messages and the debugger, for example
    /// `StubbingBuilder(default: StubResponse(status: 200, …), routes: [GET users/* → 2 responses],
    /// responder: no, sequence: 0 responses, seeds: [https://api.example.com/me?token=<redacted> (12 bytes)],
    /// fixtures: none, passthrough: none)`.
    ///
    /// Redacted like the client's own descriptions: credential headers and query values are
    /// hidden, and bodies are shown only by size, since stubs are often seeded with recorded
    /// traffic or from the environment.
    public var description: String {
        let routeList = routes.map { route -> String in
            let path = route.segments.joined(separator: "/")
            // Percent-encoded again, so that a `&`, `#` or space inside a value cannot split it
            // from its name before the redaction reads it.
            var components = URLComponents()
            components.queryItems = route.query.isEmpty ? nil : route.query
            let query = components.percentEncodedQuery ?? ""
            let shown = Redaction.redactQueries(in: query.isEmpty ? path : "\(path)?\(query)")
            return "\(route.method.rawValue) \(shown) → \(Self.describe(route.source))"
        }
        let seedList = seeds.keys.sorted().map { key in
            let shown = URL(string: key).map { Redaction.redact($0) } ?? Redaction.redactQueries(in: key)
            return "\(shown) (\(seeds[key]?.utf8.count ?? 0) bytes)"
        }
        let fields = [
            "default: \(defaultResponse)",
            "routes: [\(routeList.joined(separator: ", "))]",
            "responder: \(responder == nil ? "no" : "yes")",
            "sequence: \(sequenceResponses.count) responses",
            "seeds: [\(seedList.joined(separator: ", "))]",
            "fixtures: \(fixtureFolder.map { $0.path } ?? "none")",
            "passthrough: \(passthroughTransport.map { "\(type(of: $0))" } ?? "none")",
        ]
        return "StubbingBuilder(\(fields.joined(separator: ", ")))"
    }

    /// What `dump()` and the debugger's `po` show: the same as ``description``.
    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }

    private static func describe(_ source: StubSource) -> String {
        switch source {
        case .fixed(let response): "\(response)"
        case .sequence(let responses): "\(responses.count) responses"
        case .responder: "responder"
        }
    }
}
