/// One MPRIS player on the session bus, as the observer last saw it: who it
/// is (its bus names and process), what it plays and whether it can be
/// paused and played. Plain values, no D-Bus types (docs/PLAYERS.md).
public struct MediaPlayer: Sendable, Equatable, Hashable {
    /// The well-known name it owns, `org.mpris.MediaPlayer2.<name>[.instance<N>]`.
    public var busName: String
    /// The connection that owns it (`:1.42`); a new owner is a new player.
    public var uniqueName: String
    /// The bus connection's process (GetConnectionUnixProcessID), nil when the
    /// bus would not say. For a Flatpak app this is its D-Bus proxy's process.
    public var pid: Int32?
    /// The Flatpak app of that process (`[Application] name` of its
    /// `/.flatpak-info`), nil when it is not in a Flatpak sandbox.
    public var flatpakAppID: String?
    /// The Flatpak instance (`[Instance] instance-id`), when known.
    public var flatpakInstanceID: String?
    /// `org.mpris.MediaPlayer2.Identity`: the player's own name for itself.
    public var identity: String?
    public var status: PlaybackStatus
    /// `Metadata` `mpris:trackid`, `xesam:title`, `xesam:url`.
    public var trackID: String?
    public var title: String?
    public var url: String?
    /// `xesam:artist`, `xesam:album`, `mpris:artUrl`, `mpris:length` (µs):
    /// mirrored by the media-key proxy, used for nothing else.
    public var artist: [String]?
    public var album: String?
    public var artURL: String?
    public var length: Int64?
    /// `CanPause` / `CanPlay`; nil when the player did not say (the
    /// specification's default for a missing property is unclear, so the
    /// caller decides).
    public var canPause: Bool?
    public var canPlay: Bool?
    /// `CanGoNext` / `CanGoPrevious`, mirrored by the media-key proxy.
    public var canGoNext: Bool?
    public var canGoPrevious: Bool?

    public init(busName: String, uniqueName: String, pid: Int32? = nil, flatpakAppID: String? = nil,
                flatpakInstanceID: String? = nil, identity: String? = nil, status: PlaybackStatus = .unknown(""),
                trackID: String? = nil, title: String? = nil, url: String? = nil,
                canPause: Bool? = nil, canPlay: Bool? = nil, canGoNext: Bool? = nil, canGoPrevious: Bool? = nil) {
        self.busName = busName; self.uniqueName = uniqueName; self.pid = pid
        self.flatpakAppID = flatpakAppID; self.flatpakInstanceID = flatpakInstanceID
        self.identity = identity; self.status = status
        self.trackID = trackID; self.title = title; self.url = url
        self.canPause = canPause; self.canPlay = canPlay
        self.canGoNext = canGoNext; self.canGoPrevious = canGoPrevious
    }

    /// The prefix every MPRIS player's bus name has.
    public static let busNamePrefix = "org.mpris.MediaPlayer2."

    /// Whether `name` is an MPRIS player's well-known name.
    public static func isPlayerBusName(_ name: String) -> Bool {
        name.hasPrefix(busNamePrefix) && name.count > busNamePrefix.count
    }
}
