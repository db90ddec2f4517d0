import ArgumentParser
import PolicyCLI

/// `--category`, `--options`, `--mode` of `set`.
struct OverrideOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The category: ambient, solo-ambient, playback, record, play-and-record, audio-processing or system-sound.",
                               valueName: "category"),
            completion: .list(["ambient", "solo-ambient", "playback", "record", "play-and-record", "audio-processing", "system-sound"]))
    var category: String

    @Option(parsing: .singleValue,
            help: ArgumentHelp("Options, comma-separated or repeated: mix-with-others, duck-others, interrupt-spoken-audio.",
                               valueName: "option,…"),
            completion: .list(["mix-with-others", "duck-others", "interrupt-spoken-audio"]))
    var options: [String] = []

    @Option(help: ArgumentHelp("The mode: default or spoken-audio (paused rather than ducked when asked).", valueName: "mode"),
            completion: .list(["default", "spoken-audio"]))
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
