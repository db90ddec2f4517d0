import ArgumentParser
import PolicyCLI
import PolicyCore

/// `pw-policy silent`: the silent switch.
struct SilentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silent",
        abstract: "Turn silent mode on or off, toggle it, follow Do Not Disturb, or show it.",
        discussion: """
        Silent mode silences what you did not explicitly ask to hear (categories ambient, \
        solo-ambient and system-sound by default) and never playback, recordings or calls. \
        It follows the desktop's Do Not Disturb (KDE Plasma, GNOME, dunst); on, off and \
        toggle are your choice, which wins until Do Not Disturb changes again or 'follow'. \
        The agent remembers it across restarts.
        """)

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var display: DisplayOptions
    @Argument(help: ArgumentHelp("on, off, toggle, follow or status.", valueName: "action"),
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
            let agent = session.snapshot.agent
            let current = session.snapshot.silentMode ?? false
            guard let wanted = action.target(current: current) else {
                print(display.json ? SilentRenderer.json(current, agent: agent)
                                   : SilentRenderer.text(current, agent: agent, style: display.style))
                return
            }
            try session.write(ControlWrites.silentMode(wanted))
            // An agent that publishes the switch confirms it; an older one only on and off.
            let confirmed = session.waitForAgent { snapshot in
                guard let agent = snapshot.agent else { return false }
                if let choice = agent.silentChoice { return choice == wanted }
                return wanted != .follow && agent.silentMode == (wanted == .on)
            }
            guard confirmed, let now = session.snapshot.agent else {
                let shown = wanted == .follow ? "silent mode: following Do Not Disturb" : SilentRenderer.text(wanted == .on, style: display.style)
                print(shown + " (requested; the agent has not confirmed it yet)")
                return
            }
            print(SilentRenderer.text(now.silentMode, agent: now, style: display.style))
        }
    }
}
