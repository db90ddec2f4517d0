import Testing
import PolicyCore

/// Presenting (docs/POLICY.md, "Presenting"): which nodes are screen casts,
/// when one is shared, and what that does to alerts.
@Suite struct PresentingTests {
    /// A node's properties as a program really makes them, with where its
    /// source sets them, and what the detection must say of it.
    struct RealNode: Sendable, CustomStringConvertible {
        var name: String
        /// Where the properties come from (repository, file, commit).
        var source: String
        var props: [String: String]
        /// The screen cast's implementation, or nil: not a screen cast.
        var implementation: String?
        var description: String { name }
    }

    /// pw_stream (PipeWire src/pipewire/stream.c, 1.4.2 and 0.3.65 alike):
    /// the stream's name becomes media.name; node.name is the client's
    /// application.name (by default its program's name); an output of
    /// video with no media.class of its own is "Stream/Output/Video", an
    /// input "Stream/Input/Video".
    static let realNodes: [RealNode] = [
        RealNode(name: "GNOME Shell 47+ (mutter)",
                 source: "GNOME/mutter src/backends/meta-screen-cast-stream-src.c @ 2eb05bb11c79afac2654b2417dbf832ecbbaec3c: "
                    + "pw_stream_new(core, \"meta-screen-cast-src\", { node.supports-request }), output, driver",
                 props: ["media.class": "Stream/Output/Video", "media.name": "meta-screen-cast-src",
                         "node.name": "gnome-shell", "node.supports-request": "2", "client.id": "31"],
                 implementation: "GNOME Shell"),
        RealNode(name: "GNOME Shell 3.36 (mutter)",
                 source: "GNOME/mutter src/backends/meta-screen-cast-stream-src.c @ 98a0c5cb35f550342234d51dde54e929d7dcbc59: "
                    + "pw_stream_new(core, \"meta-screen-cast-src\", NULL)",
                 props: ["media.class": "Stream/Output/Video", "media.name": "meta-screen-cast-src", "node.name": "gnome-shell"],
                 implementation: "GNOME Shell"),
        RealNode(name: "KWin (an output)",
                 source: "KDE/kwin src/plugins/screencast/screencaststream.cpp @ 00c1e9850babdd8cfebf45737aeb568f6b9ba1de: "
                    + "pw_stream_new(core, \"kwin-screencast-\" + objectName(), nullptr); screencastmanager.cpp @ "
                    + "013e69988ffdbed1d3c684a536c0d4b79c7de680 names it after the output",
                 props: ["media.class": "Stream/Output/Video", "media.name": "kwin-screencast-eDP-1", "node.name": "kwin_wayland"],
                 implementation: "KWin"),
        RealNode(name: "KWin (a window)",
                 source: "KDE/kwin screencastmanager.cpp @ 013e69988ffdbed1d3c684a536c0d4b79c7de680: a window's stream is named after its desktop file",
                 props: ["media.class": "Stream/Output/Video", "media.name": "kwin-screencast-org.kde.konsole",
                         "node.name": "kwin_wayland"],
                 implementation: "KWin"),
        RealNode(name: "xdg-desktop-portal-wlr",
                 source: "emersion/xdg-desktop-portal-wlr src/screencast/pipewire_screencast.c @ 5b047df2492d6772df2089835b579f34ab4048b7: "
                    + "pw_stream_new(core, \"xdpw-stream-XXXXXX\" (random), { media.class = Video/Source })",
                 props: ["media.class": "Video/Source", "media.name": "xdpw-stream-k3Xq9Z", "node.name": "xdg-desktop-portal-wlr"],
                 implementation: "xdg-desktop-portal-wlr"),
        RealNode(name: "libpipewire before node.name became the app's",
                 source: "a stream whose node.name is its stream name (no application.name given)",
                 props: ["media.class": "Video/Source", "node.name": "xdpw-stream-Ab12Cd"],
                 implementation: "xdg-desktop-portal-wlr"),
        // What is not a screen cast.
        RealNode(name: "Firefox/Chromium receiving the screen (libwebrtc)",
                 source: "webrtc modules/desktop_capture/linux/wayland/shared_screencast_stream.cc: "
                    + "pw_stream_new(core, \"webrtc-consume-stream\", { pipewire.client.reuse=1 }), input",
                 props: ["media.class": "Stream/Input/Video", "media.name": "webrtc-consume-stream", "node.name": "firefox",
                         "pipewire.client.reuse": "1"],
                 implementation: nil),
        RealNode(name: "OBS receiving the screen",
                 source: "obsproject/obs-studio plugins/linux-pipewire/pipewire.c: media.type Video, media.category Capture, media.role Screen, input",
                 props: ["media.class": "Stream/Input/Video", "media.name": "OBS Studio", "node.name": "obs",
                         "media.role": "Screen", "media.category": "Capture"],
                 implementation: nil),
        RealNode(name: "a webcam (WirePlumber's v4l2 monitor)",
                 source: "spa/plugins/v4l2 via WirePlumber: a device's Video/Source",
                 props: ["media.class": "Video/Source", "node.name": "v4l2_input.pci-0000_00_14.0-usb-0_1_1.0",
                         "device.id": "48", "device.api": "v4l2"],
                 implementation: nil),
        RealNode(name: "a stream named like a cast but playing audio",
                 source: "the class decides: an audio stream is no screen cast",
                 props: ["media.class": "Stream/Output/Audio", "media.name": "meta-screen-cast-src"],
                 implementation: nil),
        RealNode(name: "an unknown video source",
                 source: "a test pattern, not a compositor's",
                 props: ["media.class": "Video/Source", "node.name": "videotestsrc"],
                 implementation: nil),
        RealNode(name: "the agent's own node",
                 source: "pw-policy.role marks the agent's nodes",
                 props: ["media.class": "Video/Source", "media.name": "meta-screen-cast-src", "pw-policy.role": "meter"],
                 implementation: nil),
    ]

    @Test(arguments: realNodes)
    func realNodesAreScreenCastsOrNot(_ real: RealNode) {
        let node = Graph.Node(id: 42, props: real.props, state: .running)
        #expect(ScreenCastDetection.implementation(of: node) == real.implementation, "\(real.source)")
    }

    // MARK: shared: a link to a consumer

    static let castID: UInt32 = 42, consumerID: UInt32 = 57

    /// GNOME's cast (node 42) and a browser receiving it (node 57), linked
    /// by `links` (id, state), with their ports.
    static func graph(links: [(UInt32, Graph.LinkState)], consumer: Bool = true) -> Graph {
        var graph = Graph()
        graph.nodes[castID] = Graph.Node(id: castID, props: realNodes[0].props, state: .running)
        graph.ports[43] = Graph.Port(id: 43, nodeID: castID, direction: .output)
        if consumer {
            graph.nodes[consumerID] = Graph.Node(id: consumerID, props: realNodes[6].props, state: .running)
            graph.ports[58] = Graph.Port(id: 58, nodeID: consumerID, direction: .input)
        }
        for (id, state) in links {
            graph.links[id] = Graph.Link(id: id, outputNode: castID, outputPort: 43, inputNode: consumerID, inputPort: 58,
                                         state: state)
        }
        return graph
    }

    struct SharingCase: Sendable, CustomStringConvertible {
        var description: String
        var links: [(UInt32, Graph.LinkState)]
        var consumer = true
        var shared: Bool
    }

    static let sharingCases: [SharingCase] = [
        SharingCase(description: "no consumer yet", links: [], consumer: false, shared: false),
        SharingCase(description: "a consumer, not linked", links: [], shared: false),
        SharingCase(description: "linked, negotiating", links: [(60, .negotiating)], shared: true),
        SharingCase(description: "linked, paused", links: [(60, .paused)], shared: true),
        SharingCase(description: "linked, active", links: [(60, .active)], shared: true),
        SharingCase(description: "the link failed", links: [(60, .error)], shared: false),
        // The consumer went away before its link's removal reached us.
        SharingCase(description: "a link to a node that is gone", links: [(60, .active)], consumer: false, shared: false),
    ]

    @Test(arguments: sharingCases)
    func aScreenCastIsSharedWhileLinkedToAConsumer(_ sharing: SharingCase) {
        let casts = ScreenCastDetection.casts(in: Self.graph(links: sharing.links, consumer: sharing.consumer))
        let expected = sharing.shared
            ? [ScreenCast(node: Self.castID, implementation: "GNOME Shell", consumers: [Self.consumerID])] : []
        #expect(casts == expected)
    }

    @Test func theEngineInputCarriesTheCastsShared() {
        let graph = Self.graph(links: [(60, .active)])
        let input = EngineInputBuilder.build(graph: graph, classified: [:], now: 1, silentMode: false, resumeRequests: [])
        #expect(input.screenCasts.map(\.node) == [Self.castID])
        #expect(input.screenCasts.first?.description == "GNOME Shell screen cast, node 42")
    }

    // MARK: alerts while presenting

    static let cast = ScreenCast(node: castID, implementation: "GNOME Shell", consumers: [consumerID])
    static let music = EngineScenarioTests.music
    static let notification = EngineScenarioTests.notification
    static let recorder = EngineScenarioTests.recorder
    static let game = EngineScenarioTests.game

    /// While the screen is shared an alert is silenced from its first
    /// sample, as during a recording; the end of the sharing restores it.
    /// Nothing else is touched: music, a game, a recording play on.
    @Test func presentingSilencesAlertsUntilTheSharingEnds() {
        Scenario(streams: [Self.music, Self.notification, Self.game, Self.recorder]).run([
            .at(0, running: ["music"], expect: ["notification": .plays, "music": .plays]),
            // Not playing yet, and already at 0: it cannot blip.
            .at(1, running: ["music"], screenCasts: [Self.cast],
                expect: ["notification": .silenced, "music": .plays, "game": .plays], events: [.silenced("notification")]),
            .at(2, running: ["music", "notification", "game", "recorder"], screenCasts: [Self.cast],
                expect: ["notification": .silenced, "music": .plays, "game": .plays, "recorder": .plays]),
            .at(3, running: ["music", "notification"], screenCasts: [],
                expect: ["notification": .plays, "music": .plays], events: [.unsilenced("notification")]),
        ])
    }

    /// An alert during a recording that began while presenting stays
    /// silent when the sharing ends first, until the recording ends too.
    @Test func anAlertSilencedByBothStaysSilentUntilBothEnd() {
        Scenario(streams: [Self.notification, Self.recorder]).run([
            .at(0, running: ["recorder"], screenCasts: [Self.cast], expect: ["notification": .silenced],
                events: [.silenced("notification")]),
            .at(1, running: ["recorder", "notification"], screenCasts: [Self.cast], expect: ["notification": .silenced]),
            .at(2, running: ["recorder", "notification"], screenCasts: [], expect: ["notification": .silenced], events: []),
            .at(3, running: ["notification"], screenCasts: [], expect: ["notification": .plays],
                events: [.unsilenced("notification")]),
        ])
    }

    @Test func presentingSilenceAlertsOffLetsThemPlay() {
        var config = DefaultPolicyConfig.config
        config.settings.presentingSilencesAlerts = false
        Scenario(streams: [Self.notification], config: config).run([
            .at(0, running: ["notification"], screenCasts: [Self.cast], expect: ["notification": .plays], events: []),
        ])
    }

    @Test func theExplanationNamesTheScreenCast() throws {
        let decisions = Scenario(streams: [Self.notification]).run([
            .at(0, running: ["notification"], screenCasts: [Self.cast]),
            .at(1, running: [], screenCasts: [Self.cast]),
        ])
        let line = "silenced: the screen is being shared (GNOME Shell screen cast, node 42; presenting.silence-alerts)"
        #expect(decisions[0].streams[Self.notification.id]?.explanation == [line])
        #expect(decisions[1].streams[Self.notification.id]?.explanation == [line])
    }
}
