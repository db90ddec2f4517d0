import ArgumentParser
import PolicyAgent
import PolicyPipeWire

@main
struct PWPolicy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pw-policy",
        abstract: "Audio session policy for PipeWire: who mixes, ducks, pauses and resumes.",
        discussion: """
        pw-policy runs beside WirePlumber, gives every audio stream a category \
        (ambient, solo-ambient, playback, record, play-and-record, audio-processing, \
        system-sound) and applies the interaction rules between them: who mixes, who is \
        ducked, who is interrupted and resumed, who is silenced by silent mode, and what \
        happens when headphones come and go.

        Start with 'pw-policy status' to see what it does to your audio now, and \
        'pw-policy explain NAME' to see why. Exit status: 0 ok, 1 not found, 64 usage, \
        65 not a pw-dump, 66 unreadable input, 69 PipeWire or the agent unavailable, 70 internal error, 77 not permitted, \
        78 configuration error.
        """,
        version: VersionCommand.text,
        subcommands: [
            StatusCommand.self, ExplainCommand.self, SetCommand.self, UnsetCommand.self,
            SilentCommand.self, ResumeCommand.self, MonitorCommand.self, CheckConfigCommand.self,
            LaunchCommand.self, SimulateCommand.self, RunCommand.self, RestoreCommand.self, DumpCommand.self, VersionCommand.self,
        ]
    )
}

/// Options every command that talks to PipeWire shares.
struct RemoteOptions: ParsableArguments {
    @Option(name: [.short, .long], help: "The PipeWire remote to connect to (default: $PIPEWIRE_REMOTE or pipewire-0).")
    var remote: String?
}
