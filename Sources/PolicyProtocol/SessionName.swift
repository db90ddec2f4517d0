import PolicyModel
import PolicyStack

/// How people read a session (docs/CLI.md, "Names"): its app's display name
/// in quotes and, when another session in view has the same name, which of
/// them it is — `"Chromium" (playback)`, or for two running copies of one app
/// in one category `"pw-play" (playback, pid 4711)`. Events, statuses,
/// explanations and the log all name a session this way, never by its key.
public struct SessionName: Sendable, Hashable, CustomStringConvertible {
    public var app: String
    /// Which of the sessions with this name; nil when the name alone says it.
    public var which: String?

    public init(app: String, which: String? = nil) {
        self.app = app; self.which = which
    }

    public var description: String {
        let quoted = "\"" + app + "\""
        guard let which else { return quoted }
        return quoted + " (" + which + ")"
    }

    /// A session nothing remembers a name for (a journal written before
    /// names were kept): still not its key.
    public static let unknown = SessionName(app: "unknown app")
}
