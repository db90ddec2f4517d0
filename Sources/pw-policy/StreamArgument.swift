import ArgumentParser

/// The one stream a command acts on (`explain`, `resume`).
struct StreamArgument: ParsableArguments {
    static let help = ArgumentHelp("The stream: a node id, or its app name, node.name, application.process.binary or media.name.")

    @Argument(help: StreamArgument.help, completion: Completions.stream)
    var stream: String
}
