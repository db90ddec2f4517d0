/// The app-knowledge step of classification (docs/CLASSIFICATION.md, "App
/// knowledge"): after the user's override, the stream's own `policy.*` and the
/// config's rules, before built-in inference. It decides from what the desktop
/// knows about the app (`AppFacts`) when the stream's own properties do not
/// already say precisely what it is.
public enum AppKnowledge {
    public static func decide(_ facts: StreamFacts) -> InferredCategory? {
        guard let app = facts.app else { return nil }
        let props = StreamProperties(node: facts.nodeProps, client: facts.clientProps)
        let direction = facts.direction
        let tool = takesItsRoleFromItsCaller(app, props)
        if let recording = recording(app, props: props, facts: facts) { return recording }
        if streamSaysWhatItIs(props, direction: direction, tool: tool) { return nil }

        if let helper = notificationHelper(app, direction: direction) { return helper }
        // A tool plays for whoever called it: only that caller says what for
        // — a notification daemon, or a person at a terminal (below).
        if tool, !typedInATerminal(app) { return nil }
        // A file of the sound themes says what it is, whatever plays it (a
        // script ringing the theme's bell through mpv).
        if direction == .playback, let sound = app.arguments.dropFirst().first(where: SoundThemeFile.isSoundThemeFile) {
            let program = app.executable ?? app.arguments.first.map(DesktopExec.basename) ?? "the program"
            return InferredCategory(.systemSound, evidence:
                "\(program) plays \(sound), a file of the desktop's sound themes: an alert or UI sound")
        }
        if let found = app.entry, let decided = fromEntry(found, app: app, props: props, facts: facts) {
            return decided
        }
        if let launcher = app.launcher {
            return game(evidence: launcher.evidence, facts: facts)
        }
        if direction == .playback, let media = mediaArgument(app.arguments) {
            let program = app.executable ?? app.arguments.first.map(DesktopExec.basename) ?? "the program"
            return InferredCategory(.playback, evidence:
                "\(program) was given \(media) to play: the user chose what it plays")
        }
        return nil
    }

    // MARK: what the stream says

    /// Roles that a library sets for any stream of any app, and so say less
    /// than the app does: SDL's PipeWire backend labels every stream `Game`,
    /// pw-cat `Music`, pipewire-jack every JACK client `DSP`.
    static let genericRoles: Set<String> = ["music", "movie", "video", "multimedia", "game"]

    /// The stream names itself precisely: a meter or plumbing, an event
    /// sound, a role other than a library's default. Then inference, which
    /// reads exactly that, decides.
    static func streamSaysWhatItIs(_ props: StreamProperties, direction: StreamDirection, tool: Bool = false) -> Bool {
        if RoleInference.meterOrPlumbing(props, direction: direction) != nil { return true }
        if RoleInference.eventSound(props, direction: direction) != nil { return true }
        if RoleInference.soundThemeSound(props, direction: direction) != nil { return true }
        if let role = props["media.role"]?.classifierTrimmed().lowercased(), RoleInference.meaning(ofRole: role) != nil {
            let jackDefault = role == "dsp" && props["client.api"]?.lowercased() == "jack"
            if (tool || !genericRoles.contains(role)) && !jackDefault { return true }
        }
        return false
    }

    /// Command-line players and recorders whose role is whatever their
    /// caller gave them (`pw-play --media-role Game`, `paplay
    /// --property=media.role=…`): for them a role counts whatever it is, and
    /// neither the file they were given nor their own (absent) desktop entry
    /// says what it is for; only who started them may (a notification
    /// daemon). Copies named like apps (the tests' `linphone`) are those apps.
    static let roleTakingTools: Set<String> = ["pw-cat", "pw-play", "pw-record", "paplay", "pacat", "parec", "parecord"]

    /// Started by a terminal emulator (through its shell): a person typed it.
    static func typedInATerminal(_ app: AppFacts) -> Bool {
        guard let starter = app.starter else { return false }
        if let entry = starter.entry, AppFamily.families(of: entry, isGameLauncher: false).contains(.terminal) { return true }
        return terminalPrograms.contains(starter.name)
    }

    /// Terminal emulators, for those whose desktop entry names another program.
    static let terminalPrograms: Set<String> = [
        "gnome-terminal-server", "konsole", "xterm", "uxterm", "alacritty", "kitty", "foot", "wezterm-gui", "tilix",
        "xfce4-terminal", "lxterminal", "mate-terminal", "terminator", "urxvt", "rxvt", "st", "kgx", "ptyxis-agent",
    ]

    static func takesItsRoleFromItsCaller(_ app: AppFacts, _ props: StreamProperties) -> Bool {
        let program = app.executable ?? props["application.process.binary"]
        return program.map(roleTakingTools.contains) ?? false
    }

    // MARK: notification helpers

    /// Programs that show notifications for other apps and may run a command
    /// on each (dunst's and mako's `script`/`on-notify`, swaync's scripts).
    public static let notificationDaemons: Set<String> = [
        "dunst", "mako", "swaync", "xfce4-notifyd", "lxqt-notificationd", "notification-daemon",
        "mate-notification-daemon", "notify-osd", "deadd-notification-center", "fnott", "wired",
    ]

    /// A program with no desktop entry of its own (`paplay`, `pw-play`,
    /// `canberra-gtk-play`, `mpv` in a script) started by a notification
    /// daemon or a messenger plays that notification.
    static func notificationHelper(_ app: AppFacts, direction: StreamDirection) -> InferredCategory? {
        // An entry found through the unit its starter runs in is the starter's.
        let ownEntry = app.entry.map { !$0.isTheStarters } ?? false
        guard direction == .playback, !ownEntry, app.launcher == nil, let starter = app.starter else { return nil }
        let program = app.executable ?? app.arguments.first.map(DesktopExec.basename) ?? "a program"
        if notificationDaemons.contains(starter.name) {
            return InferredCategory(.systemSound, evidence:
                "notification helper: \(program) started by \(starter.name), a notification daemon")
        }
        let messenger = starter.entry.map {
            AppFamily.families(of: $0, isGameLauncher: false).contains { $0 == .messenger || $0 == .callApp }
        } ?? false
        if messenger || KnownApps.kind(of: starter.name) == .voip {
            return InferredCategory(.systemSound, evidence:
                "notification helper: \(program) started by \(starter.name), a messenger")
        }
        return nil
    }

    // MARK: desktop entries

    static func fromEntry(_ found: FoundDesktopEntry, app: AppFacts, props: StreamProperties,
                          facts: StreamFacts) -> InferredCategory? {
        let entry = found.entry
        let families = families(of: found, app: app)
        let source = describe(found)
        for family in families {
            if family == .terminal { return nil }
            if let decided = decide(family, source: source, props: props, direction: facts.direction,
                                    other: facts.instance.otherSide, launcher: app.launcher) {
                return decided.category == nil ? nil : decided.category.map {
                    InferredCategory($0, decided.options, mode: decided.mode, evidence: decided.evidence)
                }
            }
        }
        if entry.isWebApp { return WebAppJudgement.decide(entry, source: source, props: props, facts: facts) }
        return nil
    }

    /// The families of the entry found; a web app's entry filed under
    /// `WebBrowser` (PWAsForFirefox copies what the site declares) is no browser.
    static func families(of found: FoundDesktopEntry, app: AppFacts) -> [AppFamily] {
        let entry = found.entry
        let launcherNames = [entry.program, app.executable].compactMap { $0 }
        let isGameLauncher = launcherNames.contains { KnownApps.kind(of: $0) == .gameLauncher }
            || KnownApps.kind(of: entry.id, isAppID: true) == .gameLauncher
        let families = AppFamily.families(of: entry, isGameLauncher: isGameLauncher)
        return entry.isWebApp ? families.filter { $0 != .browser } : families
    }

    /// `desktop entry org.gnome.Rhythmbox3 (Categories=…), launched in …`;
    /// a web app's with its name: `web app "Google Meet" (desktop entry …)`.
    static func describe(_ found: FoundDesktopEntry) -> String {
        let entry = found.entry
        let categories = entry.categories.map { "\($0);" }.joined()
        let described = "desktop entry \(entry.id) (Categories=\(categories)), \(found.how)"
        guard entry.isWebApp else { return described }
        return "web app \"\(entry.name ?? entry.id)\" (\(described))"
    }

    /// A capture of what plays by an app the desktop knows (`DesktopRecording`):
    /// sound settings meter it, an effects app or a meter processes it, an
    /// app whose entry says it records or edits records it.
    static func recording(_ app: AppFacts, props: StreamProperties, facts: StreamFacts) -> InferredCategory? {
        guard let what = DesktopRecording.capturesWhatPlays(props, direction: facts.direction) else { return nil }
        if let program = app.executable, let kind = KnownApps.kind(of: program), kind == .meter || kind == .audioProcessing {
            return InferredCategory(.audioProcessing, evidence: "\(what), by \(program) (a known \(kind.rawValue))")
        }
        guard let found = app.entry, !found.isTheStarters else { return nil }
        let families = AppFamily.families(of: found.entry, isGameLauncher: false)
        if families.contains(.settings) {
            return InferredCategory(.audioProcessing, evidence: "\(what), by \(describe(found)): sound settings capturing, a level meter")
        }
        guard families.contains(where: { $0 == .recorder || $0 == .editor }) else { return nil }
        return DesktopRecording.decide(props, direction: facts.direction, instance: facts.instance,
                                       recorder: describe(found))
    }

    /// A family's decision; `category` nil means "leave it to inference"
    /// (an app playing and capturing at once is a call, which inference says).
    struct Decision {
        var category: Category?
        var options: Set<PolicyOption> = []
        var mode: AudioMode = .default
        var evidence: String = ""
    }

    static func decide(_ family: AppFamily, source: String, props: StreamProperties, direction: StreamDirection,
                       other: InstanceStream?, launcher: LauncherMark?) -> Decision? {
        let playback = direction == .playback
        let duplex = other != nil
        switch family {
        case .terminal:
            return Decision(category: nil)
        case .gameLauncher:
            // A game it started carries the launcher's mark; the launcher's
            // own sounds (store trailers, friends' pings) mix and are silenced
            // in silent mode; its microphone is voice chat.
            if let launcher, launcher.launchesGames { return gameDecision(launcher.evidence, playback: playback, other: other) }
            return playback
                ? Decision(category: .ambient, evidence: "\(source): a game launcher's own sounds")
                : Decision(category: .playAndRecord, evidence: "\(source): a game launcher capturing, voice chat")
        case .game:
            return gameDecision("\(source): a game", playback: playback, other: other)
        case .callApp:
            return Decision(category: .playAndRecord, evidence: "\(source): a call app")
        case .accessibility:
            guard playback else { return nil }
            return Decision(category: .playback, options: [.duckOthers], mode: .spokenAudio,
                            evidence: "\(source): assistive technology speaking")
        case .clock:
            guard playback else { return nil }
            return Decision(category: .playback, evidence: "\(source): an alarm the user set")
        case .editor, .recorder:
            // A DAW or recorder plays what the user records or edits: its
            // playback and capture at once are no call.
            let what = family == .editor ? "an audio/video editor" : "a recorder"
            return playback
                ? Decision(category: .playback, evidence: "\(source): \(what) playing the user's work")
                : Decision(category: .record, evidence: "\(source): \(what) recording")
        case .player:
            if duplex { return Decision(category: nil) }
            return playback
                ? Decision(category: .playback, evidence: "\(source): a media player")
                : Decision(category: .record, evidence: "\(source): a media player recording")
        case .browser:
            if duplex { return Decision(category: nil) }
            return playback
                ? Decision(category: .playback, options: [.mixWithOthers], evidence: "\(source): a web browser")
                : Decision(category: .playAndRecord, evidence: "\(source): a web browser capturing, a web call")
        case .messenger:
            if let other {
                return Decision(category: .playAndRecord, evidence: "\(source): a messenger in a call, its app also has \(other.description)")
            }
            if !playback {
                return Decision(category: .playAndRecord, evidence: "\(source): a messenger capturing, a call")
            }
            if let (key, value) = RoleInference.namesACall(props) {
                return Decision(category: .playAndRecord, evidence: "\(source): a messenger, \(key) = \"\(value)\" names a call")
            }
            return Decision(category: .systemSound, evidence: "\(source): a messenger playing alone, rings and pings")
        case .settings:
            guard !playback else { return nil }
            return Decision(category: .audioProcessing, evidence: "\(source): sound settings capturing, a level meter")
        }
    }

    static func gameDecision(_ evidence: String, playback: Bool, other: InstanceStream?) -> Decision {
        // A game with its voice chat open is one call (inference's
        // plays-and-captures step); its microphone alone is voice chat.
        if other != nil { return Decision(category: nil) }
        return playback
            ? Decision(category: .soloAmbient, evidence: evidence)
            : Decision(category: .playAndRecord, evidence: "\(evidence), capturing: voice chat")
    }

    static func game(evidence: String, facts: StreamFacts) -> InferredCategory? {
        let decision = gameDecision(evidence, playback: facts.direction == .playback, other: facts.instance.otherSide)
        return decision.category.map { InferredCategory($0, evidence: decision.evidence) }
    }

    // MARK: media arguments

    /// File name extensions of audio and video files and playlists.
    static let mediaExtensions: Set<String> = [
        "mp3", "ogg", "oga", "opus", "flac", "wav", "m4a", "aac", "wma", "mka", "aiff", "aif", "ape", "wv",
        "mid", "midi", "mkv", "mp4", "m4v", "webm", "avi", "mov", "mpg", "mpeg", "ts", "3gp", "flv", "ogv", "wmv",
        "m3u", "m3u8", "pls",
    ]
    /// URL schemes of streams a player opens.
    static let streamSchemes = ["http://", "https://", "rtsp://", "rtmp://", "mms://", "udp://", "srt://"]

    /// The first argument (after `argv[0]`) naming a media file or a stream:
    /// `a media file (song.ogg)`.
    static func mediaArgument(_ arguments: [String]) -> String? {
        for argument in arguments.dropFirst() where !argument.hasPrefix("-") {
            let lower = argument.lowercased()
            if streamSchemes.contains(where: lower.hasPrefix) { return "a stream (\(argument))" }
            let name = DesktopExec.basename(lower)
            if let dot = name.lastIndex(of: "."), mediaExtensions.contains(String(name[name.index(after: dot)...])) {
                return "a media file (\(DesktopExec.basename(argument)))"
            }
        }
        return nil
    }
}
