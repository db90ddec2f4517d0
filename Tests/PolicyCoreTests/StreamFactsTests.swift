import Foundation
import Testing
@testable import PolicyCore

/// Small hand-built graphs: clients with their application props, stream nodes pointing at them.
struct StreamGraphBuilder {
    var graph = Graph()

    mutating func client(_ id: UInt32, _ props: [String: String]) {
        graph.clients[id] = Graph.Client(id: id, props: props)
    }

    mutating func stream(_ id: UInt32, client: UInt32?, _ direction: StreamDirection, _ state: Graph.NodeState,
                         _ props: [String: String] = [:]) {
        var all = props
        all["media.class"] = direction == .playback ? "Stream/Output/Audio" : "Stream/Input/Audio"
        all["object.serial"] = String(id + 1000)
        if let client { all["client.id"] = String(client) }
        graph.nodes[id] = Graph.Node(id: id, props: all, state: state)
    }

    func facts(overrides: OverrideTable = .empty) -> [UInt32: StreamFacts] {
        Dictionary(uniqueKeysWithValues: makeStreamFacts(graph: graph, overrides: overrides).map { ($0.nodeID, $0) })
    }
}

let firefoxClientProps = ["application.name": "Firefox", "application.process.binary": "firefox",
                     "application.process.id": "3312", "pipewire.sec.pid": "1800"]

@Suite struct StreamFactsTests {
    // MARK: what is copied

    /// The registry announces a node with some of its props only; until its
    /// info brings `policy.*` and the rest, it is not classified at all.
    @Test func skipsStreamsWhoseInfoHasNotArrived() {
        var builder = StreamGraphBuilder()
        builder.stream(50, client: nil, .playback, .running, ["media.role": "Music"])
        builder.stream(51, client: nil, .playback, .creating, ["media.role": "Music"])
        builder.graph.nodes[51]?.hasInfo = false
        #expect(builder.facts().keys.sorted() == [50])
    }

    @Test func copiesStreamsWithTheirClientProps() {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running, ["media.name": "AudioStream"])
        builder.stream(51, client: 99, .capture, .idle)
        builder.graph.nodes[60] = Graph.Node(id: 60, props: ["media.class": "Audio/Sink", "node.name": "speakers"])
        let facts = builder.facts()
        #expect(facts.keys.sorted() == [50, 51])
        #expect(facts[50]?.direction == .playback)
        #expect(facts[50]?.clientProps == firefoxClientProps)
        #expect(facts[50]?.nodeProps["media.name"] == "AudioStream")
        #expect(facts[51]?.direction == .capture)
        #expect(facts[51]?.clientProps == [:])
    }

    @Test func factsComeSortedByNodeID() {
        var builder = StreamGraphBuilder()
        for id: UInt32 in [90, 12, 55] { builder.stream(id, client: nil, .playback, .idle) }
        #expect(makeStreamFacts(graph: builder.graph, overrides: .empty).map(\.nodeID) == [12, 55, 90])
    }

    // MARK: call detection

    @Test func oneProcessPlayingAndCapturingIsACall() {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        // pipewire-pulse opens a client per connection: the capture comes from another client, same pid.
        builder.client(31, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running, ["media.name": "AudioStream"])
        builder.stream(51, client: 31, .capture, .running, ["media.name": "AudioStream"])
        let facts = builder.facts()
        #expect(facts[50]?.appAlsoStreamsOtherDirection == true)
        #expect(facts[51]?.appAlsoStreamsOtherDirection == true)
    }

    /// One judgement across the instance's streams, including while one of
    /// them opens: a call's microphone opens a moment after its playback
    /// (or before it), and both are the call from the start.
    @Test func anOpeningOtherSideCounts() {
        for state: Graph.NodeState in [.creating, .suspended, .idle] {
            var builder = StreamGraphBuilder()
            builder.client(30, firefoxClientProps)
            builder.stream(50, client: 30, .playback, .running, ["media.name": "Playback"])
            builder.stream(51, client: 30, .capture, state, ["media.name": "RecordStream"])
            let facts = builder.facts()
            print("capture \(state): playback's other side \(facts[50]?.instance.otherSide?.description ?? "none")")
            #expect(facts[50]?.instance.otherSide == InstanceStream(nodeID: 51, name: "RecordStream", direction: .capture,
                                                                   activity: .opening))
            #expect(facts[51]?.instance.otherSide?.activity == .running)
        }
    }

    /// A side the app stopped is no call's side: a corked pulse stream, or
    /// one seen running that stopped (the agent's cache remembers it ran).
    @Test func aStoppedOtherSideDoesNotCount() throws {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running)
        builder.stream(51, client: 30, .capture, .idle, ["pulse.corked": "true"])
        #expect(builder.facts()[50]?.appAlsoStreamsOtherDirection == false)

        var known: [UInt32: StreamPropertyFacts] = [:]
        builder.graph.nodes[51]?.props["pulse.corked"] = nil
        builder.graph.nodes[51]?.state = .running
        var facts = makeStreamFacts(graph: builder.graph, overrides: .empty, known: &known)
        #expect(facts.first { $0.nodeID == 50 }?.instance.otherSide?.activity == .running)
        builder.graph.nodes[51]?.state = .idle
        facts = makeStreamFacts(graph: builder.graph, overrides: .empty, known: &known)
        print("after the capture ran and stopped: \(facts.map { "\($0.nodeID): \($0.instance.otherSide?.description ?? "alone")" })")
        #expect(facts.first { $0.nodeID == 50 }?.appAlsoStreamsOtherDirection == false)
        #expect(facts.first { $0.nodeID == 51 }?.appAlsoStreamsOtherDirection == true)
        // Its properties changing does not make it new.
        builder.graph.nodes[51]?.props["media.name"] = "renamed"
        facts = makeStreamFacts(graph: builder.graph, overrides: .empty, known: &known)
        #expect(facts.first { $0.nodeID == 50 }?.appAlsoStreamsOtherDirection == false)
    }

    /// A screen recorder's instance: its desktop capture sees the
    /// microphone and the screen cast beside it; the microphone is no call
    /// with the desktop capture.
    @Test func aRecordersInstanceSeesItsMicrophoneAndVideo() {
        var builder = StreamGraphBuilder()
        builder.client(30, ["application.name": "Kooha", "application.process.id": "900"])
        builder.stream(50, client: 30, .capture, .running, ["stream.capture.sink": "true", "media.name": "desktop"])
        builder.stream(51, client: 30, .capture, .running, ["media.name": "mic"])
        builder.graph.nodes[52] = Graph.Node(id: 52, props: ["media.class": "Stream/Input/Video", "client.id": "30",
                                                             "media.name": "screen"], state: .running)
        let facts = builder.facts()
        #expect(facts[50]?.instance.microphone?.nodeID == 51)
        #expect(facts[50]?.instance.video?.nodeID == 52)
        #expect(facts[50]?.instance.otherSide == nil && facts[51]?.instance.otherSide == nil)
        #expect(facts[51]?.instance.microphone == nil, "a stream is not its own microphone")
    }

    @Test func twoStreamsOfOneDirectionAreNoCall() {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running)
        builder.stream(51, client: 30, .playback, .running)
        #expect(builder.facts().values.allSatisfy { !$0.appAlsoStreamsOtherDirection })
    }

    @Test func differentProcessesAreNoCall() {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.client(31, ["application.name": "Chromium", "application.process.binary": "chromium",
                            "application.process.id": "4501", "pipewire.sec.pid": "1800"])
        builder.stream(50, client: 30, .playback, .running)
        builder.stream(51, client: 31, .capture, .running)
        #expect(builder.facts().values.allSatisfy { !$0.appAlsoStreamsOtherDirection })
    }

    /// Inside Flatpak every app may report pid 2: the portal app id keeps them apart.
    @Test func sandboxedAppsWithTheSameNamespacePidAreNoCall() {
        var builder = StreamGraphBuilder()
        builder.client(30, ["application.process.id": "2", "pipewire.access": "flatpak",
                            "pipewire.access.portal.app_id": "com.spotify.Client"])
        builder.client(31, ["application.process.id": "2", "pipewire.access": "flatpak",
                            "pipewire.access.portal.app_id": "com.obsproject.Studio"])
        builder.stream(50, client: 30, .playback, .running)
        builder.stream(51, client: 31, .capture, .running)
        #expect(builder.facts().values.allSatisfy { !$0.appAlsoStreamsOtherDirection })
    }

    @Test func eventSoundsAndMetersMakeNoCall() {
        var builder = StreamGraphBuilder()
        builder.client(30, ["application.name": "Sound Recorder", "application.process.id": "700"])
        builder.stream(50, client: 30, .capture, .running)
        builder.stream(51, client: 30, .playback, .running, ["event.id": "complete", "media.role": "event"])
        builder.client(31, ["application.name": "PulseAudio Volume Control", "application.process.binary": "pavucontrol",
                            "application.process.id": "800"])
        builder.stream(52, client: 31, .capture, .running, ["media.name": "Peak detect", "stream.monitor": "true"])
        builder.stream(53, client: 31, .playback, .running, ["media.name": "Test"])
        let facts = builder.facts()
        #expect(facts[50]?.appAlsoStreamsOtherDirection == false)
        #expect(facts[53]?.appAlsoStreamsOtherDirection == false)
    }

    // MARK: overrides

    @Test func nodeOverrideBeatsAppOverride() {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running)
        builder.stream(51, client: 30, .playback, .running)
        let overrides = OverrideTable(byNode: [51: ClassificationOverride(category: .ambient)],
                                      byApp: ["firefox": ClassificationOverride(category: .playback, options: [.duckOthers])])
        let facts = builder.facts(overrides: overrides)
        #expect(facts[50]?.override == ClassificationOverride(category: .playback, options: [.duckOthers]))
        #expect(facts[51]?.override == ClassificationOverride(category: .ambient))
        #expect(overrides.lookup(nodeID: 51, appKey: "firefox")?.scope == .node(51))
        #expect(overrides.lookup(nodeID: 50, appKey: "firefox")?.scope == .app("firefox"))
        #expect(overrides.override(nodeID: 50, appKey: "chromium") == nil)
    }

    @Test func appOverrideSurvivesARestart() {
        let overrides = OverrideTable(byApp: ["firefox": ClassificationOverride(category: .ambient)])
        for pid in ["3312", "9001"] {
            var builder = StreamGraphBuilder()
            builder.client(30, firefoxClientProps.merging(["application.process.id": pid]) { $1 })
            builder.stream(50, client: 30, .playback, .running)
            #expect(builder.facts(overrides: overrides)[50]?.override?.category == .ambient)
        }
    }

    @Test func overrideTableCodableRoundTrip() throws {
        let table = OverrideTable(
            byNode: [57: ClassificationOverride(category: .record)],
            byApp: ["com.spotify.Client": ClassificationOverride(category: .playback, mode: .spokenAudio)])
        let data = try JSONEncoder().encode(table)
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains(#""57""#))
        #expect(try JSONDecoder().decode(OverrideTable.self, from: data) == table)
    }

    @Test func overrideTableRejectsABadNodeKey() {
        let json = Data(#"{"nodes":{"speakers":{"category":"record","options":[],"mode":"default"}},"apps":{}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(OverrideTable.self, from: json) }
    }

    // MARK: identity and sessions

    @Test(arguments: [
        (["application.process.binary": "firefox", "application.name": "Firefox"], [String: String](), "firefox"),
        (["application.process.binary": "spotify"], ["pipewire.access.portal.app_id": "com.spotify.Client"],
         "com.spotify.Client"),
        (["application.id": "org.gnome.Music", "application.process.binary": "python3.11"], [:], "org.gnome.Music"),
        (["application.name": "gPodder", "application.process.binary": "python3"], [:], "gPodder"),
        (["application.name": "Hades II"], [:], "Hades II"),
        (["node.name": "pw-play"], [:], "pw-play"),
        ([:], [:], "unknown"),
    ])
    func overrideKeys(node: [String: String], client: [String: String], expected: String) {
        #expect(AppIdentity.overrideKey(nodeProps: node, clientProps: client) == expected)
        #expect(AppIdentity.key(nodeProps: node, clientProps: client) == expected)
    }

    @Test func anAppCannotClaimASandboxIDOnItsOwnNode() {
        let key = AppIdentity.instanceKey(nodeProps: ["pipewire.access.portal.app_id": "org.mozilla.firefox"],
                                          clientProps: ["pipewire.access.portal.app_id": "com.evil.App",
                                                        "application.process.id": "2"])
        #expect(key == "app:com.evil.App")
    }

    @Test func sessionKeysGroupOneInstanceAndCategory() {
        let firefox = AppIdentity.sessionKey(nodeProps: [:], clientProps: firefoxClientProps, category: .playback)
        let sameApp = AppIdentity.sessionKey(nodeProps: ["client.id": "77"], clientProps: firefoxClientProps, category: .playback)
        let ping = AppIdentity.sessionKey(nodeProps: [:], clientProps: firefoxClientProps, category: .systemSound)
        let otherInstance = AppIdentity.sessionKey(
            nodeProps: [:], clientProps: firefoxClientProps.merging(["application.process.id": "9001"]) { $1 },
            category: .playback)
        #expect(firefox == sameApp)
        #expect(firefox != ping)
        #expect(firefox != otherInstance)
        #expect(firefox.rawValue == "pid:3312/playback")
        // pipewire.sec.pid is pipewire-pulse's for PulseAudio clients: never an identity.
        #expect(AppIdentity.instanceKey(nodeProps: ["client.id": "31"], clientProps: ["pipewire.sec.pid": "1800"])
            == "client:31")
    }

    @Test func displayNames() {
        #expect(AppIdentity.displayName(nodeProps: [:], clientProps: firefoxClientProps) == "Firefox")
        #expect(AppIdentity.displayName(nodeProps: ["application.process.binary": "mpv"], clientProps: [:]) == "mpv")
        #expect(AppIdentity.displayName(nodeProps: [:], clientProps: ["pipewire.access.portal.app_id": "com.spotify.Client"])
            == "com.spotify.Client")
        #expect(AppIdentity.displayName(nodeProps: ["client.id": "31"], clientProps: [:]) == "client 31")
    }

    // MARK: classifyAll

    @Test func aCallIsOneSessionAndItsPingAnother() throws {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running, ["media.name": "AudioStream"])
        builder.stream(51, client: 30, .capture, .running, ["media.name": "AudioStream"])
        builder.stream(52, client: 30, .playback, .running, ["event.id": "message-new-instant"])
        let classified = classifyAll(graph: builder.graph, overrides: .empty,
                                     classifier: try Classifier(config: classifierTestConfig()))
        #expect(classified[50]?.classification.category == .playAndRecord)
        #expect(classified[51]?.classification.category == .playAndRecord)
        #expect(classified[52]?.classification.category == .systemSound)
        #expect(classified[50]?.session == classified[51]?.session)
        #expect(classified[50]?.session != classified[52]?.session)
        #expect(classified[50]?.appName == "Firefox")
        #expect(classified[50]?.appKey == "firefox")
    }

    @Test func whenTheCallEndsTheMusicIsPlaybackAgain() throws {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running, ["media.name": "AudioStream"])
        builder.stream(51, client: 30, .capture, .running, ["media.name": "AudioStream"])
        let classifier = try Classifier(config: classifierTestConfig())
        #expect(classifyAll(graph: builder.graph, overrides: .empty, classifier: classifier)[50]?
            .classification.category == .playAndRecord)
        builder.graph.nodes[51] = nil
        let after = classifyAll(graph: builder.graph, overrides: .empty, classifier: classifier)[50]
        #expect(after?.classification.category == .playback)
        #expect(after?.classification.options == [.mixWithOthers])
    }

    /// The agent's cache answers exactly as classifying afresh, through
    /// changes of props, running state (a call starting), overrides and
    /// streams (it remembers one thing more: which streams ran, so a side
    /// that stopped is told from one opening; no step here stops one).
    @Test func theCacheAgreesWithAFreshClassificationThroughChanges() throws {
        let classifier = try Classifier(config: classifierTestConfig())
        var cache = ClassificationCache(classifier: classifier)
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running, ["media.name": "AudioStream"])
        builder.stream(51, client: 30, .capture, .idle, ["media.name": "AudioStream", "pulse.corked": "true"])
        builder.stream(52, client: nil, .playback, .running, ["media.role": "Music", "application.name": "mpv"])
        var overrides = OverrideTable.empty
        let steps: [(String, (inout StreamGraphBuilder, inout OverrideTable) -> Void)] = [
            ("nothing", { _, _ in }),
            ("the capture starts: a call", { builder, _ in
                builder.graph.nodes[51]?.state = .running
                builder.graph.nodes[51]?.props["pulse.corked"] = nil
            }),
            ("props change", { builder, _ in builder.graph.nodes[52]?.props["media.role"] = "Game" }),
            ("client props change", { builder, _ in builder.graph.clients[30]?.props["application.name"] = "Zoom" }),
            ("app override", { _, overrides in overrides = OverrideTable(byNode: [:], byApp: ["mpv": ClassificationOverride(category: .ambient)]) }),
            ("stream override", { _, overrides in overrides = OverrideTable(byNode: [52: ClassificationOverride(category: .playback)], byApp: overrides.byApp) }),
            ("the call ends", { builder, _ in builder.graph.nodes[51] = nil }),
            ("a stream comes", { builder, _ in builder.stream(53, client: 30, .playback, .running, ["event.id": "bell"]) }),
        ]
        var categories: [[Category]] = []
        for (name, step) in steps {
            step(&builder, &overrides)
            let cached = cache.classifyAll(graph: builder.graph, overrides: overrides)
            #expect(cached == classifyAll(graph: builder.graph, overrides: overrides, classifier: classifier), "after: \(name)")
            categories.append(cached.keys.sorted().compactMap { cached[$0]?.classification.category })
        }
        // The steps did change classifications (or the comparison proves little).
        #expect(Set(categories.map { $0.map(\.rawValue).joined(separator: ",") }).count >= 5, "\(categories)")
    }

    @Test func classifyAllNamesTheOverrideScope() throws {
        var builder = StreamGraphBuilder()
        builder.client(30, firefoxClientProps)
        builder.stream(50, client: 30, .playback, .running)
        builder.stream(51, client: 30, .playback, .running)
        let overrides = OverrideTable(byNode: [51: ClassificationOverride(category: .ambient)],
                                      byApp: ["firefox": ClassificationOverride(category: .soloAmbient)])
        let classified = classifyAll(graph: builder.graph, overrides: overrides,
                                     classifier: try Classifier(config: classifierTestConfig()))
        #expect(classified[50]?.classification.reason == #"override for app "firefox" (pw-policy set) → solo-ambient"#)
        #expect(classified[51]?.classification.reason == "override for stream 51 (pw-policy set) → ambient")
        #expect(classified[51]?.session.rawValue == "pid:3312/ambient")
    }
}
