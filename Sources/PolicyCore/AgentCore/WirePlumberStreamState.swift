/// How WirePlumber remembers a stream's volumes, and how the agent takes its
/// own gains back out of that memory (docs/POLICY.md, "WirePlumber's
/// memory"). WirePlumber 0.4's restore-stream and 0.5's state-stream save a
/// stream's Props (`volume` included) under a key whenever they change, and
/// give the next stream of that key the saved values: a stream that ended
/// ducked or silenced would start the next one at the policy gain with no
/// agent running. The agent corrects the saved `volume` to 1 through what
/// WirePlumber itself offers, never by editing its files.
public enum WirePlumberStreamState {
    /// The key WirePlumber saves the stream's Props under: its media class
    /// without `Stream/`, then the first of `media.role`, `application.id`,
    /// `application.name`, `media.name`, `node.name` it has, as
    /// `Output/Audio:application.name:mpv` (0.4.13 restore-stream's
    /// `findSuitableKey`, 0.5 state-stream's `formKey`; from 0.5.15 on,
    /// `media.role` counts only when it is `Notification`). Nil when it saves
    /// nothing for the stream (`state.restore-props = false`).
    public static func key(of props: [String: String], wirePlumber: SemanticVersion?) -> String? {
        guard let mediaClass = props["media.class"], mediaClass.hasPrefix("Stream/"),
              props["state.restore-props"] != "false" else { return nil }
        let roleOnlyForNotifications = StackCapabilities.wirePlumberKeysByRoleOnlyForNotifications(wirePlumber)
        for name in ["media.role", "application.id", "application.name", "media.name", "node.name"] {
            guard let value = props[name], !value.isEmpty else { continue }
            if name == "media.role", roleOnlyForNotifications, value != "Notification" { continue }
            return "\(mediaClass.dropFirst("Stream/".count)):\(name):\(value)"
        }
        return nil
    }

    /// The key WirePlumber's own volume control for event sounds uses
    /// (pavucontrol's "System Sounds"): 0.5 reads corrections of this key
    /// only.
    public static let notificationKey = "Output/Audio:media.role:Notification"

    /// The `route-settings` metadata that WirePlumber implements: an entry
    /// `restore.stream.<key>` (the key's first `:` written as `.`) replaces
    /// the saved values it names (0.4.13 restore-stream `handleRouteSettings`
    /// for every key, 0.5 state-stream for `notificationKey` only;
    /// pipewire-pulse's stream-restore writes the same entries).
    public static let routeSettings = "route-settings"

    public static func routeSettingsKey(_ key: String) -> String {
        guard let colon = key.firstIndex(of: ":") else { return "restore.stream." + key }
        return "restore.stream." + key[..<colon] + "." + key[key.index(after: colon)...]
    }

    /// Whether WirePlumber takes a correction of `key` from `route-settings`;
    /// if not, only a stream of that key can change what it saved (a stand-in
    /// stream, `AgentEffect.resetStoredVolumes`).
    public static func readsRouteSettings(for key: String, wirePlumber: SemanticVersion?, pipewire: SemanticVersion?) -> Bool {
        StackCapabilities.wirePlumberReadsRouteSettingsForEveryStream(wirePlumber: wirePlumber, pipewire: pipewire)
            || key == notificationKey
    }

    /// The writes that set the saved `volume` of `key` back to 1 through
    /// `route-settings`, leaving the user's saved values alone: only
    /// `volume` is written. An entry already there (WirePlumber publishes the
    /// event sounds' one, pipewire-pulse clients read it) is kept with its
    /// other values; otherwise the entry is removed again at once, which
    /// WirePlumber ignores, so the metadata is left as it was.
    public static func routeSettingsCorrection(of key: String, in graph: Graph) -> [MetadataWrite] {
        let entry = routeSettingsKey(key)
        // 1.0, not 1: WirePlumber hands the number on as it reads it, and
        // Props `volume` is a float.
        let volume = #"{"volume":1.0}"#
        guard let existing = graph.metadata(named: routeSettings)?.value(subject: 0, key: entry) else {
            return [write(entry, volume), write(entry, nil)]
        }
        guard case .object(var values)? = try? JSONParser.parse(Array(existing.utf8)) else { return [write(entry, volume)] }
        values["volume"] = .number("1.0")
        return [write(entry, JSONValue.object(values).text(escapingSlashes: false))]
    }

    /// What WirePlumber saved under a key besides the volume: the user's
    /// own channel volumes and mute, as the key's stream last reported them.
    /// A stand-in stream carries them: WirePlumber saves whatever it reports,
    /// its defaults too, so it must report the user's values and volume 1.
    public struct UserVolumes: Sendable, Equatable, Codable {
        public var channelVolumes: [Float]
        public var mute: Bool
        public init(channelVolumes: [Float], mute: Bool) {
            self.channelVolumes = channelVolumes; self.mute = mute
        }

        init(of node: Graph.Node) {
            self.init(channelVolumes: node.channelVolumes.isEmpty ? [1, 1] : node.channelVolumes, mute: node.mute ?? false)
        }
    }

    /// What the agent tracks between turns: the keys under which WirePlumber
    /// may have saved a policy gain, each with the user's values saved there.
    public struct Tracking: Sendable, Equatable {
        public var keys: [String: UserVolumes]
        /// Corrections to send now, through `route-settings`.
        public var writes: [MetadataWrite]
    }

    /// One turn: a key becomes tainted when the agent sends a stream of it a
    /// gain other than 1, or a stream it manages reports one (WirePlumber
    /// saves what a stream reports, and restored a stale gain itself); a
    /// tainted key is corrected once no stream of it reports anything but 1
    /// — a correction sooner would be overwritten by the next save. Keys
    /// WirePlumber takes no `route-settings` correction for wait for
    /// `resetStoredVolumes` at exit, or for the next stream of theirs, which
    /// the agent raises to 1 and WirePlumber then saves. Without
    /// `correcting`, keys are tainted but none is corrected yet.
    public static func track(_ tainted: [String: UserVolumes], graph: Graph, applied: [UInt32: AppliedStream],
                             sent actions: [AgentAction], stack: PipeWireStack, correcting: Bool = true) -> Tracking {
        let wirePlumber = stack.wirePlumberVersion
        var keys = tainted
        var busy = Set<String>()
        for node in graph.streams where node.streamDirection == .playback {
            let ours = applied[node.id].flatMap { $0.serial == node.serial ? $0 : nil }
            let atOne = node.volume.map { ReconcilePlanner.reports($0, 1) } ?? false
            let taints = ours != nil && !atOne && node.volume != nil
            let isBusy = !atOne || ours.map({ !$0.isNeutral || !$0.confirmed }) == true
            // With no key tainted yet, a stream that neither taints nor keeps
            // one busy changes nothing: its key (a string made per stream)
            // is not needed. Most turns beside many streams are such turns.
            guard taints || isBusy || !keys.isEmpty, let key = key(of: node.props, wirePlumber: wirePlumber) else { continue }
            if taints { keys[key] = UserVolumes(of: node) }
            // The user's values as they are now: WirePlumber saves them at each change.
            if keys[key] != nil, !node.channelVolumes.isEmpty { keys[key] = UserVolumes(of: node) }
            if isBusy { busy.insert(key) }
        }
        for action in actions {
            let target: (node: UInt32, gain: Double)
            switch action {
            case .setGain(let node, let gain), .rampGain(let node, let gain, _): target = (node, gain)
            default: continue
            }
            guard target.gain != 1, let node = graph.nodes[target.node],
                  let key = key(of: node.props, wirePlumber: wirePlumber) else { continue }
            keys[key] = UserVolumes(of: node)
            busy.insert(key)
        }
        var writes: [MetadataWrite] = []
        // No WirePlumber (restarting, say): the keys wait for it.
        guard correcting, graph.metadata(named: routeSettings) != nil else { return Tracking(keys: keys, writes: []) }
        for key in keys.keys.sorted() where !busy.contains(key)
            && readsRouteSettings(for: key, wirePlumber: wirePlumber, pipewire: stack.pipewireVersion) {
            writes += routeSettingsCorrection(of: key, in: graph)
            keys[key] = nil
        }
        return Tracking(keys: keys, writes: writes)
    }

    /// At exit: every tainted key corrected, through `route-settings` where
    /// WirePlumber takes it, else by a stand-in stream (`resetStandIns`) —
    /// but not where a stream of the key is left, which the restore puts back
    /// to 1 and WirePlumber then saves itself.
    public struct Correction: Sendable, Equatable {
        public var writes: [MetadataWrite] = []
        /// Keys to reset by stand-in streams, with the user's values saved there.
        public var standIns: [String: UserVolumes] = [:]
        /// Keys that cannot be corrected now (no WirePlumber): kept for the next start.
        public var left: [String: UserVolumes] = [:]
    }

    public static func correctAll(_ tainted: [String: UserVolumes], graph: Graph, stack: PipeWireStack) -> Correction {
        let wirePlumber = stack.wirePlumberVersion
        let live = Set(graph.streams.compactMap { key(of: $0.props, wirePlumber: wirePlumber) })
        guard graph.metadata(named: routeSettings) != nil else { return Correction(left: tainted) }
        var correction = Correction()
        for (key, user) in tainted.sorted(by: { $0.key < $1.key }) {
            if readsRouteSettings(for: key, wirePlumber: wirePlumber, pipewire: stack.pipewireVersion) {
                correction.writes += routeSettingsCorrection(of: key, in: graph)
            } else if !live.contains(key) {
                correction.standIns[key] = user
            }
        }
        return correction
    }

    /// The properties of a stand-in stream for `key`: the media class and
    /// the one property the key names, so that WirePlumber takes it for a
    /// stream of that key; as many channels as the key's stream had; never
    /// linked; marked as the agent's own (`Graph.Node.isAgentsOwn`) so that
    /// the policy leaves it alone.
    public static func standInProperties(for key: String, channels: Int) -> [String: String]? {
        let parts = key.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        var props = ["media.class": "Stream/" + parts[0], String(parts[1]): String(parts[2]),
                     "node.autoconnect": "false", "state.restore-target": "false",
                     Graph.Node.agentsOwnKey: "stand-in", "audio.channels": String(max(channels, 1)),
                     "audio.position": standInPositions(channels)]
        if parts[1] != "node.name" { props["node.name"] = "pw-policy-stand-in" }
        return props
    }

    private static func standInPositions(_ channels: Int) -> String {
        switch channels {
        case ...1: "[ MONO ]"
        case 2: "[ FL FR ]"
        default: "[ " + (0..<channels).map { "AUX\($0)" }.joined(separator: " ") + " ]"
        }
    }

    private static func write(_ key: String, _ value: String?) -> MetadataWrite {
        MetadataWrite(metadata: routeSettings, subject: 0, key: key, type: value == nil ? nil : "Spa:String:JSON", value: value)
    }
}
