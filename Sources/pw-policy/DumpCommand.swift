import ArgumentParser
import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// `pw-policy dump`: the graph as the agent's mirror sees it.
struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print the audio streams and sinks as pw-policy sees them.",
        discussion: "Streams with their properties, state, policy-relevant Props (volume, channelVolumes, mute) and the sinks they are linked to. Proof that the mirror matches pw-dump.")

    @OptionGroup var remote: RemoteOptions
    @Flag(help: "Print JSON shaped like pw-dump (an array of objects with id, type, info).")
    var json = false
    @OptionGroup var color: ColorOptions

    func run() throws {
        try reportingFailures {
            let session = try PipeWireSession.open(remote: remote.remote)
            let graph = session.mirror.graph
            if json {
                print(GraphDump.json(graph))
            } else {
                print(GraphDump.text(graph), terminator: "")
            }
        }
    }
}
