import PolicyCore

/// MPRIS properties (GetAll replies and PropertiesChanged) applied to a
/// `MediaPlayer`. A property of the wrong type is skipped and named in the
/// result, so the observer can log it; the player keeps what it had.
enum MPRISProperties {
    /// Where every MPRIS player has its object.
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// Applies `properties` of `interface`; returns the names of those that
    /// had the wrong type.
    static func apply(_ properties: [String: BusValue], of interface: String, to player: inout MediaPlayer) -> [String] {
        var malformed: [String] = []
        func set<T>(_ name: String, _ read: (BusValue) -> T?, _ assign: (T) -> Void) {
            guard let value = properties[name] else { return }
            if let typed = read(value) { assign(typed) } else { malformed.append(name) }
        }
        switch interface {
        case rootInterface:
            set("Identity", \.string) { player.identity = $0 }
        case playerInterface:
            set("PlaybackStatus", \.string) { player.status = PlaybackStatus(raw: $0) }
            set("CanPause", \.bool) { player.canPause = $0 }
            set("CanPlay", \.bool) { player.canPlay = $0 }
            set("CanGoNext", \.bool) { player.canGoNext = $0 }
            set("CanGoPrevious", \.bool) { player.canGoPrevious = $0 }
            set("Metadata", \.stringDictionary) { metadata in
                // Metadata is replaced whole: a field it lacks is gone.
                player.trackID = metadata["mpris:trackid"]?.string
                player.title = metadata["xesam:title"]?.string
                player.url = metadata["xesam:url"]?.string
                player.artist = metadata["xesam:artist"]?.strings
                player.album = metadata["xesam:album"]?.string
                player.artURL = metadata["mpris:artUrl"]?.string
                player.length = metadata["mpris:length"]?.int64
                for key in ["mpris:trackid", "xesam:title", "xesam:url", "xesam:album", "mpris:artUrl"]
                    where metadata[key] != nil && metadata[key]?.string == nil {
                    malformed.append("Metadata \(key)")
                }
                if metadata["xesam:artist"] != nil, player.artist == nil { malformed.append("Metadata xesam:artist") }
                if metadata["mpris:length"] != nil, player.length == nil { malformed.append("Metadata mpris:length") }
            }
        default:
            break
        }
        return malformed
    }

    /// Properties the player says changed without their value: forgotten
    /// until re-read.
    static func invalidate(_ names: [String], of interface: String, in player: inout MediaPlayer) {
        for name in names {
            switch (interface, name) {
            case (rootInterface, "Identity"): player.identity = nil
            case (playerInterface, "PlaybackStatus"): player.status = .unknown("")
            case (playerInterface, "CanPause"): player.canPause = nil
            case (playerInterface, "CanPlay"): player.canPlay = nil
            case (playerInterface, "CanGoNext"): player.canGoNext = nil
            case (playerInterface, "CanGoPrevious"): player.canGoPrevious = nil
            case (playerInterface, "Metadata"):
                player.trackID = nil; player.title = nil; player.url = nil
                player.artist = nil; player.album = nil; player.artURL = nil; player.length = nil
            default: break
            }
        }
    }
}
