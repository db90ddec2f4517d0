import Testing
@testable import PolicyCore

/// Players matched to streams (docs/PLAYERS.md), as scenario tables: each
/// row builds players, streams and a process tree and names the expected
/// player of every stream (nil: none).
@Suite struct PlayerMatchingTests {
    struct Stream {
        var id: UInt32
        var props: [String: String] = [:]
        var clientProps: [String: String] = [:]
        var direction = "Stream/Output/Audio"
        var hasInfo = true
    }

    struct Scenario: CustomTestStringConvertible {
        var name: String
        var players: [MediaPlayer]
        var streams: [Stream]
        var ancestry: [Int32: Int32] = [:]
        var expected: [UInt32: String]
        var testDescription: String { name }
    }

    static func player(_ name: String, pid: Int32?, app: String? = nil, instance: String? = nil) -> MediaPlayer {
        MediaPlayer(busName: MediaPlayer.busNamePrefix + name, uniqueName: ":1.\(pid ?? 0)", pid: pid,
                    flatpakAppID: app, flatpakInstanceID: instance, status: .playing)
    }

    static func pid(_ value: Int32) -> [String: String] { ["application.process.id": String(value)] }
    static func app(_ id: String, instance: String? = nil, pid: Int32 = 2) -> [String: String] {
        var props = ["pipewire.access.portal.app_id": id, "application.process.id": String(pid)]
        if let instance { props["pipewire.access.portal.instance_id"] = instance }
        return props
    }

    static let mpris = MediaPlayer.busNamePrefix

    static let scenarios: [Scenario] = [
        Scenario(name: "mpv: the stream's process is the player's",
                 players: [player("mpv", pid: 400)],
                 streams: [Stream(id: 50, props: pid(400)), Stream(id: 51, props: pid(401))],
                 expected: [50: mpris + "mpv"]),
        Scenario(name: "a Pulse stream: the pid is on the client only",
                 players: [player("mpv", pid: 400)],
                 streams: [Stream(id: 50, clientProps: pid(400))],
                 expected: [50: mpris + "mpv"]),
        Scenario(name: "a browser: the stream comes from a grandchild of the bus connection",
                 players: [player("chromium.instance300", pid: 300)],
                 streams: [Stream(id: 50, props: pid(320))],
                 ancestry: [320: 310, 310: 300, 300: 1],
                 expected: [50: mpris + "chromium.instance300"]),
        Scenario(name: "nested players: the nearest ancestor wins",
                 players: [player("outer", pid: 300), player("inner", pid: 310)],
                 streams: [Stream(id: 50, props: pid(320)), Stream(id: 51, props: pid(305))],
                 ancestry: [320: 310, 310: 300, 305: 300, 300: 1],
                 expected: [50: mpris + "inner", 51: mpris + "outer"]),
        Scenario(name: "two players in one process: the first bus name",
                 players: [player("zeta", pid: 300), player("alpha", pid: 300)],
                 streams: [Stream(id: 50, props: pid(300))],
                 expected: [50: mpris + "alpha"]),
        Scenario(name: "an unrelated process tree matches nothing",
                 players: [player("mpv", pid: 400)],
                 streams: [Stream(id: 50, props: pid(500))],
                 ancestry: [500: 450, 450: 1, 400: 1],
                 expected: [:]),
        Scenario(name: "pid 1 and a missing pid end the walk; a player at pid 1 is never matched",
                 players: [player("init", pid: 1), player("unknown", pid: nil)],
                 streams: [Stream(id: 50, props: pid(500))],
                 ancestry: [500: 1],
                 expected: [:]),
        Scenario(name: "a cycle in the table ends",
                 players: [player("mpv", pid: 400)],
                 streams: [Stream(id: 50, props: pid(500))],
                 ancestry: [500: 501, 501: 500],
                 expected: [:]),
        Scenario(name: "capture streams, streams without info and no pid are not matched",
                 players: [player("mpv", pid: 400)],
                 streams: [Stream(id: 50, props: pid(400), direction: "Stream/Input/Audio"),
                           Stream(id: 51, props: pid(400), hasInfo: false),
                           Stream(id: 52, props: ["application.process.id": "garbage"]),
                           Stream(id: 53)],
                 expected: [:]),
        Scenario(name: "a Flatpak stream matches by app id, not by its namespaced pid",
                 players: [player("spotify", pid: 2, app: "com.spotify.Client"), player("host", pid: 900)],
                 streams: [Stream(id: 50, clientProps: app("com.spotify.Client", pid: 900))],
                 expected: [50: mpris + "spotify"]),
        Scenario(name: "two instances of one app with no instance id: neither",
                 players: [player("firefox.instance_1_2", pid: 700, app: "org.mozilla.firefox"),
                           player("firefox.instance_1_9", pid: 701, app: "org.mozilla.firefox")],
                 streams: [Stream(id: 50, clientProps: app("org.mozilla.firefox"))],
                 expected: [:]),
        Scenario(name: "two instances told apart by the instance id (PipeWire ≥ 1.5.81)",
                 players: [player("firefox.instance_1_2", pid: 700, app: "org.mozilla.firefox", instance: "111"),
                           player("firefox.instance_1_9", pid: 701, app: "org.mozilla.firefox", instance: "222")],
                 streams: [Stream(id: 50, clientProps: app("org.mozilla.firefox", instance: "222")),
                           Stream(id: 51, clientProps: app("org.mozilla.firefox", instance: "333"))],
                 expected: [50: mpris + "firefox.instance_1_9"]),
        Scenario(name: "an app id no player has matches nothing, even when the pid would",
                 players: [player("mpv", pid: 400)],
                 streams: [Stream(id: 50, props: app("org.gnome.Music", pid: 400))],
                 expected: [:]),
    ]

    @Test(arguments: scenarios)
    func matches(_ scenario: Scenario) {
        var graph = Graph()
        for stream in scenario.streams {
            var props = stream.props
            props["media.class"] = stream.direction
            if !stream.clientProps.isEmpty {
                let clientID = stream.id + 1000
                graph.clients[clientID] = Graph.Client(id: clientID, props: stream.clientProps)
                props["client.id"] = String(clientID)
            }
            graph.nodes[stream.id] = Graph.Node(id: stream.id, props: props, state: .running, hasInfo: stream.hasInfo)
        }
        let matches = PlayerMatching.match(players: PlayerSet(scenario.players), graph: graph, ancestry: scenario.ancestry)
        #expect(matches.mapValues(\.busName) == scenario.expected)
    }

    @Test func reasonsSayHowFarAndByWhat() {
        var graph = Graph()
        graph.nodes[50] = Graph.Node(id: 50, props: ["media.class": "Stream/Output/Audio"].merging(Self.pid(320)) { $1 })
        graph.nodes[51] = Graph.Node(id: 51, props: ["media.class": "Stream/Output/Audio"].merging(Self.pid(300)) { $1 })
        graph.nodes[52] = Graph.Node(id: 52, props: ["media.class": "Stream/Output/Audio"]
                                        .merging(Self.app("org.x.App", instance: "7")) { $1 })
        let players = PlayerSet([Self.player("browser", pid: 300), Self.player("x", pid: 2, app: "org.x.App", instance: "7")])
        let matches = PlayerMatching.match(players: players, graph: graph, ancestry: [320: 310, 310: 300])
        #expect(matches[50]?.reason == .descendant(streamPID: 320, playerPID: 300, generations: 2))
        #expect(matches[51]?.reason == .sameProcess(pid: 300))
        #expect(matches[52]?.reason == .flatpakApp(appID: "org.x.App", instanceID: "7"))
    }

    /// The node's own props win over its client's (a Pulse stream's props are
    /// its client's plus its own).
    @Test func nodePropsWinOverClientProps() {
        var graph = Graph()
        graph.clients[9] = Graph.Client(id: 9, props: Self.pid(400))
        graph.nodes[50] = Graph.Node(id: 50, props: ["media.class": "Stream/Output/Audio", "client.id": "9"]
                                        .merging(Self.pid(401)) { $1 })
        let players = PlayerSet([Self.player("a", pid: 400), Self.player("b", pid: 401)])
        #expect(PlayerMatching.match(players: players, graph: graph, ancestry: [401: 400])[50]?.busName == Self.mpris + "b")
    }

    @Test(arguments: [("Playing", PlaybackStatus.playing), ("Paused", .paused), ("Stopped", .stopped),
                      ("Buffering", .unknown("Buffering")), ("", .unknown(""))])
    func playbackStatusKeepsUnknownValues(raw: String, status: PlaybackStatus) {
        #expect(PlaybackStatus(raw: raw) == status)
        #expect(status.raw == raw)
    }
}
