/// Every MPRIS player on the session bus at one moment: the value the
/// observer reports whenever anything about any player changed.
public struct PlayerSet: Sendable, Equatable {
    /// By well-known bus name.
    public var players: [String: MediaPlayer]

    public init(_ players: [MediaPlayer] = []) {
        self.players = Dictionary(players.map { ($0.busName, $0) }) { _, last in last }
    }

    public static let empty = PlayerSet()

    public subscript(busName: String) -> MediaPlayer? {
        get { players[busName] }
        set { players[busName] = newValue }
    }

    /// Sorted by bus name: the order ties are broken in and lists are shown in.
    public var sorted: [MediaPlayer] { players.values.sorted { $0.busName < $1.busName } }

    public var isEmpty: Bool { players.isEmpty }
    public var count: Int { players.count }
}
