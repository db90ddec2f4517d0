/// How the events and statuses of one decision name the sessions they
/// speak of (docs/CLI.md, "Names"), those that vanished in it included, and
/// the streams its events name by id. The names travel with the decision,
/// so an event published later still names a session whose streams are gone.
public struct DecisionNames: Sendable, Equatable {
    public var sessions: [SessionKey: SessionName]
    /// The app of each stream an event names (held for its route, resumed).
    public var streams: [UInt32: String]

    public init(sessions: [SessionKey: SessionName] = [:], streams: [UInt32: String] = [:]) {
        self.sessions = sessions; self.streams = streams
    }

    public func session(_ key: SessionKey) -> SessionName {
        sessions[key] ?? .unknown
    }

    /// `stream 57 "Spotify"`, as `stream-classified` and the CLI name a stream.
    public func stream(_ id: UInt32) -> String {
        "stream \(id)" + (streams[id].map { " \"\($0)\"" } ?? "")
    }
}

extension DecisionRun {
    /// Names what `events` speak of, with the names given so far.
    func name(_ events: [PolicyEvent], namer: inout SessionNamer) {
        func name(_ key: SessionKey) {
            if let index = sessionIndex(of: key) {
                _ = namer.name(index, among: sessions)
            } else if let gone = vanished.first(where: { $0.key == key }) {
                _ = namer.name(key, app: gone.remembered.appName, among: sessions)
            } else {
                _ = namer.name(key, app: memory.silencedApps?[key] ?? "", among: sessions)
            }
        }
        namer.reserve(events.count)
        for event in events {
            switch event {
            case .interruptionBegan(let session, let by, _), .duckBegan(let session, let by, _):
                name(session)
                name(by)
            case .interruptionEnded(let session, _), .duckEnded(let session), .silenced(let session),
                 .unsilenced(let session):
                name(session)
            case .heldForRoute(let stream, _), .resumed(let stream):
                if let input = streams.first(where: { $0.id == stream }) { namer.nameStream(stream, app: input.appName) }
            case .routeChanged:
                break
            }
        }
    }
}
