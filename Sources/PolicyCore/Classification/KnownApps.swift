/// What kind of program a well-known desktop app is. Most real apps set no
/// `media.role`, so their identity is the best evidence of what their audio means.
public enum KnownAppKind: String, CaseIterable, Sendable, Hashable {
    case browser
    case musicPlayer = "music player"
    case videoPlayer = "video player"
    case podcastPlayer = "podcast/audiobook player"
    case voip = "VoIP app"
    case recorder
    case screenReader = "screen reader/speech synthesizer"
    case alarmClock = "alarm clock"
    case gameRuntime = "game runtime"
    case gameLauncher = "game launcher"
    case systemSounds = "desktop shell/notification sounds"
    case audioProcessing = "audio effects/DSP app"
    case meter = "level meter/visualizer"
}

/// A stream recognised as coming from a well-known app.
public struct KnownAppMatch: Sendable, Equatable {
    public var kind: KnownAppKind
    /// The property that identified it and its value, e.g.
    /// `pipewire.access.portal.app_id` = `com.spotify.Client`.
    public var property: String
    public var value: String
    /// The table entry that matched, e.g. `spotify`.
    public var name: String

    /// `application.process.binary = "spotify" (known music player)`, naming
    /// the table entry when the value is spelled differently.
    public var evidence: String {
        let entry = value.lowercased() == name ? "" : ": \(name)"
        return "\(property) = \"\(value)\" (known \(kind.rawValue)\(entry))"
    }
}

/// The table of well-known apps, matched on the binary, sandbox app id,
/// `application.id`, `application.name` and `node.name`, in that order
/// (the binary is the hardest to get wrong; Electron apps often report
/// `application.name` "Chromium").
public enum KnownApps {
    /// Names are lower case; spaces in property values are read as `-`.
    /// A name also matches when followed by a separator (`firefox-esr`,
    /// `google-chrome-stable`, `kodi.bin`, `VLC media player (LibVLC …)`);
    /// a name ending in `*` matches any value starting with the rest (`sd_*`).
    /// Reverse-DNS app ids also match on their parts (`com.spotify.Client` → `spotify`).
    public static let table: [(kind: KnownAppKind, names: [String])] = [
        (.browser, [
            "firefox", "librewolf", "waterfox", "floorp", "zen", "zen-browser", "icecat", "seamonkey", "palemoon",
            "torbrowser", "tor-browser", "chromium", "chromium-browser", "chrome", "google-chrome", "thorium",
            "brave", "brave-browser", "vivaldi", "vivaldi-bin", "opera", "microsoft-edge", "msedge",
            "com.microsoft.edge", "yandex-browser", "epiphany", "webkitwebprocess", "falkon", "qutebrowser",
            "midori", "konqueror", "ungoogled-chromium",
        ]),
        (.musicPlayer, [
            "spotify", "spotube", "rhythmbox", "rhythmbox3", "lollypop", "strawberry", "clementine", "audacious",
            "elisa", "amarok", "quodlibet", "quod-libet", "deadbeef", "cmus", "mpd", "music-player-daemon",
            "mopidy", "ncspot", "amberol", "gnome-music", "org.gnome.music", "tauon", "tauonmb", "exaile",
            "guayadeque", "sayonara", "g4music", "gapless", "fooyin", "qmmp", "mocp", "musikcube", "termusic",
            "shortwave", "goodvibes", "pithos", "sublime-music", "feishin", "supersonic", "tidal-hifi",
            "youtube-music", "nuclear", "museeks", "cider", "psst-gui", "harmonoid",
            // Streaming services, as their web apps are named.
            "deezer", "soundcloud", "apple-music", "amazon-music", "tidal", "pandora",
        ]),
        (.videoPlayer, [
            "vlc", "mpv", "totem", "org.gnome.totem", "celluloid", "gnome-mpv", "smplayer", "kodi", "haruna",
            "dragon", "dragonplayer", "parole", "showtime", "clapper", "mplayer", "xine", "kaffeine", "qmplay2",
            "hypnotix", "freetube", "jellyfinmediaplayer", "jellyfin-media-player", "plexmediaplayer",
            "plex-htpc", "stremio", "kmplayer", "ffplay",
            // Video services, as their web apps are named.
            "youtube", "netflix", "twitch",
        ]),
        (.podcastPlayer, [
            "gpodder", "kasts", "cozy", "pocket-casts", "podcasts", "gnome-podcasts", "vocal", "castero", "shellcaster",
        ]),
        (.voip, [
            "zoom", "teams", "teams-for-linux", "ms-teams", "microsoft-teams", "skype", "skypeforlinux",
            "discord", "discordcanary", "discordptb", "vesktop", "webcord", "armcord", "legcord",
            "webrtc-voiceengine", "slack", "telegram", "telegram-desktop", "telegramdesktop", "signal",
            "signal-desktop", "element", "element-desktop", "riot", "nheko", "fractal", "mumble", "linphone",
            "jami", "jami-qt", "baresip", "webex", "jitsi", "jitsi-meet", "zoiper", "zoiper5", "twinkle",
            "ekiga", "gnome-calls", "org.gnome.calls", "mattermost", "mattermost-desktop", "wire", "qtox",
            "utox", "viber", "whatsapp-for-linux", "whatsie", "wasistlos", "teamspeak", "teamspeak3",
            "ts3client", "guilded",
            // Call services, as their web apps are named.
            "google-meet", "google-chat", "whatsapp", "whatsapp-web",
        ]),
        (.recorder, [
            "obs", "obs-studio", "obsproject", "audacity", "gnome-sound-recorder", "soundrecorder",
            "sound-recorder", "audio-recorder", "krecorder", "simplescreenrecorder", "kazam", "kooha",
            "vokoscreen", "vokoscreenng", "gpu-screen-recorder", "wf-recorder", "green-recorder",
            "blue-recorder", "recordmydesktop", "spectacle",
            // Digital audio workstations: a session is where takes are
            // recorded, so what they capture is a recording.
            "ardour", "ardour6", "ardour7", "ardour8", "mixbus", "reaper", "bitwig-studio", "qtractor",
            "zrythm", "rosegarden", "traverso",
        ]),
        (.screenReader, [
            "orca", "speech-dispatcher", "speechd", "sd_*", "espeak", "espeak-ng", "spd-say", "festival", "fenrir",
        ]),
        (.alarmClock, [
            "gnome-clocks", "org.gnome.clocks", "kclock", "alarm-clock-applet",
        ]),
        // Runtimes that nearly always run games (docs/CLASSIFICATION.md, "The
        // real-world corpus"): Wine/Proton's loader, which every Windows game's
        // stream names as its binary, SDL's name for an app that set none, and
        // console and computer emulators.
        (.gameRuntime, [
            "wine-preloader", "wine64-preloader", "sdl-application",
            "retroarch", "dolphin-emu", "pcsx2", "pcsx2-qt", "rpcs3", "ppsspp", "ppssppsdl", "ppssppqt",
            "duckstation", "duckstation-qt", "cemu", "yuzu", "ryujinx", "citra", "citra-qt", "lime3ds",
            "azahar", "mgba", "mgba-qt", "snes9x", "snes9x-gtk", "bsnes", "higan", "mupen64plus", "desmume",
            "melonds", "xemu", "xenia", "flycast", "redream", "mednafen", "vita3k", "shadps4", "scummvm",
            "dosbox", "dosbox-staging", "dosbox-x", "fs-uae", "hatari", "x64sc", "stella", "primehack",
        ]),
        (.gameLauncher, [
            "steam", "steamwebhelper", "lutris", "heroic", "bottles", "itch", "minigalaxy", "gamehub",
        ]),
        (.systemSounds, [
            "gnome-shell", "mutter", "gsd-media-keys", "gsd-power", "plasmashell", "kwin_wayland", "kwin_x11", "cinnamon",
            "budgie-panel", "xfce4-notifyd", "dunst", "mako", "swaync", "lxqt-notificationd",
            "canberra-gtk-play", "libcanberra", "gsound-play",
        ]),
        (.audioProcessing, [
            "easyeffects", "pulseeffects", "carla", "jamesdsp", "noisetorch", "pulsemeeter", "cadmus",
            // The audio server's own streams (loopback, filter-chain,
            // tunnels): plumbing of virtual devices, not anyone's audio.
            "pipewire", "pipewire-pulse", "wireplumber",
            // Remote desktop and game streaming servers: they capture the
            // desktop's sound to play it on another machine, recording nothing.
            "sunshine", "xrdp", "xrdp-sesman", "rustdesk", "gnome-remote-desktop", "krdp", "krfb",
            // SteamVR's server relays sound between the desktop and the headset, the same kind of bridge.
            "vrserver",
        ]),
        (.meter, [
            "cava", "projectm", "glava", "vis", "friture", "pavucontrol", "pavucontrol-qt",
            "pulseaudio-volume-control", "pwvucontrol", "gnome-control-center", "mate-volume-control",
        ]),
    ]

    /// Properties looked at, in order of trust.
    public static let identityProperties = [
        "application.process.binary", "pipewire.access.portal.app_id", "application.id",
        "application.name", "node.name",
    ]

    public static func match(nodeProps: [String: String], clientProps: [String: String]) -> KnownAppMatch? {
        match(StreamProperties(node: nodeProps, client: clientProps))
    }

    static func match(_ props: StreamProperties) -> KnownAppMatch? {
        for property in identityProperties {
            guard let value = props[property] else { continue }
            let isAppID = property == "application.id" || property == "pipewire.access.portal.app_id"
            // An ALSA plug-in names the client after the program in brackets.
            let name = property == "application.name" ? ALSAPluginName.program(ofApplicationName: value) ?? value : value
            if let (name, kind) = lookup(name, isAppID: isAppID) {
                return KnownAppMatch(kind: kind, property: property, value: value, name: name)
            }
        }
        return nil
    }

    /// The kind of the app a single identity value names, if known.
    public static func kind(of value: String, isAppID: Bool = false) -> KnownAppKind? {
        lookup(value, isAppID: isAppID)?.kind
    }

    private static func lookup(_ value: String, isAppID: Bool) -> (name: String, kind: KnownAppKind)? {
        let normalized = value.lowercased().replacingSpaces()
        if let hit = lookupName(normalized) { return hit }
        // Reverse-DNS ids name the app in their last parts: org.mozilla.firefox,
        // com.spotify.Client (the vendor here), io.github.celluloid_player.Celluloid.
        guard isAppID else { return nil }
        let parts = normalized.split(separator: ".")
        guard parts.count >= 3 else { return nil }
        for part in parts.dropFirst().reversed() {
            if let hit = lookupName(String(part)) { return hit }
        }
        return nil
    }

    private static func lookupName(_ value: String) -> (name: String, kind: KnownAppKind)? {
        if let kind = exactNames[value] { return (value, kind) }
        // Longest prefix first: "google-chrome-stable" is google-chrome, not a "google".
        let separators: Set<Character> = ["-", "_", ".", "("]
        var index = value.endIndex
        while let cut = value[..<index].lastIndex(where: { separators.contains($0) }) {
            let prefix = String(value[..<cut])
            if let kind = exactNames[prefix] { return (prefix, kind) }
            index = cut
        }
        for (prefix, kind) in prefixNames where value.hasPrefix(prefix) {
            return (prefix + "*", kind)
        }
        return nil
    }

    private static let exactNames: [String: KnownAppKind] = {
        var names: [String: KnownAppKind] = [:]
        for (kind, list) in table {
            for name in list where !name.hasSuffix("*") { names[name] = kind }
        }
        return names
    }()

    private static let prefixNames: [(prefix: String, kind: KnownAppKind)] =
        table.flatMap { kind, list in list.filter { $0.hasSuffix("*") }.map { (String($0.dropLast()), kind) } }
}

extension String {
    /// "VLC media player" → "vlc-media-player": names in the table use dashes.
    fileprivate func replacingSpaces() -> String {
        String(map { $0 == " " || $0 == "\t" ? "-" : $0 })
    }
}
