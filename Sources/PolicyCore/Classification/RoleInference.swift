/// A category found by built-in inference, with what gave it away.
public struct InferredCategory: Sendable, Equatable {
    public var category: Category
    public var options: Set<PolicyOption>
    public var mode: AudioMode
    /// The deciding property and value, e.g. `media.role = "Music"`; the
    /// classifier appends the outcome (`→ playback`).
    public var evidence: String

    public init(_ category: Category, _ options: Set<PolicyOption> = [], mode: AudioMode = .default,
                evidence: String) {
        self.category = category; self.options = options; self.mode = mode; self.evidence = evidence
    }
}

/// Built-in inference (docs/CLASSIFICATION.md, step 4): what a stream most likely is when
/// neither the user, the app nor the config said. Steps, first that applies wins:
///
/// 0. a capture of what plays by an app that records → record;
/// 1. monitor, meter and plumbing streams → audio-processing (before the
///    role: meters often label their capture `media.role=Music`);
/// 1b. a file of the desktop's sound themes → system-sound;
/// 2. `media.role`;
/// 3. libcanberra-style event sounds → system-sound;
/// 4. one app instance playing and capturing at once → play-and-record;
/// 5. well-known app identities;
/// 6. a game audio library's name for a stream the program did not name → solo-ambient;
/// 7. a capture stream → record.
///
/// docs/CLASSIFICATION.md gives the reason for each.
public enum RoleInference {
    public static func infer(_ facts: StreamFacts) -> InferredCategory? {
        let props = StreamProperties(node: facts.nodeProps, client: facts.clientProps)
        let direction = facts.direction
        if let found = DesktopRecording.decide(props, direction: direction, instance: facts.instance) { return found }
        if let found = meterOrPlumbing(props, direction: direction) { return found }
        if let found = soundThemeSound(props, direction: direction) { return found }
        if let found = fromMediaRole(props, direction: direction) { return found }
        if let found = eventSound(props, direction: direction) { return found }
        if let other = facts.instance.otherSide {
            let app = AppIdentity.instanceKey(nodeProps: facts.nodeProps, clientProps: facts.clientProps)
            return InferredCategory(.playAndRecord, evidence:
                "the app (\(app)) also has \(other.description): it plays and captures at once, like a call")
        }
        if let found = fromKnownApp(props, direction: direction) { return found }
        if let found = gameLibraryDefaultName(props, direction: direction) { return found }
        if direction == .capture {
            return InferredCategory(.record, evidence: "a capture stream (media.class = \"Stream/Input/Audio\") nothing else classified")
        }
        return nil
    }

    // MARK: media.role

    /// What a `media.role` value means, in any case and in both the PipeWire
    /// (`Movie`, `Notification`, `Communication`, `Accessibility`) and the
    /// PulseAudio (`video`, `event`, `phone`, `a11y`) spelling.
    public struct RoleMeaning: Sendable, Equatable {
        public var category: Category
        public var options: Set<PolicyOption>
        public var mode: AudioMode
        /// What the role means on a capture stream, if anything. Roles
        /// describing content that is played mean nothing there: `pw-record`
        /// labels its capture `media.role=Music` by default, and that is a
        /// recording. A game's capture is its voice chat.
        public var onCapture: Category?
        /// Whether the role describes a playback stream at all (a screen
        /// recorder's role only labels what it captures).
        public var appliesToPlayback: Bool
        init(_ category: Category, _ options: Set<PolicyOption> = [], mode: AudioMode = .default,
             onCapture: Category? = nil, appliesToPlayback: Bool = true) {
            self.category = category; self.options = options; self.mode = mode
            self.onCapture = onCapture
            self.appliesToPlayback = appliesToPlayback
        }
    }

    public static let roles: [String: RoleMeaning] = [
        "music": RoleMeaning(.playback),
        "movie": RoleMeaning(.playback),
        "video": RoleMeaning(.playback),
        "multimedia": RoleMeaning(.playback),
        "game": RoleMeaning(.soloAmbient, onCapture: .playAndRecord),
        "animation": RoleMeaning(.ambient),
        "notification": RoleMeaning(.systemSound),
        "event": RoleMeaning(.systemSound),
        "phone": RoleMeaning(.playAndRecord, onCapture: .playAndRecord),
        "communication": RoleMeaning(.playAndRecord, onCapture: .playAndRecord),
        "accessibility": RoleMeaning(.playback, [.duckOthers], mode: .spokenAudio),
        "a11y": RoleMeaning(.playback, [.duckOthers], mode: .spokenAudio),
        "production": RoleMeaning(.audioProcessing, onCapture: .audioProcessing),
        // PipeWire's role for screencasts; on an audio capture (wf-recorder)
        // it is the desktop's sound being recorded.
        "screen": RoleMeaning(.record, onCapture: .record, appliesToPlayback: false),
        "dsp": RoleMeaning(.audioProcessing, onCapture: .audioProcessing),
        // PulseAudio's modules label their own streams so (combine-sink's
        // copies to each card, echo-cancel, ladspa-sink): plumbing.
        "filter": RoleMeaning(.audioProcessing, onCapture: .audioProcessing),
        "test": RoleMeaning(.playback, [.mixWithOthers]),
        "alarm": RoleMeaning(.playback),
        "emergency": RoleMeaning(.playback, [.duckOthers]),
        "navigation": RoleMeaning(.playback, [.duckOthers]),
        "assistant": RoleMeaning(.playback, [.duckOthers, .interruptSpokenAudio]),
        // WirePlumber 0.5's role policy (media-role-nodes.conf) groups
        // "Alert" with "Emergency" above everything, and "GPS" with
        // "Navigation".
        "alert": RoleMeaning(.playback),
        "gps": RoleMeaning(.playback, [.duckOthers]),
    ]

    /// A role in the table, else what the words of a telephony stack's role
    /// say (`roleWords`).
    public static func meaning(ofRole role: String) -> RoleMeaning? {
        let name = role.classifierTrimmed().lowercased()
        return roles[name] ?? meaning(ofRoleWords: name)
    }

    /// Telephony stacks name their streams' roles after the call and the
    /// ring (Tizen's PulseAudio stream roles: `call-voice`, `call-video`,
    /// `voip`, `ringtone-call`, `ringtone-voip`, `ringbacktone-call`;
    /// PulseAudio's `phone`): a call's audio, both ways; a ring, an alert
    /// silenced like a phone's ringer; the ringback one hears while calling,
    /// part of the call.
    static func meaning(ofRoleWords role: String) -> RoleMeaning? {
        let words = Set(role.split(whereSeparator: { !$0.isLetter }).map(String.init))
        if !words.isDisjoint(with: ["ringback", "ringbacktone"]) {
            return RoleMeaning(.playAndRecord, onCapture: .playAndRecord)
        }
        if !words.isDisjoint(with: ["ring", "ringtone", "ringer", "ringing"]) { return RoleMeaning(.systemSound) }
        if !words.isDisjoint(with: ["call", "voip", "phone", "telephony", "communication"]) {
            return RoleMeaning(.playAndRecord, onCapture: .playAndRecord)
        }
        return nil
    }

    static func fromMediaRole(_ props: StreamProperties, direction: StreamDirection) -> InferredCategory? {
        guard let role = props["media.role"], let meaning = meaning(ofRole: role) else { return nil }
        let category = direction == .playback ? (meaning.appliesToPlayback ? meaning.category : nil) : meaning.onCapture
        guard let category else { return nil }
        let evidence = "media.role = \"\(role)\""
        // The app refines what its role says: a voice-chat client labels its
        // call "game" so that games do not duck it (Mumble), and an audiobook
        // or podcast app plays spoken word under media.role=music (Cozy).
        if let app = KnownApps.match(props) {
            if app.kind == .voip && category == .soloAmbient {
                return InferredCategory(.playAndRecord, evidence: "\(evidence) from \(app.evidence): voice chat")
            }
            // SDL's PipeWire backend labels every stream `Game`, a player's too (ffplay).
            if (app.kind == .videoPlayer || app.kind == .musicPlayer) && category == .soloAmbient {
                return InferredCategory(.playback, evidence:
                    "\(evidence) from \(app.evidence): SDL's role for every stream, and this is a player")
            }
            if app.kind == .podcastPlayer && category == .playback && meaning.mode == .default {
                return InferredCategory(.playback, meaning.options, mode: .spokenAudio,
                                        evidence: "\(evidence) from \(app.evidence)")
            }
            // pipewire-jack labels every JACK client's node `DSP`: the role is
            // the JACK layer's, not the app's, and a DAW's capture records.
            if app.kind == .recorder && direction == .capture && role.classifierTrimmed().lowercased() == "dsp"
                && props["client.api"]?.lowercased() == "jack" {
                return InferredCategory(.record, evidence:
                    "\(evidence) from pipewire-jack (every JACK client's role) on \(app.evidence): a DAW session records")
            }
        }
        let options = direction == .playback ? meaning.options : []
        let mode = direction == .playback ? meaning.mode : .default
        return InferredCategory(category, options, mode: mode, evidence: evidence)
    }

    // MARK: event sounds

    static func eventSound(_ props: StreamProperties, direction: StreamDirection) -> InferredCategory? {
        guard direction == .playback else { return nil }
        if let id = props["event.id"] {
            // An alarm is asked for and must sound in silent mode (docs/POLICY.md, "Categories").
            if id.lowercased().containsText("alarm") {
                return InferredCategory(.playback, evidence: "event.id = \"\(id)\" (an alarm event sound)")
            }
            return InferredCategory(.systemSound, evidence: "event.id = \"\(id)\" (libcanberra event sound)")
        }
        if let key = props.firstKey(withPrefix: "canberra.") {
            return InferredCategory(.systemSound, evidence: "\(key) = \"\(props[key] ?? "")\" (libcanberra event sound)")
        }
        for key in ["application.name", "application.process.binary"] {
            if let value = props[key], ["libcanberra", "canberra-gtk-play"].contains(value.lowercased()) {
                return InferredCategory(.systemSound, evidence: "\(key) = \"\(value)\" (libcanberra event sound)")
            }
        }
        return nil
    }

    /// A file of the desktop's sound themes played with no role, or with a
    /// library's default role (pw-play's `Music`): an alert or UI sound
    /// whoever plays it. A role that says more (`alarm`: GNOME Clocks'
    /// alarm sound is a theme file too) and libcanberra's marks (an event
    /// id, an alarm's) decide first.
    static func soundThemeSound(_ props: StreamProperties, direction: StreamDirection) -> InferredCategory? {
        guard direction == .playback, let (key, path) = SoundThemeFile.played(props),
              eventSound(props, direction: direction) == nil else { return nil }
        if let role = props["media.role"]?.classifierTrimmed().lowercased(), meaning(ofRole: role) != nil,
           !AppKnowledge.genericRoles.contains(role) {
            return nil
        }
        return InferredCategory(.systemSound, evidence: "\(key) = \"\(path)\" (a file of the desktop's sound themes)")
    }

    /// A short UI sound on its own: it never makes its app a caller.
    static func isStandaloneSound(_ props: StreamProperties, direction: StreamDirection) -> Bool {
        if let role = props["media.role"], meaning(ofRole: role)?.category == .systemSound { return true }
        if soundThemeSound(props, direction: direction) != nil { return true }
        return eventSound(props, direction: direction)?.category == .systemSound
    }

    // MARK: monitors, meters, plumbing

    /// Names of meter streams: pavucontrol's "Peak detect", Plasma's volume meters.
    static let meterNames = ["peak detect", "volumemeter", "volume meter", "level meter", "levelmeter"]

    static func meterOrPlumbing(_ props: StreamProperties, direction: StreamDirection) -> InferredCategory? {
        // A loopback that says it carries a call (a VoIP bridge, a test call
        // with pw-loopback) is a call, not plumbing.
        let role = props["media.role"]?.lowercased()
        // A screen recording of what the desktop plays is a recording.
        if role == "screen" && direction == .capture { return nil }
        if let group = props["node.link-group"], role != "communication" && role != "phone" {
            return InferredCategory(.audioProcessing, evidence:
                "node.link-group = \"\(group)\" (one side of a virtual device: loopback, filter-chain, echo-cancel)")
        }
        if direction == .capture {
            let flags = [
                ("stream.monitor", "a monitor stream"),
                ("stream.capture.sink", "captures what a sink plays"),
                ("resample.peaks", "a peak meter"),
                // A passive capture never makes the graph run for itself:
                // it only watches (cava on a microphone); a recorder drives.
                ("node.passive", "a passive capture: it only watches"),
            ]
            for (key, what) in flags where props.isTrue(key) {
                return InferredCategory(.audioProcessing, evidence: "\(key) = \"\(props[key] ?? "")\" (\(what))")
            }
            if let category = props["media.category"], category.lowercased() == "monitor" {
                return InferredCategory(.audioProcessing, evidence: "media.category = \"\(category)\" (a monitor stream)")
            }
            if let name = props["media.name"], meterNames.contains(where: name.lowercased().containsText) {
                return InferredCategory(.audioProcessing, evidence: "media.name = \"\(name)\" (a level meter)")
            }
            for key in ["target.object", "node.target"] {
                if let target = props[key], target.hasSuffix(".monitor") {
                    return InferredCategory(.audioProcessing, evidence: "\(key) = \"\(target)\" (captures a sink's monitor)")
                }
            }
        }
        if let app = KnownApps.match(props) {
            let applies = app.kind == .audioProcessing || (app.kind == .meter && direction == .capture)
            if applies { return InferredCategory(.audioProcessing, evidence: app.evidence) }
        }
        return nil
    }

    // MARK: game audio libraries

    /// SDL's PulseAudio and PipeWire backends name a stream the program did
    /// not name "Audio Stream", miniaudio "miniaudio:<n>", FMOD Ex its
    /// context "FMOD Ex App" (the engine under many Unity games). Such
    /// programs are nearly always games; the players among them are known
    /// apps or have a desktop entry, both read before this.
    static func gameLibraryDefaultName(_ props: StreamProperties, direction: StreamDirection) -> InferredCategory? {
        guard direction == .playback else { return nil }
        for key in ["media.name", "node.name", "application.name"] {
            guard let name = props[key] else { continue }
            let miniaudio = key == "media.name" && name.hasPrefix("miniaudio:")
                && name.dropFirst("miniaudio:".count).allSatisfy(\.isNumber) && name.count > "miniaudio:".count
            if (name == "Audio Stream" && key != "application.name") || miniaudio || name == "FMOD Ex App" {
                return InferredCategory(.soloAmbient, evidence:
                    "\(key) = \"\(name)\" (a game audio library's name for a stream the program did not name)")
            }
        }
        return nil
    }

    // MARK: known apps

    /// The name, of those an app chooses, that has the word call, calls or
    /// calling in it.
    static func namesACall(_ props: StreamProperties) -> (key: String, value: String)? {
        for key in ["media.name", "node.name", "application.name"] {
            guard let value = props[key] else { continue }
            let words = value.lowercased().split(whereSeparator: { !$0.isLetter })
            if words.contains(where: { ["call", "calls", "calling"].contains($0) }) { return (key, value) }
        }
        return nil
    }

    static func fromKnownApp(_ props: StreamProperties, direction: StreamDirection) -> InferredCategory? {
        guard let app = KnownApps.match(props) else { return nil }
        let evidence = app.evidence
        switch (app.kind, direction) {
        case (.browser, .playback):
            return InferredCategory(.playback, [.mixWithOthers], evidence: evidence)
        case (.musicPlayer, .playback), (.videoPlayer, .playback), (.alarmClock, .playback):
            return InferredCategory(.playback, evidence: evidence)
        case (.podcastPlayer, .playback):
            return InferredCategory(.playback, mode: .spokenAudio, evidence: evidence)
        case (.voip, .playback):
            // A call engine that names its client or stream after the call
            // ("Signal Calling", "Element Call") plays the far end of a call.
            if let (key, value) = namesACall(props) {
                return InferredCategory(.playAndRecord, evidence: "\(evidence), \(key) = \"\(value)\" names a call")
            }
            // Rings and message pings; the call itself was found by the
            // plays-and-captures step, which runs before this one.
            return InferredCategory(.systemSound, evidence: "\(evidence), playback only: rings and pings")
        case (.voip, .capture):
            return InferredCategory(.playAndRecord, evidence: "\(evidence), capturing: the microphone side of a call")
        case (.recorder, .capture):
            return InferredCategory(.record, evidence: evidence)
        case (.browser, .capture):
            // WebRTC: a browser or Electron app ("Chromium input") takes the
            // microphone for a web call; its playback side is found by the
            // plays-and-captures step while both run.
            return InferredCategory(.playAndRecord, evidence: "\(evidence), capturing: the microphone side of a web call")
        case (.gameRuntime, .playback):
            // Like media.role=Game: a game with its soundtrack (design.md §2).
            return InferredCategory(.soloAmbient, evidence: evidence)
        case (.gameLauncher, .playback):
            // What a launcher plays itself (its store's trailers, its UI,
            // friends' pings) is no game: it mixes, and silent mode silences it.
            // The games it starts are other processes.
            return InferredCategory(.ambient, evidence: "\(evidence), its own sounds")
        case (.gameLauncher, .capture):
            // Steam's voice chat with friends; what a launcher plays (its
            // store's trailers, its friends' voices, its UI) is left alone.
            return InferredCategory(.playAndRecord, evidence: "\(evidence), capturing: voice chat")
        case (.gameRuntime, .capture):
            // A game takes the microphone for its voice chat.
            return InferredCategory(.playAndRecord, evidence: "\(evidence), capturing: in-game voice chat")
        case (.screenReader, .playback):
            return InferredCategory(.playback, [.duckOthers], mode: .spokenAudio, evidence: evidence)
        case (.systemSounds, .playback):
            return InferredCategory(.systemSound, evidence: evidence)
        default:
            return nil
        }
    }
}
