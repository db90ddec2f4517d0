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

extension SessionKey {
    /// The category part of a key made by `AppIdentity.sessionKey`
    /// (`pid:4711/playback`); nil for a key of another shape.
    var category: String? {
        guard let slash = rawValue.lastIndex(of: "/") else { return nil }
        return String(rawValue[rawValue.index(after: slash)...])
    }

    /// The app instance of the key in words: `pid 4711`, `client 45`, a
    /// sandboxed app's id.
    var instance: String {
        let instance = rawValue.lastIndex(of: "/").map { String(rawValue[..<$0]) } ?? rawValue
        if instance.hasPrefix("app:") { return String(instance.dropFirst(4)) }
        guard let colon = instance.firstIndex(of: ":") else { return instance }
        return instance[..<colon] + " " + instance[instance.index(after: colon)...]
    }
}
