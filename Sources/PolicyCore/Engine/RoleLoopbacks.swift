/// WirePlumber 0.5's role-based policy as the graph shows it (docs/POLICY.md,
/// "Beside WirePlumber's role policy"). Turned on by its users
/// (`wireplumber.conf.d.examples/media-role-nodes.conf`, shipped by Phosh
/// and AGL), it makes one loopback per role with
/// libpipewire-module-loopback: a sink streams are linked into
/// (`input.loopback.sink.role.<role>`, `policy.role-based.target = true`,
/// its `device.intended-roles`, priority and actions) and a stream that
/// plays what it carries on to a device (`output.loopback.sink.role.<role>`),
/// the two sharing one `node.link-group`. WirePlumber links a stream into
/// the loopback whose intended roles hold its `media.role` (a role-less one
/// too when `node.stream.default-media-role` is set), ducks a loopback by
/// its playing side's Props `volume`, and corks a stream by unlinking it.
///
/// For the agent a loopback is a path, not an app and not an output: the
/// streams behind it are classified and decided for, and where they play is
/// where the loopback's playing side plays.
public struct RoleLoopbacks: Sendable, Equatable {
    /// What WirePlumber does to a lower- or same-priority role while a role
    /// plays (`policy.role-based.action.*`).
    public enum Action: String, Sendable, Equatable {
        case mix, duck, cork
    }

    public struct Loopback: Sendable, Equatable {
        /// The sink streams are linked into.
        public var input: UInt32
        /// Its playing side (`Stream/Output/Audio`, same link group); nil
        /// until it appears.
        public var output: UInt32?
        /// The input's `node.name` (`input.loopback.sink.role.multimedia`).
        public var name: String
        /// `node.description` ("Multimedia"), else the name.
        public var description: String
        /// `device.intended-roles`: the `media.role`s WirePlumber links here,
        /// compared as it compares them (exactly).
        public var intendedRoles: [String]
        /// `policy.role-based.priority` (0 when not set, as WirePlumber reads it).
        public var priority: Int
        public var samePriority: Action
        public var lowerPriority: Action
        /// `policy.role-based.preferred-target`: the device its playing side prefers.
        public var preferredTarget: String?
        /// Its playing side's Props `volume`: WirePlumber's duck of this role
        /// (1 while not ducked, or not reported yet).
        public var volume: Double
        /// The sink its playing side is linked to; nil while unlinked.
        public var playsTo: UInt32?

        public init(input: UInt32, output: UInt32? = nil, name: String, description: String? = nil,
                    intendedRoles: [String] = [], priority: Int = 0, samePriority: Action = .mix,
                    lowerPriority: Action = .mix, preferredTarget: String? = nil, volume: Double = 1,
                    playsTo: UInt32? = nil) {
            self.input = input; self.output = output; self.name = name; self.description = description ?? name
            self.intendedRoles = intendedRoles; self.priority = priority; self.samePriority = samePriority
            self.lowerPriority = lowerPriority; self.preferredTarget = preferredTarget; self.volume = volume
            self.playsTo = playsTo
        }
    }

    /// By input node id.
    public var loopbacks: [Loopback]
    /// `node.stream.default-media-role` from WirePlumber's `sm-settings`:
    /// the role WirePlumber gives a stream that has none (it is not written
    /// on the stream's node), so role-less streams are linked into that
    /// role's loopback too.
    public var defaultRole: String?
    /// `linking.role-based.duck-level` as `sm-settings` shows it now (the
    /// JSON text, `0.3`): the level WirePlumber ducks a loopback to.
    public var duckLevelSetting: String?

    public init(loopbacks: [Loopback] = [], defaultRole: String? = nil, duckLevelSetting: String? = nil) {
        self.loopbacks = loopbacks.sorted { $0.input < $1.input }
        self.defaultRole = defaultRole
        self.duckLevelSetting = duckLevelSetting
    }

    /// No role policy: nothing in the graph is a role loopback.
    public static let none = RoleLoopbacks()

    /// Whether WirePlumber's role policy is on (some role loopback exists).
    public var isActive: Bool { !loopbacks.isEmpty }

    // MARK: reading the graph

    /// The input side's name prefix WirePlumber's example gives every role
    /// loopback (`media-role-nodes.conf`).
    static let inputNamePrefix = "input.loopback.sink.role."
    static let settingsMetadata = "sm-settings"
    static let defaultRoleKey = "node.stream.default-media-role"
    public static let duckLevelKey = "linking.role-based.duck-level"
    /// WirePlumber's own default for `duckLevelKey`.
    public static let defaultDuckLevel = 0.3

    /// The role loopbacks in `graph`: sinks marked as role-based targets (or
    /// named as WirePlumber's example names them) that have a link group,
    /// paired with the playback stream of that group.
    public static func observed(in graph: Graph) -> RoleLoopbacks {
        var inputs: [(node: Graph.Node, group: String)] = []
        var outputs: [String: UInt32] = [:]
        for node in graph.nodes.values {
            guard let group = node.props["node.link-group"] else { continue }
            if node.isAudioSink, isRoleTarget(node) {
                inputs.append((node, group))
            } else if node.streamDirection == .playback {
                outputs[group] = min(outputs[group] ?? node.id, node.id)
            }
        }
        let settings = graph.metadata(named: settingsMetadata)
        // Read without loopbacks too: the agent gives the setting back when they go.
        let duckLevelSetting = duckLevelSetting(in: graph)
        guard !inputs.isEmpty else { return RoleLoopbacks(duckLevelSetting: duckLevelSetting) }
        let defaultRole = settings?.value(subject: 0, key: defaultRoleKey)
            .flatMap { try? SPAJSONParser.parseValue($0) }?.string
        return RoleLoopbacks(loopbacks: inputs.map { input, group in
            let props = input.props
            let output = outputs[group]
            return Loopback(input: input.id, output: output, name: input.name ?? "node \(input.id)",
                            description: props["node.description"],
                            intendedRoles: roles(props["device.intended-roles"]),
                            priority: props["policy.role-based.priority"].flatMap { Int($0) } ?? 0,
                            samePriority: action(props["policy.role-based.action.same-priority"]),
                            lowerPriority: action(props["policy.role-based.action.lower-priority"]),
                            preferredTarget: props["policy.role-based.preferred-target"],
                            volume: output.flatMap { graph.nodes[$0]?.volume }.map(Double.init) ?? 1,
                            playsTo: output.flatMap { EngineInputBuilder.linkedSink(of: $0, in: graph) })
        }, defaultRole: defaultRole, duckLevelSetting: duckLevelSetting)
    }

    /// `policy.role-based.target`, read as WirePlumber reads a boolean
    /// (`true` or `1`), or the example's name.
    static func isRoleTarget(_ node: Graph.Node) -> Bool {
        let marked = node.props["policy.role-based.target"].map { $0 == "true" || $0 == "1" } ?? false
        return marked || (node.name?.hasPrefix(inputNamePrefix) ?? false)
    }

    /// `linking.role-based.duck-level` as `sm-settings` shows it now.
    public static func duckLevelSetting(in graph: Graph) -> String? {
        graph.metadata(named: settingsMetadata)?.value(subject: 0, key: duckLevelKey)
    }

    /// A loopback's input side, from its own properties: a sink with a link
    /// group that is a role-based target. Enough to keep it from being taken
    /// for an output device (OutputDetection), before its pair is known.
    public static func isLoopbackInput(_ node: Graph.Node) -> Bool {
        node.isAudioSink && node.props["node.link-group"] != nil && isRoleTarget(node)
    }

    /// A duck level as `sm-settings` writes it (JSON), nil when it is no number.
    public static func level(_ setting: String?) -> Double? {
        setting.flatMap { try? SPAJSONParser.parseValue($0) }?.number
    }

    /// `device.intended-roles`, an SPA-JSON array of strings.
    static func roles(_ text: String?) -> [String] {
        guard let text, let parsed = try? SPAJSONParser.parseValue(text) else { return [] }
        return parsed.elements?.compactMap(\.scalarText) ?? parsed.scalarText.map { [$0] } ?? []
    }

    /// An action as WirePlumber reads it: a missing one mixes.
    static func action(_ text: String?) -> Action {
        text.flatMap { Action(rawValue: $0.lowercased()) } ?? .mix
    }

    // MARK: questions

    /// The loopback whose input is `node`.
    public func loopback(input node: UInt32) -> Loopback? {
        loopbacks.first { $0.input == node }
    }

    /// Whether `node` is either side of a role loopback: a path, never an
    /// app's stream nor an output.
    public func isLoopbackNode(_ node: UInt32) -> Bool {
        loopbacks.contains { $0.input == node || $0.output == node }
    }

    /// The loopbacks' nodes, both sides.
    public var nodes: Set<UInt32> {
        Set(loopbacks.flatMap { [$0.input] + ($0.output.map { [$0] } ?? []) })
    }

    /// The loopback WirePlumber links a stream of `role` into: the first
    /// whose intended roles hold it (`linking/find-media-role-target.lua`).
    public func loopback(forRole role: String) -> Loopback? {
        loopbacks.first { $0.intendedRoles.contains(role) }
    }

    /// The loopback WirePlumber would link this playback stream into, by its
    /// `media.role` or, without one, the default role; nil for capture
    /// streams, and for roles no loopback takes (they go to the default sink).
    public func loopback(for node: Graph.Node) -> Loopback? {
        guard isActive, node.streamDirection == .playback, let role = node.props["media.role"] ?? defaultRole else { return nil }
        return loopback(forRole: role)
    }

    /// Where a stream linked into `sink` plays: through a loopback, the sink
    /// its playing side plays to (nil while that side is unlinked); any
    /// other sink is itself.
    public func resolve(_ sink: UInt32) -> UInt32? {
        guard isActive else { return sink }
        var node = sink
        // A loopback playing into another (WirePlumber's example keeps them
        // apart, a hand-made config may not): followed a few hops.
        for _ in 0..<4 {
            guard let loopback = loopback(input: node) else { return node }
            guard let next = loopback.playsTo else { return nil }
            node = next
        }
        return nil
    }
}
