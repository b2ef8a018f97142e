import Foundation

/// The command line of `courier-demo`.
struct DemoOptions {
    enum Scenario: String, CaseIterable {
        case chained, refresh, timeout
    }

    var baseURL: URL?
    var scenarios: [Scenario] = Scenario.allCases
    var showHelp = false

    static let usage = """
        courier-demo — Courier's guided tour, and a smoke test.

        USAGE: swift run courier-demo [--base-url URL] [--scenario NAME] [--help]

        With no options the demo runs three scenarios on Courier's built-in stub backend (no
        network needed) and prints a trace with timings:

          chained   a list request, then a detail request for its first item (map, then, done),
                    and the same with async/await
          refresh   several requests fail with 401 while the token is stale: traffic is paused,
                    ONE refresh runs, held and replayed requests leave with the new token; then
                    a manual pause() / resume()
          timeout   a delayed response that outlives its request's timeout ends in .timedOut,
                    and a 404 becomes a typed client error carrying the server's metadata

        OPTIONS:
          --base-url URL    Run against a real server with httpbin-style routes: /anything,
                            /bearer, /status/<code>, /delay/<seconds> (and POST /auth/token to
                            rotate the token, else the demo makes one up). Courier's own test
                            server offers all of them: scripts/test-server.sh 8080, then
                            --base-url http://127.0.0.1:8080
          --scenario NAME   Run one scenario: chained, refresh or timeout (repeatable).
          --help            Show this help.

        The exit status is 0 when every scenario behaved as described, 1 when one did not,
        2 for a bad command line.
        """

    /// Parses `arguments` (without the program name).
    static func parse(_ arguments: [String]) throws -> DemoOptions {
        var options = DemoOptions()
        var chosen: [Scenario] = []
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--help", "-h":
                options.showHelp = true
            case "--base-url":
                guard let value = iterator.next(), let url = URL(string: value),
                      ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false
                else {
                    throw DemoError.badArgument("--base-url needs an http or https URL such as http://127.0.0.1:8080")
                }
                options.baseURL = url
            case "--scenario":
                guard let value = iterator.next(), let scenario = Scenario(rawValue: value) else {
                    throw DemoError.badArgument("--scenario needs one of: chained, refresh, timeout")
                }
                chosen.append(scenario)
            default:
                // A URL is not echoed: it may carry a user, a password or a key.
                let shown = argument.contains("://") ? "(a URL; did you mean --base-url?)" : argument
                throw DemoError.badArgument("unknown argument \(shown); see --help")
            }
        }
        if !chosen.isEmpty { options.scenarios = chosen }
        return options
    }
}

enum DemoError: Error, CustomStringConvertible {
    case badArgument(String)

    var description: String {
        switch self {
        case .badArgument(let message): message
        }
    }
}
