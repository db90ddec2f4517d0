import ArgumentParser
import PolicyCLI

/// `pw-policy silent`: the silent switch.
struct SilentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silent",
        abstract: "Turn silent mode on or off, toggle it, or show it.",
        discussion: """
        Silent mode silences what you did not explicitly ask to hear (categories ambient, \
        solo-ambient and system-sound by default) and never playback, recordings or calls. \
        The agent remembers it across restarts.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var display: DisplayOptions
    @Argument(help: ArgumentHelp("on, off, toggle or status.", valueName: "action"),
              completion: .list(SilentAction.allCases.map(\.rawValue)))
    var action: String = SilentAction.status.rawValue

    func validate() throws {
        do { _ = try SilentAction.parse(action) } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        try reportingFailures {
            let action = try SilentAction.parse(action)
            let session = try PipeWireSession.open(remote: remote.remote)
            _ = try session.requireAgent()
            let current = session.snapshot.silentMode ?? false
            guard let wanted = action.target(current: current) else {
                print(display.json ? SilentRenderer.json(current) : SilentRenderer.text(current, style: display.style))
                return
            }
            try session.write(ControlWrites.silentMode(wanted))
            let confirmed = session.waitForAgent { $0.agent?.silentMode == wanted }
            print(SilentRenderer.text(wanted, style: display.style) + (confirmed ? "" : " (requested; the agent has not confirmed it yet)"))
        }
    }
}
