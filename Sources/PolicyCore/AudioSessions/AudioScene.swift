/// What the audio sessions see, as of the latest reconcile: the playback
/// other apps make heard, and what the policy does to each session's
/// streams. A session's properties are read from it at any moment — a game
/// that asks `OtherAudioIsPlaying` right after `CreateSession` gets the
/// answer of the latest decision (docs/API.md, "Properties").
public struct AudioScene: Sendable, Equatable {
    /// A playback stream heard now: running, not held, not silenced.
    public struct Audible: Sendable, Equatable {
        public var node: UInt32
        /// The session that claims it, if any.
        public var claimedBy: UInt32?
        /// Its session mixes with others (it does not silence secondary audio).
        public var mixable: Bool
    }

    /// What the policy does to one audio session's streams.
    public struct SessionState: Sendable, Equatable {
        public var streams: [UInt32] = []
        /// The engine sessions its streams belong to (or belonged to, while
        /// the engine still remembers them: a held app may close its stream).
        public var engineKeys: Set<SessionKey> = []
        public var active = false
        public var interrupted = false
        public var ducked = false
        public var silenced = false
        /// The output its playback plays to (its name), "" when none.
        public var output = ""
    }

    public var audible: [Audible] = []
    public var silentMode = false
    public var sessions: [UInt32: SessionState] = [:]

    public init() {}

    /// The scene after a decision. `previous` keeps the engine sessions a
    /// session followed while the engine still remembers them.
    static func after(_ decision: PolicyDecision, classified: [UInt32: ClassifiedStream], graph: Graph,
                      claims: [UInt32: UInt32], table: AudioSessionTable, silentMode: Bool, config: PolicyConfig,
                      previous: AudioScene) -> AudioScene {
        var scene = AudioScene()
        scene.silentMode = silentMode
        for (id, stream) in classified where stream.facts.direction == .playback {
            guard graph.nodes[id]?.state == .running, let decided = decision.streams[id], decided.hold == nil,
                  !decided.silenced, decided.gain > 0, !stream.classification.exempt,
                  stream.classification.category != .audioProcessing else { continue }
            scene.audible.append(Audible(node: id, claimedBy: claims[id],
                                         mixable: SessionClass(category: stream.classification.category,
                                                               options: stream.classification.options,
                                                               mode: stream.classification.mode, config: config).mixable))
        }
        scene.audible.sort { $0.node < $1.node }
        guard !table.isEmpty else { return scene }

        var streamsOf: [UInt32: [UInt32]] = [:]
        for (node, session) in claims { streamsOf[session, default: []].append(node) }
        let sinks = EngineInputBuilder.linkedSinks(in: graph)
        let memory = decision.memory
        for id in table.sessions.keys {
            var state = SessionState()
            state.streams = (streamsOf[id] ?? []).sorted()
            var keys = Set(state.streams.compactMap { classified[$0]?.session })
            for key in previous.sessions[id]?.engineKeys ?? [] where memory.sessions[key] != nil || memory.silenced.contains(key) {
                keys.insert(key)
            }
            state.engineKeys = keys
            for key in keys {
                if let remembered = memory.sessions[key] {
                    state.active = true
                    if remembered.interruption != nil { state.interrupted = true }
                    if remembered.ducked != nil { state.ducked = true }
                }
                if memory.silenced.contains(key) { state.silenced = true }
            }
            for node in state.streams where classified[node]?.facts.direction == .playback {
                if let sink = sinks[node], let name = graph.nodes[sink]?.name {
                    state.output = name
                    break
                }
            }
            scene.sessions[id] = state
        }
        return scene
    }

    /// Session `id`'s properties now; nil when there is no such session.
    public func properties(of id: UInt32, in table: AudioSessionTable) -> [AudioSessionProperty: AudioSessionValue]? {
        guard let session = table.sessions[id] else { return nil }
        let state = sessions[id] ?? SessionState()
        // Other apps: whatever no session of the same caller claims.
        let own = Set(table.sessions(of: session.owner).map(\.id))
        let others = audible.filter { $0.claimedBy.map { !own.contains($0) } ?? true }
        return [
            .category: .string(session.declaration.category.rawValue),
            .options: .strings(session.declaration.options.sorted().map(\.rawValue)),
            .mode: .string(session.declaration.mode.rawValue),
            .token: .string(session.token),
            .streams: .uints(state.streams),
            .active: .bool(state.active),
            .interrupted: .bool(state.interrupted),
            .ducked: .bool(state.ducked),
            .silenced: .bool(state.silenced),
            .output: .string(state.output),
            .otherAudioIsPlaying: .bool(!others.isEmpty),
            .secondaryAudioShouldBeSilenced: .bool(others.contains { !$0.mixable }),
            .silentMode: .bool(silentMode),
        ]
    }
}
