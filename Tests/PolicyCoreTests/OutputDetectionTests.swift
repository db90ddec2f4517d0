import Testing
@testable import PolicyCore
import PolicyTestSupport

@Suite struct OutputDetectionTests {
    struct PrivacyCase: CustomTestStringConvertible, Sendable {
        var label: String
        var sinkName = "alsa_output.pci-0000_00_1f.3.analog-stereo"
        var sinkProps: [String: String] = [:]
        var deviceProps: [String: String] = [:]
        var routes: [Graph.Route] = []
        var profileDevice: Int32? = 0
        var isPrivate: Bool
        var isAvailable = true
        var testDescription: String { label }
    }

    static let privacyCases: [PrivacyCase] = [
        PrivacyCase(label: "plain sink, nothing known", isPrivate: false),
        PrivacyCase(label: "form factor headphones on the sink", sinkProps: ["device.form-factor": "headphones"],
                    isPrivate: true),
        PrivacyCase(label: "form factor headset on the device", deviceProps: ["device.form-factor": "headset"],
                    isPrivate: true),
        PrivacyCase(label: "form factor internal", deviceProps: ["device.form-factor": "internal"], isPrivate: false),
        PrivacyCase(label: "bus bluetooth", deviceProps: ["device.bus": "bluetooth"], isPrivate: true),
        PrivacyCase(label: "api bluez5 on the sink", sinkProps: ["device.api": "bluez5"], isPrivate: true),
        PrivacyCase(label: "bluez_output name", sinkName: "bluez_output.00_11_22_33_44_55.1", isPrivate: true),
        // Jack switching: the same ALSA sink, its active route decides.
        PrivacyCase(label: "route port.type headphones",
                    routes: [Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones",
                                         available: .yes, portType: "headphones")],
                    isPrivate: true),
        PrivacyCase(label: "route port.type speaker",
                    routes: [Graph.Route(index: 0, device: 0, direction: .output, name: "analog-output-speaker",
                                         available: .unknown, portType: "speaker")],
                    isPrivate: false),
        PrivacyCase(label: "route name headphones without port.type",
                    routes: [Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones")],
                    isPrivate: true),
        // An unplugged port plays to no one: not private, and with no other
        // port listed the sink has nowhere to play.
        PrivacyCase(label: "route headphones unplugged: neither private nor available",
                    routes: [Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones",
                                         available: .no, portType: "headphones")],
                    isPrivate: false, isAvailable: false),
        PrivacyCase(label: "route of another profile device does not count",
                    routes: [Graph.Route(index: 1, device: 3, direction: .output, name: "analog-output-headphones",
                                         available: .no, portType: "headphones")],
                    isPrivate: false, isAvailable: true),
        PrivacyCase(label: "input route does not count",
                    routes: [Graph.Route(index: 1, device: 0, direction: .input, name: "analog-input-headset-mic",
                                         available: .no, portType: "headset")],
                    isPrivate: false, isAvailable: true),
        PrivacyCase(label: "headset form factor with an uninformative route port.type",
                    deviceProps: ["device.form-factor": "headset"],
                    routes: [Graph.Route(index: 0, device: 0, direction: .output, name: "analog-output",
                                         available: .unknown, portType: "analog")],
                    isPrivate: true),
        PrivacyCase(label: "Bluetooth whose route reports a non-headphone port.type",
                    sinkName: "bluez_output.00_11_22_33_44_55.1", deviceProps: ["device.api": "bluez5"],
                    routes: [Graph.Route(index: 0, device: 0, direction: .output, name: "portable-output",
                                         available: .yes, portType: "portable")],
                    isPrivate: true),
        PrivacyCase(label: "single route, sink without card.profile.device",
                    routes: [Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones",
                                         available: .yes, portType: "headphones")],
                    profileDevice: nil, isPrivate: true),
    ]

    @Test(arguments: privacyCases)
    func privacyAndAvailability(_ example: PrivacyCase) throws {
        var graph = Graph()
        graph.addDevice(40, props: example.deviceProps, routes: example.routes)
        graph.addSink(1, name: example.sinkName, props: example.sinkProps, device: 40, profileDevice: example.profileDevice)
        let outputs = OutputDetection.outputs(in: graph)
        let output = try #require(outputs.first)
        #expect(outputs.count == 1)
        #expect(output.isPrivate == example.isPrivate)
        #expect(output.isAvailable == example.isAvailable)
        #expect(output.name == example.sinkName)
    }

    @Test func jackSwitchOnOneSinkFlipsPrivacy() {
        var graph = Graph()
        graph.addSink(1, name: "alsa_output.analog-stereo", device: 40, profileDevice: 0)
        graph.addDevice(40, routes: [Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones",
                                                 available: .yes, portType: "headphones")])
        #expect(OutputDetection.outputs(in: graph).map(\.isPrivate) == [true])
        graph.devices[40]?.routes = [Graph.Route(index: 0, device: 0, direction: .output, name: "analog-output-speaker",
                                                 available: .unknown, portType: "speaker")]
        #expect(OutputDetection.outputs(in: graph).map(\.isPrivate) == [false])
    }

    @Test func routeMatchedByProfileDeviceAmongSeveral() {
        var graph = Graph()
        graph.addDevice(40, routes: [
            Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones",
                        available: .yes, portType: "headphones"),
            Graph.Route(index: 5, device: 3, direction: .output, name: "hdmi-output-0", available: .no, portType: "hdmi"),
        ])
        graph.addSink(1, name: "analog", device: 40, profileDevice: 0)
        graph.addSink(2, name: "hdmi", device: 40, profileDevice: 3)
        let outputs = OutputDetection.outputs(in: graph)
        #expect(outputs.map(\.id) == [1, 2])
        #expect(outputs.map(\.isPrivate) == [true, false])
        #expect(outputs.map(\.isAvailable) == [true, false])
    }

    @Test func virtualSinksAreNotOutputs() {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addSink(2, name: "effect_input.eq", props: ["node.virtual": "true"])
        graph.addSink(3, name: "duplex", mediaClass: "Audio/Duplex")
        graph.addStream(10)
        #expect(OutputDetection.outputs(in: graph).map(\.id) == [1, 3])
    }

    @Test func outputCarriesTheSinkProps() throws {
        var graph = Graph()
        graph.addSink(1, name: "speakers", props: ["node.description": "Built-in"])
        let output = try #require(OutputDetection.outputs(in: graph).first)
        #expect(output.props["node.description"] == "Built-in")
        #expect(output.props["node.name"] == "speakers")
    }

    @Test func defaultOutputFromTheDefaultMetadata() {
        var graph = Graph()
        graph.addSink(1, name: "headphones")
        graph.addSink(2, name: "speakers")
        #expect(OutputDetection.defaultOutput(in: graph) == nil)
        graph.setDefaults(sink: "speakers")
        #expect(OutputDetection.defaultOutput(in: graph) == 2)
        graph.setDefaults(sink: "headphones")
        #expect(OutputDetection.defaultOutput(in: graph) == 1)
        graph.setDefaults(sink: "gone")
        #expect(OutputDetection.defaultOutput(in: graph) == nil)
    }

    @Test func defaultInputFromTheDefaultMetadata() {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addSource(3, name: "mic")
        graph.setDefaults(sink: "speakers", source: "mic")
        #expect(OutputDetection.defaultInput(in: graph) == 3)
        graph.setDefaults(sink: "speakers", source: "speakers")  // a sink monitor
        #expect(OutputDetection.defaultInput(in: graph) == 1)
    }

    @Test(arguments: [
        "", "speakers", "{", "}", "[\"speakers\"]", "{\"name\": 42}", "{\"nam\":\"speakers\"}", "null",
        "{\"name\":{\"name\":\"speakers\"}}", String(repeating: "{", count: 10_000), "\u{0}\u{1}\u{ff}",
    ])
    func garbageDefaultSinkIsNil(_ raw: String) {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.setDefaults(sink: nil, rawSink: raw)
        #expect(OutputDetection.defaultOutput(in: graph) == nil)
    }

    @Test func spaJSONDefaultSinkIsRead() {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.setDefaults(sink: nil, rawSink: "{ name = speakers }")
        #expect(OutputDetection.defaultOutput(in: graph) == 1)
    }

    @Test func aSinkWithoutInputPortsIsUnavailable() {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        #expect(OutputDetection.outputs(in: graph).map(\.isAvailable) == [true, true])
        // The daemon destroys a sink's links and ports first and its node later.
        graph.ports[20] = nil
        #expect(OutputDetection.outputs(in: graph).map(\.isAvailable) == [true, false])
    }

    /// WirePlumber relinks a stream to the speakers between the headphones
    /// sink losing its ports and its node going away: still an unplug.
    @Test func aStreamMovedOffADyingHeadphonesSinkIsHeld() {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addSink(2, name: "headphones", props: ["device.form-factor": "headphones"])
        graph.addStream(10)
        graph.addLink(50, from: 10, to: 2)
        graph.setDefaults(sink: "speakers")
        let engine = PolicyEngine(config: DefaultPolicyConfig.config)
        let classified = [UInt32(10): testClassified(10, options: [.mixWithOthers])]
        func decide(_ graph: Graph, at now: Double, memory: EngineMemory) -> PolicyDecision {
            engine.decide(EngineInputBuilder.build(graph: graph, classified: classified, now: now, silentMode: false,
                                                   resumeRequests: []), memory: memory)
        }
        let playing = decide(graph, at: 1, memory: .empty)
        let settled = decide(graph, at: 2, memory: playing.memory)
        #expect(settled.streams[10]?.hold == nil)
        graph.links[50] = nil
        graph.ports[20] = nil
        graph.addLink(51, from: 10, to: 1)  // WirePlumber's new link, before the node's removal
        let unplugged = decide(graph, at: 2.01, memory: settled.memory)
        #expect(unplugged.streams[10]?.hold != nil, "\(String(describing: unplugged.streams[10]))")
    }

    @Test func engineInputTakesOutputsDefaultAndLinkedSink() {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addSink(2, name: "bluez_output.x")
        graph.addStream(10)
        graph.addStream(11, direction: .capture, state: .idle)
        graph.addLink(50, from: 10, to: 2)
        graph.setDefaults(sink: "speakers")
        let classified: [UInt32: ClassifiedStream] = [10: testClassified(10), 11: testClassified(11, category: .record, direction: .capture),
                          12: testClassified(12)]  // 12 is gone from the graph
        let input = EngineInputBuilder.build(graph: graph, classified: classified, now: 3, silentMode: true,
                                             resumeRequests: [10])
        #expect(input.streams.map(\.id) == [10, 11])
        #expect(input.streams.map(\.output) == [2, nil])
        #expect(input.streams.map(\.isRunning) == [true, false])
        #expect(input.outputs.map(\.isPrivate) == [false, true])
        #expect(input.defaultOutput == 1)
        #expect(input.silentMode && input.resumeRequests == [10] && input.now == 3)
    }

    /// The oldest link names the sink; only an idle stream with no link in
    /// either direction counts as unlinked.
    @Test func engineInputFindsSinksAndUnlinkedStreams() {
        var graph = Graph()
        graph.addSink(1, name: "speakers")
        graph.addSink(2, name: "headphones")
        graph.addStream(10)
        graph.addLink(61, from: 10, to: 1)
        graph.addLink(60, from: 10, to: 2)  // older: WirePlumber's, the other is someone's extra
        graph.addStream(11, state: .idle)
        graph.addStream(12, direction: .capture, state: .idle)
        graph.addLink(62, from: 1, to: 12)
        graph.addStream(13, direction: .capture, state: .idle)
        graph.addStream(14)
        let classified = Dictionary(uniqueKeysWithValues: [10, 11, 14].map { ($0, testClassified($0)) }
            + [12, 13].map { ($0, testClassified($0, category: .record, direction: .capture)) })
        let input = EngineInputBuilder.build(graph: graph, classified: classified, now: 1, silentMode: false, resumeRequests: [])
        #expect(input.streams.map(\.output) == [2, nil, nil, nil, nil])
        #expect(input.streams.map(\.isUnlinked) == [false, true, false, true, false])
        #expect(EngineInputBuilder.linkedSink(of: 10, in: graph) == 2)
        #expect(EngineInputBuilder.linkedSinks(in: graph) == [10: 2, 1: 12])
    }
}
