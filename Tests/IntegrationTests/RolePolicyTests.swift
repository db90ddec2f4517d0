import Foundation
import PolicyCore
import PolicyTestSupport
import Testing

extension TimingSensitiveSuites {
    /// Beside WirePlumber 0.5's role-based policy, turned on with its own
    /// example config (`media-role-nodes.conf`): the music plays through
    /// WirePlumber's "Multimedia" loopback, which WirePlumber ducks (to 0.3)
    /// for a navigation prompt and corks (unlinks) for a call. What reaches
    /// the speakers is measured: one duck level heard (the agent's 0.2, not
    /// 0.2 × 0.3), nothing during a call, and after it the music once, as
    /// loud as before, linked only into its loopback (docs/POLICY.md,
    /// "Beside WirePlumber's role policy"). The agent does WirePlumber's
    /// ducking in its place: WirePlumber's duck level is 1 while it runs,
    /// and back when it stops.
    ///
    /// WirePlumber 0.4 has no role-based policy: there each test prints why
    /// it does not apply and passes.
    @Suite(.serialized) struct RolePolicyTests {
        private static func report(_ line: String) { print("role policy: \(line)") }

        /// The agent beside WirePlumber's role loopbacks; nil (said) where
        /// this WirePlumber has none.
        private static func scene(pulse: Bool = false) throws -> AgentScene? {
            do {
                let scene = try AgentScene(pulse: pulse, toneSeconds: 90, roleLoopbacks: true)
                // Each loopback plays to the speakers, none into another
                // (scripts/pw-sandbox says why that needs the sinks first).
                let playing = scene.client.graph.nodes.values.filter { $0.name?.hasPrefix("output.loopback.sink.role.") == true }
                    .map { node in (node.name ?? "", Set(scene.client.graph.linkedSinkNames(of: node.id))) }
                #expect(playing.count == 6 && playing.allSatisfy { $0.1 == ["speakers"] },
                        "WirePlumber's loopbacks play to: \(playing)")
                return scene
            } catch SandboxError.notApplicable(let why) {
                report("not applicable on this stack (\(why)); WirePlumber ≥ 0.5 runs these tests")
                return nil
            }
        }

        static let multimedia = "input.loopback.sink.role.multimedia"

        /// The music's level at the speakers over `seconds`: the median RMS of
        /// its 10 ms blocks, so that a dropout of the busy machine's graph
        /// (a few silent blocks, seen beside other builds) does not read as
        /// a duck.
        private static func level(_ scene: AgentScene, seconds: Double = 1.2, _ name: String) throws -> Double {
            let file = scene.sandbox.path("\(name).wav")
            let recorder = try scene.sandbox.spawn(["pw-record", "--target", "speakers", "--format", "f32", "--rate", "48000",
                                                    "--channels", "2", "-P",
                                                    "{ stream.capture.sink=true node.name=pw-policy-test-monitor }", file])
            scene.client.pump(seconds)
            recorder.stop(signal: SIGINT)
            let blocks = try Audio.perBlock(ofWAV: file, block: 480) { raw, first in
                let sum = (first..<(first + 480)).reduce(0.0) { sum, frame in
                    let sample = Double(Float(bitPattern: raw.loadUnaligned(fromByteOffset: frame * 8, as: UInt32.self)))
                    return sum + sample * sample
                }
                return (sum / 480).squareRoot()
            }.dropFirst(20).sorted()  // the first 0.2 s hold the recorder's start-up
            return blocks.isEmpty ? 0 : blocks[blocks.count / 2]
        }

        /// The loudest 10 ms block of what reached the speakers: what leaked.
        private static func loudest(_ name: String, _ scene: AgentScene) throws -> Double {
            try Audio.envelope(ofWAV: scene.sandbox.path("\(name).wav")).dropFirst(20).max() ?? 0
        }

        /// The names of the nodes the stream's output ports are linked to.
        private static func targets(of name: String, _ scene: AgentScene) -> [String] {
            guard let id = scene.stream(name)?.id else { return [] }
            return scene.client.graph.links(from: id).compactMap { scene.client.graph.nodes[$0.inputNode]?.name }.sorted()
        }

        /// The Props volume WirePlumber's role policy gave a loopback's
        /// playing side (its duck).
        private static func loopbackVolume(_ role: String, _ scene: AgentScene) -> Float? {
            scene.client.graph.nodes.values.first { $0.name == "output.loopback.sink.role.\(role)" }?.volume
        }

        /// The last lines of the sandbox's WirePlumber log, for a failure.
        private static func wirePlumberLog(_ scene: AgentScene) -> String {
            let log = (try? String(contentsOfFile: scene.sandbox.path("wireplumber.log"), encoding: .utf8)) ?? ""
            return log.split(separator: "\n").suffix(12).joined(separator: "\n")
        }

        /// WirePlumber's `linking.role-based.duck-level` as its `sm-settings`
        /// says, read through a new client: WirePlumber exports `sm-settings`,
        /// and a client already bound misses its changes while another one
        /// binds it (the CLI, the agent at start).
        private static func duckLevelSetting(_ scene: AgentScene) -> String? {
            (try? scene.freshRead { $0.metadata(named: "sm-settings")?.value(subject: 0, key: "linking.role-based.duck-level") }) ?? nil
        }

        /// The music through its loopback, and the agent saying it sees
        /// WirePlumber's role policy.
        private func startMusic(_ scene: AgentScene) throws -> ChildProcess {
            let music = try scene.play("music")
            #expect(scene.client.wait { _ in Self.targets(of: "music", scene) == [Self.multimedia, Self.multimedia] },
                    "WirePlumber did not link the music into its role loopback: \(Self.targets(of: "music", scene)); WirePlumber's log ends: \(Self.wirePlumberLog(scene))")
            #expect(scene.waitUntilAgentSees("music", runningOn: "speakers"),
                    "the agent does not see the music playing on the speakers through its loopback: \(String(describing: scene.polledStatus("music")))")
            let active = "WirePlumber role policy: active (6 role loopbacks)"
            #expect(scene.client.wait { _ in scene.agentStatus()?.stack?.summary.contains(active) == true },
                    "\(String(describing: scene.agentStatus()?.stack?.summary))")
            Self.report("the agent's stack line: \(scene.agentStatus()?.stack?.summary ?? "(not read)")")
            let status = try scene.cli(["status"]).stdout
            #expect(status.contains("WirePlumber role policy: active (6 role loopbacks)"), "\(status)")
            // The loopbacks' playing sides are a path, not apps.
            #expect(!status.contains("output.loopback.sink.role"), "\(status)")
            return music
        }

        /// A navigation prompt over music: WirePlumber ducks the music's
        /// loopback to 0.3 and the agent ducks the music to its 0.2, and the
        /// speakers hear 0.2 of the music — not 0.06 — and all of it again
        /// after the prompt.
        @Test func aNavigationPromptDucksTheMusicOnce() throws {
            guard let scene = try Self.scene() else { return }
            // The prompt's own sound plays to the headphones (its loopback
            // moved there as pavucontrol would move it), so that the
            // speakers carry only the music.
            let navigation = try #require(scene.client.graph.nodes.values.first { $0.name == "output.loopback.sink.role.navigation" })
            let moved = try scene.sandbox.run(["pw-metadata", "-n", "default", String(navigation.id), "target.object", "headphones"])
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(scene.client.wait { graph in
                graph.links(from: navigation.id).contains { graph.nodes[$0.inputNode]?.name == "headphones" }
            }, "the navigation loopback did not move to the headphones")

            let music = try startMusic(scene)
            defer { music.stop() }
            scene.client.pump(0.5)
            let before = try Self.level(scene, "before")

            // The agent ducks in WirePlumber's place: WirePlumber's own duck level is 1.
            #expect(scene.client.wait { _ in Self.duckLevelSetting(scene) == "1.0" },
                    "WirePlumber's duck level is \(String(describing: Self.duckLevelSetting(scene)))")
            let prompt = try scene.play("prompt", role: "Navigation")
            #expect(scene.waitForStatus("music") { !$0.duckedBy.isEmpty }, "\(scene.describe(["music", "prompt"]))")
            // Settled: the agent's fade is 250 ms.
            scene.client.pump(0.6)
            let gain = scene.volume("music"), loopbackDuring = Self.loopbackVolume("multimedia", scene)
            let during = try Self.level(scene, "during")
            let explain = try scene.cli(["explain", String(try #require(scene.stream("music")?.id))]).stdout

            prompt.stop()
            #expect(scene.waitForStatus("music") { $0.duckedBy.isEmpty }, "\(scene.describe(["music"]))")
            #expect(scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
            scene.client.pump(0.3)
            let after = try Self.level(scene, "after")

            Self.report(String(format: "navigation over music: speakers level before %.4f, during %.4f (%.3f of before; music's gain %@, its loopback's volume %@), after %.4f (%.3f)",
                               before, during, during / before, "\(gain.map { String($0) } ?? "?")",
                               "\(loopbackDuring.map { String($0) } ?? "?")", after, after / before))
            #expect(before > 0.1, "the music did not reach the speakers")
            #expect(loopbackDuring == 1, "WirePlumber ducked the loopback itself: \(String(describing: loopbackDuring))")
            #expect(abs(during / before - 0.2) < 0.03, "heard at \(during / before) of the music during the prompt; the agent's duck level is 0.2 (0.06 is both ducks at once)")
            #expect(abs(after / before - 1) < 0.05, "heard at \(after / before) after the prompt")
            #expect(explain.contains("WirePlumber"), "explain does not say the music plays through WirePlumber's role loopback:\n\(explain)")
            Self.report("explain: \(explain.split(separator: "\n").filter { $0.contains("WirePlumber") }.joined(separator: " | "))")

            // Stopped, the agent gives WirePlumber its duck level back.
            scene.stopAgent()
            #expect(scene.client.wait { _ in Self.duckLevelSetting(scene) == "0.3" },
                    "WirePlumber's duck level after the agent stopped: \(String(describing: Self.duckLevelSetting(scene))); the agent's log:\n\(scene.log.suffix(3000))")
        }

        /// The headphones go while the music plays to them through its
        /// loopback: the music is held for its lost route — its output is the
        /// loopback's sink, not the loopback — and nothing of it leaks to the
        /// speakers when WirePlumber moves the loopback there; `pw-policy
        /// resume` links it back into its loopback.
        @Test func anUnplugBehindTheLoopbackHoldsTheMusic() throws {
            guard let scene = try Self.scene() else { return }
            // The Multimedia loopback moved to the headphones, as pavucontrol would.
            let multimedia = try #require(scene.client.graph.nodes.values.first { $0.name == "output.loopback.sink.role.multimedia" })
            let moved = try scene.sandbox.run(["pw-metadata", "-n", "default", String(multimedia.id), "target.object", "headphones"])
            #expect(moved.status == 0, "\(moved.stderr)")
            #expect(scene.client.wait { graph in graph.linkedSinkNames(of: multimedia.id) == ["headphones"] },
                    "the Multimedia loopback did not move to the headphones")
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitUntilAgentSees("music", runningOn: "headphones"),
                    "the agent does not see the music on the headphones: \(String(describing: scene.polledStatus("music")))")
            let headphones = try #require(scene.client.node(named: "headphones"))
            let monitor = scene.sandbox.path("speakers-during-unplug.wav")
            let recorder = try scene.recordSink("speakers", to: "speakers-during-unplug.wav")
            defer { recorder.stop(signal: SIGINT) }
            scene.client.pump(0.3)
            try scene.playControl(on: "speakers")
            scene.client.pump(0.5)
            let unplugFrame = try Audio.framesWritten(toWAV: monitor)
            try scene.sandbox.run(["pw-cli", "destroy", String(headphones.id)])
            #expect(scene.waitForStatus("music") { $0.hold?.kind == "route-lost" }, "\(scene.describe(["music"]))\n\(scene.log)")
            #expect(scene.client.wait { graph in graph.linkedSinkNames(of: multimedia.id) == ["speakers"] },
                    "WirePlumber did not move the loopback to the speakers")
            scene.client.pump(1.0)
            recorder.stop(signal: SIGINT)
            let heard = try Audio.loudFrames(ofWAV: monitor, skip: 0.2, frames: 0..<unplugFrame)
            let leaked = try Audio.loudFrames(ofWAV: monitor, frames: unplugFrame..<Int.max)
            Self.report("headphones removed behind the loopback: \(leaked) loud frames of music reached the speakers (control: \(heard))")
            #expect(heard >= 4_800, "the recorder heard \(heard) frames of the control on the speakers: it would not hear a leak either")
            // As for an unplug without loopbacks (AgentBehaviourTests): up to
            // a few graph cycles computed before the hold.
            #expect(leaked <= 4 * 1024, "\(leaked) frames of music reached the speakers after the unplug")
            #expect(Self.targets(of: "music", scene).isEmpty, "held, still linked to \(Self.targets(of: "music", scene))")

            let id = try #require(scene.stream("music")?.id)
            #expect(try scene.cli(["resume", String(id)]).status == 0)
            #expect(scene.waitForStatus("music") { $0.hold == nil && $0.output == "speakers" && $0.via == "Multimedia" },
                    "\(String(describing: scene.polledStatus("music")))")
            #expect(scene.client.wait { _ in Self.targets(of: "music", scene) == [Self.multimedia, Self.multimedia] },
                    "resumed, the music is linked to \(Self.targets(of: "music", scene)), not into its loopback")
        }

        /// A call over music, twice: WirePlumber corks the music's role link
        /// and the agent holds the music; during the call nothing of it
        /// reaches the speakers, and after it the music plays once — as loud
        /// as before, linked only into its loopback, never also to the
        /// speakers around it.
        @Test func aCallHoldsTheMusicAndAfterItTheMusicPlaysOnceThroughItsLoopback() throws {
            guard let scene = try Self.scene() else { return }
            try VirtualMicrophone.create(in: scene.sandbox, client: scene.client)
            let music = try startMusic(scene)
            defer { music.stop() }
            scene.client.pump(0.5)
            let before = try Self.level(scene, "before")
            #expect(before > 0.1, "the music did not reach the speakers")

            for round in 1...2 {
                let call = try scene.sandbox.spawn(["pw-loopback", "--capture-props={ media.role=Communication node.name=call-in }",
                                                    "--playback-props={ media.role=Communication node.name=call-out }"])
                #expect(scene.waitForStatus("music") { $0.hold?.kind == "interrupted" }, "\(scene.describe(["music"]))")
                scene.client.pump(0.3)
                let during = try Self.level(scene, "during\(round)")
                let linkedDuring = Self.targets(of: "music", scene)
                let peakDuring = try Self.loudest("during\(round)", scene)

                call.stop()
                #expect(scene.waitForStatus("music", timeout: 8) { $0.hold == nil }, "\(scene.describe(["music"]))")
                #expect(scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
                // WirePlumber's relink (if any) and the agent's, settled.
                scene.client.pump(0.8)
                let after = try Self.level(scene, "after\(round)")
                let linkedAfter = Self.targets(of: "music", scene)
                Self.report(String(format: "call %d over music: speakers level before %.4f, during %.4f (peak %.4f), after %.4f (%.3f of before); music linked during %@, after %@",
                                   round, before, during, peakDuring, after, after / before, "\(linkedDuring)", "\(linkedAfter)"))
                #expect(peakDuring < 0.001, "the music was heard during call \(round): level \(during), peak \(peakDuring)")
                #expect(abs(after / before - 1) < 0.05, "after call \(round) the music is heard at \(after / before) of before (2 would be two paths)")
                #expect(linkedAfter == [Self.multimedia, Self.multimedia],
                        "after call \(round) the music is linked to \(linkedAfter), not only into its loopback")
            }
        }
    }
}
