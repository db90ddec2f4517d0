import PolicyCore
import Testing

/// pw-dump's JSON read into the graph the mirror would hold: objects shaped
/// as PipeWire 1.4.2's pw-dump prints them (captured in the sandbox), cut
/// to what the mirror reads.
struct PipeWireDumpTests {
    static let dump = #"""
    [
      { "id": 0, "type": "PipeWire:Interface:Core", "info": { "version": "1.4.2", "name": "pipewire-0", "props": { "core.daemon": true } } },
      { "id": 27, "type": "PipeWire:Interface:Client", "info": { "props": {
          "application.name": "WirePlumber", "application.version": "0.5.8", "wireplumber.daemon": true,
          "pipewire.sec.pid": 23482, "core.version": "1.4.2" } } },
      { "id": 35, "type": "PipeWire:Interface:Node", "info": { "state": "running", "props": {
          "media.class": "Audio/Sink", "node.name": "speakers", "object.serial": 37, "monitor.channel-volumes": true,
          "device.id": 47, "card.profile.device": 0 },
        "params": { "Props": [ { "volume": 1.0, "mute": false, "channelVolumes": [ 0.5, 0.25 ] } ] } } },
      { "id": 47, "type": "PipeWire:Interface:Node", "info": { "state": "suspended", "props": {
          "media.class": "Stream/Output/Audio", "node.name": "pw-play", "media.role": "Music", "client.id": 46, "object.serial": 52 },
        "params": { "Props": [ { "volume": 0.5, "mute": true, "channelVolumes": [ 1.0 ] }, { "params": [ "monitor.channel-volumes", false ] } ] } } },
      { "id": 34, "type": "PipeWire:Interface:Port", "info": { "direction": "input", "props": {
          "audio.channel": "FL", "node.id": 35, "port.direction": "in" } } },
      { "id": 37, "type": "PipeWire:Interface:Port", "info": { "direction": "output", "props": {
          "audio.channel": "FL", "node.id": 35, "port.direction": "out", "port.monitor": true } } },
      { "id": 48, "type": "PipeWire:Interface:Port", "info": { "direction": "output", "props": { "audio.channel": "MONO", "node.id": 47 } } },
      { "id": 50, "type": "PipeWire:Interface:Link", "info": { "output-node-id": 47, "output-port-id": 48, "input-node-id": 35,
          "input-port-id": 34, "state": "init", "props": { "link.output.node": 47 } } },
      { "id": 47, "type": "PipeWire:Interface:Device", "info": { "props": { "media.class": "Audio/Device", "device.api": "alsa" },
        "params": {
          "Route": [ { "index": 1, "direction": "Output", "name": "analog-output-headphones", "description": "Headphones",
                       "priority": 9900, "available": "yes", "info": [ 2, "port.type", "headphones", "port.availability-group", "Legacy 1" ],
                       "profiles": [ 1 ], "device": 0, "devices": [ 0 ], "profile": 1, "save": false } ],
          "EnumRoute": [ { "index": 0, "direction": "Output", "name": "analog-output-speaker", "available": "no",
                           "info": [ 1, "port.type", "speaker" ], "devices": [ 0 ] },
                         { "index": 2, "direction": "Input", "name": "analog-input-mic", "available": "unknown", "devices": [ 0 ] } ] } } },
      { "id": 32, "type": "PipeWire:Interface:Metadata", "props": { "metadata.name": "default", "object.serial": 33 },
        "metadata": [ { "subject": 0, "key": "default.audio.sink", "type": "Spa:String:JSON", "value": { "name": "speakers" } },
                      { "subject": 0, "key": "node.stream.default-media-role", "type": "Spa:String:JSON", "value": "Music" },
                      { "subject": 47, "key": "target.object", "type": "Spa:Id", "value": 37 },
                      { "subject": 0, "key": "log.level", "type": "", "value": 2 },
                      { "subject": 47, "key": "note", "type": "Spa:String", "value": "a b" },
                      { "subject": 47, "key": "gone", "type": null, "value": null } ] },
      { "id": 3, "type": "PipeWire:Interface:Factory", "info": { "name": "client-node" } }
    ]
    """#

    @Test func readsEveryObjectTheMirrorReads() throws {
        let parsed = try PipeWireDump.parse(Array(Self.dump.utf8))
        #expect(parsed.warnings.isEmpty, "\(parsed.warnings)")
        let graph = parsed.graph
        #expect(graph.core == Graph.Core(version: "1.4.2"))
        #expect(graph.clients[27]?.props["pipewire.sec.pid"] == "23482")
        #expect(graph.clients[27]?.props["wireplumber.daemon"] == "true")

        let sink = try #require(graph.nodes[35])
        #expect(sink.state == .running && sink.isAudioSink && sink.serial == 37 && sink.deviceID == 47)
        #expect(sink.props["monitor.channel-volumes"] == "true" && sink.props["card.profile.device"] == "0")
        #expect(sink.volume == 1 && sink.channelVolumes == [0.5, 0.25] && sink.mute == false)
        let stream = try #require(graph.nodes[47])
        #expect(stream.state == .suspended && stream.streamDirection == .playback && stream.clientID == 46)
        #expect(stream.volume == 0.5 && stream.channelVolumes == [1] && stream.mute == true && stream.hasInfo)

        #expect(graph.ports[34] == Graph.Port(id: 34, nodeID: 35, direction: .input, channel: "FL",
                                              props: ["audio.channel": "FL", "node.id": "35", "port.direction": "in"]))
        #expect(graph.ports[37]?.isMonitor == true && graph.ports[37]?.direction == .output)
        // No port.direction: the info's direction.
        #expect(graph.ports[48]?.direction == .output)
        #expect(graph.links[50] == Graph.Link(id: 50, outputNode: 47, outputPort: 48, inputNode: 35, inputPort: 34,
                                              state: .initializing))

        let device = try #require(graph.devices[47])
        #expect(device.routes == [Graph.Route(index: 1, device: 0, direction: .output, name: "analog-output-headphones",
                                              description: "Headphones", available: .yes, portType: "headphones", devices: [0])])
        #expect(device.ports.map(\.name) == ["analog-output-speaker", "analog-input-mic"])
        #expect(device.ports.map(\.available) == [.no, .unknown])
        #expect(device.ports.map(\.direction) == [.output, .input])
        #expect(device.ports.first?.device == -1, "no device: as libspa leaves it")

        let defaults = try #require(graph.metadata(named: "default"))
        #expect(defaults.id == 32)
        #expect(defaults.value(subject: 0, key: "default.audio.sink") == #"{"name":"speakers"}"#)
        #expect(defaults.value(subject: 0, key: "node.stream.default-media-role") == #""Music""#, "JSON stays JSON")
        #expect(defaults.value(subject: 47, key: "target.object") == "37")
        #expect(defaults.value(subject: 0, key: "log.level") == "2")
        #expect(defaults.value(subject: 47, key: "note") == "a b")
        #expect(defaults.entries[47]?["gone"] == nil, "a null value is no entry")
        #expect(graph.nodes.count == 2 && graph.metadata.count == 1)
    }

    @Test(arguments: [
        ("", "not a pw-dump: invalid JSON at byte 0"),
        ("{\"id\": 1}", "not a pw-dump: pw-dump prints a JSON array of objects, this is an object"),
        ("[{\"id\": 1,", "not a pw-dump: invalid JSON"),
        ("\"text\"", "this is a string"),
    ])
    func notADumpIsAnError(input: String, message: String) {
        #expect {
            try PipeWireDump.parse(Array(input.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func objectsItCannotReadAreSkippedWithAWarning() throws {
        let parsed = try PipeWireDump.parse(Array(#"""
        [ 7, { "type": "PipeWire:Interface:Node" }, { "id": "x", "type": "PipeWire:Interface:Node" },
          { "id": 5, "type": "PipeWire:Interface:Link", "info": { "output-node-id": 1 } },
          { "id": 6, "type": "PipeWire:Interface:Port", "info": { "props": { "audio.channel": "FL" } } },
          { "id": 9, "type": "PipeWire:Interface:Node", "info": null } ]
        """#.utf8))
        #expect(parsed.warnings == [
            "object 1 of the dump skipped: no numeric id and type",
            "object 2 of the dump skipped: no numeric id and type",
            "object 3 of the dump skipped: no numeric id and type",
            "link 5 skipped: its nodes and ports are not all given",
            "port 6 skipped: no node.id",
            "no PipeWire:Interface:Core object: the PipeWire version is unknown",
        ])
        #expect(parsed.graph.nodes[9] == Graph.Node(id: 9, state: .creating), "a node without info is still a node")
        #expect(parsed.graph.links.isEmpty && parsed.graph.ports.isEmpty)
    }
}
