import ArgumentParser
import PolicyCLI
import PolicyCore

/// `--category`, `--options`, `--mode` of `set`, named as the core's
/// `Category`, `PolicyOption` and `AudioMode` list them.
struct OverrideOptions: ParsableArguments {
    static let categories = Category.allCases.map(\.rawValue)
    static let options = PolicyOption.allCases.map(\.rawValue)
    static let modes = AudioMode.allCases.map(\.rawValue)

    /// "a, b or c".
    static func either(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    @Option(help: ArgumentHelp("The category: \(either(categories)).", valueName: "category"),
            completion: .list(categories))
    var category: String

    @Option(parsing: .singleValue,
            help: ArgumentHelp("Options, comma-separated or repeated: \(options.joined(separator: ", ")).",
                               valueName: "option,…"),
            completion: .list(options))
    var options: [String] = []

    @Option(help: ArgumentHelp("The mode: \(either(modes)) (paused rather than ducked when asked).", valueName: "mode"),
            completion: .list(modes))
    var mode: String?

    func spec() throws(CLIFailure) -> OverrideSpec {
        try OverrideSpec.parse(category: category, options: options, mode: mode)
    }

    func validate() throws {
        do {
            _ = try spec()
        } catch {
            throw ValidationError(error.message)
        }
    }
}

/// The target of `set` and `unset`: a stream, or an app with `--app`.
struct TargetOptions: ParsableArguments {
    @Argument(help: StreamArgument.help, completion: Completions.stream)
    var stream: String?

    @Option(name: .customLong("app"),
            help: ArgumentHelp("Every stream of this app instead of one stream (its app name, binary or app key, as 'status --json' shows in appKey).",
                               valueName: "app"),
            completion: Completions.app)
    var app: String?

    func validate() throws {
        switch (stream, app) {
        case (nil, nil): throw ValidationError("name a stream (ID or NAME) or an app (--app APP)")
        case (.some, .some): throw ValidationError("give either a stream (ID or NAME) or --app APP, not both")
        default: break
        }
    }
}
