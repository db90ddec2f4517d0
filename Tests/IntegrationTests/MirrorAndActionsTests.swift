import Foundation
import PolicyCore
import PolicyAgent
import PolicyPipeWire
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// The native client mirrors the real graph and its actions really
    /// change it, checked with pw-dump, pw-metadata and the audio at a sink.
    @Suite(.serialized)
    struct MirrorAndActionsTests {
        let sandbox: Sandbox
        let tone: String

        init() throws {
            sandbox = try Sandbox()
            tone = sandbox.path("tone.wav")
            try Audio.writeTone(to: tone, seconds: 30)
        }

        private func playMusic(name: String = "music") throws -> ChildProcess {
            try sandbox.play(tone: tone, as: name, role: "Music")
        }

        @Test func musicStreamAppearsWithRoleStateAndLink() throws {
            let client = try TestClient(sandbox: sandbox)
            let player = try playMusic()
            defer { player.stop() }
            let seen = client.wait(timeout: 2) { graph in
                guard let stream = client.stream(withMediaName: "music") else { return false }
                return stream.state == .running && graph.linkedSinkNames(of: stream.id) == ["speakers"]
            }
            let stream = try #require(client.stream(withMediaName: "music"), "the stream never appeared")
            #expect(seen, "state \(stream.state), linked to \(client.graph.linkedSinkNames(of: stream.id))")
            #expect(stream.props["media.role"] == "Music")
            #expect(stream.streamDirection == .playback)
            #expect(stream.props["application.name"] == "pw-play")
            // The client is mirrored with its full info props, not just the global's.
            let clientProps = client.graph.clients[stream.clientID ?? 0]?.props ?? [:]
            #expect(clientProps["application.process.id"] != nil, "client props: \(clientProps)")
        }

        @Test func settingVolumeChangesOnlyPropsVolume() throws {
            let client = try TestClient(sandbox: sandbox)
            let player = try playMusic()
            defer { player.stop() }
            // Wait until the stream runs and WirePlumber's restore-stream has set
            // it up, or its restore could land after our change.
            #expect(client.wait { _ in
                client.stream(withMediaName: "music").map { $0.state == .running && $0.channelVolumes.count == 2 } ?? false
            })
            client.pump(0.3)
            let stream = try #require(client.stream(withMediaName: "music"))
            let userVolumes = stream.channelVolumes
            try client.actions.setVolume(node: stream.id, to: 0.25)
            #expect(client.wait { _ in abs((client.stream(withMediaName: "music")?.volume ?? 0) - 0.25) < 1e-4 })

            let props = try #require(try nodeProps(id: stream.id))
            #expect(abs((props["volume"] as? Double ?? -1) - 0.25) < 1e-4)
            let dumped = (props["channelVolumes"] as? [Double] ?? []).map(Float.init)
            #expect(dumped == userVolumes, "channelVolumes changed from \(userVolumes) to \(dumped)")
        }

        @Test func destroyingLinksLeavesStreamUnlinkedAndIdle() throws {
            let client = try TestClient(sandbox: sandbox)
            let player = try playMusic()
            defer { player.stop() }
            #expect(client.wait { graph in
                client.stream(withMediaName: "music").map { graph.links(from: $0.id).count == 2 && $0.state == .running } ?? false
            })
            let stream = try #require(client.stream(withMediaName: "music"))
            for link in client.graph.links(from: stream.id) {
                try client.actions.destroy(link: link.id)
            }
            let idle = client.wait { graph in
                graph.links(from: stream.id).isEmpty && graph.nodes[stream.id]?.state == .idle
            }
            #expect(idle, "links \(client.graph.links(from: stream.id).count), state \(String(describing: client.graph.nodes[stream.id]?.state))")
            // pw-dump agrees: no link has the stream as its output node.
            let links = try sandbox.dump().filter { ($0["type"] as? String) == "PipeWire:Interface:Link" }
            #expect(!links.contains { (($0["info"] as? [String: Any])?["output-node-id"] as? Int) == Int(stream.id) })
        }

        @Test func linkingToHeadphonesMakesAudioArriveThere() throws {
            let client = try TestClient(sandbox: sandbox)
            let player = try playMusic()
            defer { player.stop() }
            #expect(client.wait { graph in client.stream(withMediaName: "music").map { graph.links(from: $0.id).count == 2 } ?? false })
            let stream = try #require(client.stream(withMediaName: "music"))
            let headphones = try #require(client.node(named: "headphones"))
            for link in client.graph.links(from: stream.id) { try client.actions.destroy(link: link.id) }
            try client.actions.link(output: stream.id, to: headphones.id)
            #expect(client.wait { graph in graph.linkedSinkNames(of: stream.id) == ["headphones"] })
            // Keep our client's loop turning while the recorder runs: our links
            // are ours, and the daemon talks to us about them.
            let rms = try recordWhilePumping(client: client, sink: "headphones", seconds: 1.0)
            #expect(rms > 0.1, "RMS at the headphones monitor was \(rms)")
            // Our two links die with the stream: their proxies go too.
            #expect(client.actions.createdLinkCount == 2)
            player.stop()
            #expect(client.wait { _ in client.actions.createdLinkCount == 0 }, "\(client.actions.createdLinkCount) link proxies left")
        }

        @Test func metadataWrittenWithPwMetadataIsMirrored() throws {
            let client = try TestClient(sandbox: sandbox)
            try client.actions.exportMetadata(named: "pw-policy")
            #expect(client.wait { $0.metadata(named: "pw-policy") != nil })
            try client.run(["pw-metadata", "-n", "pw-policy", "0", "pw-policy.test", "{\"hello\":1}", "Spa:String:JSON"], in: sandbox)
            let seen = client.wait { $0.metadata(named: "pw-policy")?.value(subject: 0, key: "pw-policy.test") == "{\"hello\":1}" }
            #expect(seen)
            #expect(client.graph.metadata(named: "pw-policy")?.entries[0]?["pw-policy.test"]?.type == "Spa:String:JSON")
            // And the other way: our write is visible to pw-metadata.
            try client.actions.setMetadata(named: "pw-policy", subject: 0, key: "pw-policy.from-agent", type: "Spa:String:JSON", value: "42")
            client.pump(0.2)
            let listed = try client.run(["pw-metadata", "-n", "pw-policy", "0", "pw-policy.from-agent"], in: sandbox)
            #expect(listed.stdout.contains("value:'42'"), "pw-metadata printed: \(listed.stdout)")
        }

        @Test func daemonDeathIsReportedCleanly() throws {
            let client = try TestClient(sandbox: sandbox)
            nonisolated(unsafe) var reason: String?
            client.connection.onDisconnect = { reason = $0 }
            let pid = try #require(sandbox.pid(of: "pipewire"))
            kill(pid, SIGKILL)
            let reported = client.loop.run(timeout: 5) { reason != nil }
            #expect(reported, "no disconnect was reported")
            #expect(!client.connection.isConnected)
            // Further actions fail cleanly instead of crashing.
            #expect(throws: (any Error).self) { try client.actions.setVolume(node: 12345, to: 0.5) }
        }

        @Test func connectingWhereNoDaemonRunsFailsWithUnavailable() throws {
            let loop = EventLoop()
            #expect(throws: ConnectionError.self) {
                _ = try Connection(loop: loop, remote: sandbox.path("no-such-socket"))
            }
        }

        private func nodeProps(id: UInt32) throws -> [String: Any]? {
            let node = try sandbox.dump().first { ($0["id"] as? Int) == Int(id) }
            let params = (node?["info"] as? [String: Any])?["params"] as? [String: Any]
            return (params?["Props"] as? [[String: Any]])?.first
        }

        private func recordWhilePumping(client: TestClient, sink: String, seconds: Double) throws -> Double {
            let path = sandbox.path("rec-\(UUID().uuidString).wav")
            let recorder = try sandbox.spawn(["pw-record", "--target", sink, "--format", "f32", "--rate", "48000",
                                              "--channels", "2", "-P", "{ stream.capture.sink=true }", path])
            client.pump(seconds)
            recorder.stop(signal: SIGINT)
            return try Audio.rms(ofWAV: path, skip: 0.3)
        }
    }
}
