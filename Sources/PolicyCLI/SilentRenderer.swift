import PolicyCore

/// How `silent` reports the switch: from the agent's status, or only the
/// switch's value while it has published none.
public enum SilentRenderer {
    public static let type = "PwPolicy:SilentMode"

    /// `silent mode: on (following Do Not Disturb (on in dunst))`; the
    /// reason only from agents that publish it.
    public static func text(_ on: Bool, agent: AgentStatus? = nil, style: TextStyle = .plain) -> String {
        "silent mode: " + (on ? style.magenta("on") : "off") + (agent?.silentModeReason.map { " (\($0))" } ?? "")
    }

    /// Absent fields: the agent did not say.
    private struct Info: Encodable {
        var silentMode: Bool
        var reason: String?
        var choice: SilentChoice?
        var doNotDisturb: String?
    }

    public static func json(_ on: Bool, agent: AgentStatus? = nil) -> String {
        CLIJSON.render([CLIJSON.Entry(id: 0, type: type, info: Info(
            silentMode: on, reason: agent?.silentModeReason, choice: agent?.silentChoice,
            doNotDisturb: agent?.doNotDisturb))])
    }
}
