import ArgumentParser
import PolicyPipeWire

@main
struct PWPolicy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pw-policy",
        abstract: "Audio session policy for PipeWire: who mixes, ducks, pauses and resumes.",
        discussion: """
        pw-policy runs beside WirePlumber, gives every audio stream a category \
        (ambient, solo-ambient, playback, record, play-and-record, audio-processing, \
        system-sound) and applies the interaction rules between them.
        """,
        version: VersionCommand.text,
        subcommands: [RunCommand.self, DumpCommand.self, VersionCommand.self]
    )
}

/// Options every command that talks to PipeWire shares.
struct RemoteOptions: ParsableArguments {
    @Option(name: [.short, .long], help: "The PipeWire remote to connect to (default: $PIPEWIRE_REMOTE or pipewire-0).")
    var remote: String?
}
