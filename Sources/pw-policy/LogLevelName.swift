import ArgumentParser
import PolicyCore

/// `--log-level` of `run` and `restore`, named as the core's `LogLevel`
/// lists them; checked here, so that a bad level is a usage error before
/// anything connects. (A string, not `ExpressibleByArgument`: the parser's
/// own message would replace ours, which docs/CLI.md shows.)
enum LogLevelName {
    static let help = ArgumentHelp("Log level: \(OverrideOptions.either(LogLevel.names)).", valueName: "log-level")
    static let completion = CompletionKind.list(LogLevel.names)

    static func validate(_ name: String) throws {
        guard LogLevel(name: name) != nil else {
            throw ValidationError("unknown log level '\(name)'; expected \(OverrideOptions.either(LogLevel.names))")
        }
    }
}
