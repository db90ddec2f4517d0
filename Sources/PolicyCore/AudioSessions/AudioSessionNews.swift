/// What each audio session is told after a decision (docs/API.md,
/// "Signals"): the engine's events about the engine sessions its streams
/// belong to, as signals — interrupted, ducked, silenced, and their ends —,
/// its route changes with a reason and the previous output, and
/// PropertiesChanged for the properties that changed since it was last
/// told. Everything goes to the session's owner only. A burst of calls and
/// changes between two reconciles is one message per session.
public struct AudioSessionNews: Sendable, Equatable {
    /// One message to one session's owner.
    public struct Message: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            case propertiesChanged([AudioSessionProperty: AudioSessionValue])
            case signal(AudioSessionSignal, [AudioSessionValue])
        }
        public var path: String
        /// The owner's unique bus name: the message's destination.
        public var owner: String
        public var kind: Kind
    }

    /// What each session was last told.
    private var told: [UInt32: [AudioSessionProperty: AudioSessionValue]] = [:]
    /// The last route change of the outputs, and when: the reason of a
    /// session's output that moves in the moment after (WirePlumber moves
    /// its streams a little after the device came or went).
    private var lastRoute: (reason: RouteChangeReason, at: Double)?
    static let routeReasonLasts = 2.0

    public init() {}

    public static func == (a: AudioSessionNews, b: AudioSessionNews) -> Bool {
        a.told == b.told && a.lastRoute?.reason == b.lastRoute?.reason && a.lastRoute?.at == b.lastRoute?.at
    }

    /// A new session: what a Get answers until the next reconcile, so that
    /// what changes from there is told.
    mutating func introduce(_ id: UInt32, _ properties: [AudioSessionProperty: AudioSessionValue]?) {
        told[id] = properties
    }

    /// The messages of one decision, sessions in id order; signals before
    /// the properties that follow from them.
    mutating func tell(_ decision: PolicyDecision, scene: AudioScene, previous: AudioScene, table: AudioSessionTable,
                       classified: [UInt32: ClassifiedStream], now: Double) -> [Message] {
        for case .routeChanged(let reason, _) in decision.events { lastRoute = (reason, now) }
        var messages: [Message] = []
        for id in table.sessions.keys.sorted() {
            guard let session = table.sessions[id], let properties = scene.properties(of: id, in: table) else { continue }
            let state = scene.sessions[id] ?? AudioScene.SessionState()
            func signal(_ name: AudioSessionSignal, _ values: [AudioSessionValue]) {
                messages.append(Message(path: session.path, owner: session.owner, kind: .signal(name, values)))
            }
            var heldForRoute = false
            for event in decision.events {
                switch event {
                case .interruptionBegan(let key, let by, let resumable) where state.engineKeys.contains(key):
                    signal(.interruptionBegan, [.string(decision.names.session(by).app), .string(by.category ?? ""),
                                                .bool(resumable)])
                case .interruptionEnded(let key, let shouldResume) where state.engineKeys.contains(key):
                    signal(.interruptionEnded, [.bool(shouldResume)])
                case .duckBegan(let key, let by, let level) where state.engineKeys.contains(key):
                    signal(.duckBegan, [.string(decision.names.session(by).app), .double(level)])
                case .duckEnded(let key) where state.engineKeys.contains(key):
                    signal(.duckEnded, [])
                case .silenced(let key) where state.engineKeys.contains(key):
                    signal(.silenceBegan, [.string(Self.silenceReason(of: state.streams, classified: classified, decision: decision))])
                case .unsilenced(let key) where state.engineKeys.contains(key):
                    signal(.silenceEnded, [])
                case .heldForRoute(let stream, let output) where state.streams.contains(stream) && !heldForRoute:
                    heldForRoute = true
                    signal(.routeChanged, [.string(AudioSessionRouteReason.oldDeviceUnavailable.rawValue), .string(output), .string("")])
                default:
                    break
                }
            }
            let before = told[id]
            if !heldForRoute, case .string(let was)? = before?[.output], !was.isEmpty, !state.output.isEmpty, was != state.output {
                let reason: AudioSessionRouteReason
                if session.declarationChanged {
                    reason = .categoryChange
                } else if let route = lastRoute, now - route.at <= Self.routeReasonLasts {
                    reason = AudioSessionRouteReason(route.reason)
                } else {
                    reason = .userChoice
                }
                signal(.routeChanged, [.string(reason.rawValue), .string(was), .string(state.output)])
            }
            if let before {
                let changed = properties.filter { before[$0.key] != $0.value }
                if !changed.isEmpty {
                    messages.append(Message(path: session.path, owner: session.owner, kind: .propertiesChanged(changed)))
                }
            }
            told[id] = properties
        }
        told = told.filter { table.sessions[$0.key] != nil }
        return messages
    }

    /// A silenced session's reason, from its first stream's explanation
    /// ("silent mode, following Do Not Disturb (on in dunst) …").
    static func silenceReason(of streams: [UInt32], classified: [UInt32: ClassifiedStream], decision: PolicyDecision) -> String {
        for stream in streams {
            if let line = decision.streams[stream]?.explanation.first(where: { $0.hasPrefix("silenced") }) {
                return line.hasPrefix("silenced: ") ? String(line.dropFirst("silenced: ".count)) : line
            }
        }
        return "silenced"
    }
}
