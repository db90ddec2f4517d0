/// What the session bus adapter saw (docs/PLAYERS.md).
public enum PlayerObservation: Sendable, Equatable {
    /// The players, and the parent of each process that plays a stream
    /// (PlayerMatching walks up from a stream's process to a player's).
    case watched(PlayerSet, ancestry: [Int32: Int32])
    /// No session bus, or it went away: why, in words.
    case unwatched(String)

    /// Which player controls which stream; none when unwatched.
    public func matches(in graph: Graph) -> [UInt32: PlayerMatch] {
        guard case .watched(let players, let ancestry) = self else { return [:] }
        return PlayerMatching.match(players: players, graph: graph, ancestry: ancestry)
    }

    public var summary: String {
        switch self {
        case .watched(let players, _): "\(players.count) MPRIS \(players.count == 1 ? "player" : "players") on the session bus"
        case .unwatched(let why): "not watched: \(why)"
        }
    }
}
