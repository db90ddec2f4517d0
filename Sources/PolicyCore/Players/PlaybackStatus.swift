/// An MPRIS player's `PlaybackStatus`. The specification has three values;
/// anything else a player sends is kept as it came, so a log or `status`
/// can show it, and is treated as neither playing nor paused.
public enum PlaybackStatus: Sendable, Equatable, Hashable, CustomStringConvertible {
    case playing, paused, stopped
    /// A value outside the specification, or "" before the player reported one.
    case unknown(String)

    public init(raw: String) {
        switch raw {
        case "Playing": self = .playing
        case "Paused": self = .paused
        case "Stopped": self = .stopped
        default: self = .unknown(raw)
        }
    }

    /// The value as MPRIS spells it.
    public var raw: String {
        switch self {
        case .playing: "Playing"
        case .paused: "Paused"
        case .stopped: "Stopped"
        case .unknown(let raw): raw
        }
    }

    public var description: String { raw.isEmpty ? "unknown" : raw }
}
