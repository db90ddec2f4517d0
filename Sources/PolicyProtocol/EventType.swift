import PolicyModel
import PolicyStack

/// Every kind of event: those the agent publishes under
/// `AgentProtocol.eventKey`, and the three `pw-policy monitor` adds about the
/// agent itself. Declared once, here; the docs list them all (a test checks
/// docs/PROTOCOL.md and docs/CLI.md against this list).
public enum EventType: String, Codable, Sendable, CaseIterable {
    case streamClassified = "stream-classified"
    case interruptionBegan = "interruption-began"
    /// With `shouldResume`.
    case interruptionEnded = "interruption-ended"
    case duckBegan = "duck-began"
    case duckEnded = "duck-ended"
    case silenced
    case unsilenced
    /// With `reason`: new-device-available, old-device-unavailable, user-choice.
    case routeChanged = "route-changed"
    case heldForRoute = "held-for-route"
    case resumed
    case silentMode = "silent-mode"
    case presenting
    /// With `reason`: locked or unlocked.
    case screenLock = "screen-lock"
    /// With `reason`: SIGHUP or file-changed.
    case configReloaded = "config-reloaded"
    case configRejected = "config-rejected"
    /// With `reason`: the key, or `refused` when it did nothing.
    case mediaKey = "media-key"
    // The monitor's own: the agent came, went, or published faster than it read.
    case agentStarted = "agent-started"
    case agentStopped = "agent-stopped"
    case eventsMissed = "events-missed"

    /// Whether the agent publishes it (the others are the monitor's own).
    public var isPublishedByTheAgent: Bool {
        switch self {
        case .agentStarted, .agentStopped, .eventsMissed: false
        default: true
        }
    }

    /// How it reads to a person, for the monitor's colours.
    public enum Tone: Sendable { case stopped, quieter, silenced, back, news }

    public var tone: Tone {
        switch self {
        case .interruptionBegan, .heldForRoute, .configRejected, .agentStopped: .stopped
        case .duckBegan: .quieter
        case .silenced, .silentMode, .presenting, .screenLock: .silenced
        case .interruptionEnded, .duckEnded, .unsilenced, .resumed, .agentStarted: .back
        case .streamClassified, .routeChanged, .configReloaded, .mediaKey, .eventsMissed: .news
        }
    }
}
