import PolicyCore
import Testing

/// What a node and a client read from their properties is read when those
/// change (Graph.Node, Graph.Client), and must follow every change.
@Suite struct GraphKeysTests {
    @Test func aNodeReadsItsKeysAtInitAndOnEveryChange() {
        var node = Graph.Node(id: 7, props: ["media.class": "Stream/Output/Audio", "object.serial": "42",
                                             "client.id": "31", "node.name": "music"])
        #expect(node.streamDirection == .playback && node.serial == 42 && node.clientID == 31 && node.deviceID == nil)
        node.props["media.class"] = "Stream/Input/Audio"
        node.props["device.id"] = "5"
        #expect(node.streamDirection == .capture && node.deviceID == 5)
        node.props = ["media.class": "Audio/Sink", "object.serial": "not a number"]
        #expect(node.streamDirection == nil && node.isAudioSink && node.serial == nil && node.clientID == nil)
        #expect(node.mediaClass == "Audio/Sink")
    }

    @Test func aClientReadsItsLibraryVersionAtInitAndOnEveryChange() {
        var client = Graph.Client(id: 3, props: ["core.version": "0.3.65"])
        #expect(client.coreVersion == SemanticVersion(0, 3, 65))
        #expect(!StackCapabilities.hasNativeVolumeRamps(client: client))
        client.props["core.version"] = "1.4.2"
        #expect(client.coreVersion == SemanticVersion(1, 4, 2))
        #expect(StackCapabilities.hasNativeVolumeRamps(client: client))
        client.props = [:]
        #expect(client.coreVersion == nil)
    }
}
