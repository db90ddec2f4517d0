import Foundation
import PolicyCore
import PolicyTestSupport
import Testing

extension TimingSensitiveSuites {
    /// An alert that starts during a recording or a call never reaches the
    /// speakers, from its first sample, whatever its client writes when it
    /// starts (pw-play writes its `--volume` on its first STREAMING) and
    /// whatever WirePlumber restores — after silent mode has been used, so
    /// that WirePlumber has stored a policy gain of 0 and the agent has put
    /// the user's back. It can fail one run in several (it did before the
    /// start gate: docs/POLICY.md, "The first sample"), so each client plays
    /// ten alerts in each scene, every run is printed, and every run must be
    /// silent; the same alert with nothing going on is the positive control.
    @Suite(.serialized) struct FirstSampleTests {
        enum Scene: String, CaseIterable, Sendable {
            case recording = "a recording"
            case call = "a call"
        }

        enum AlertClient: String, CaseIterable, Sendable {
            case pwPlay = "pw-play"
            case paplay
            case canberra = "canberra-gtk-play"
        }

        static let runs = 10

        private static func report(_ line: String) { print("first sample: \(line)") }

        /// Plays one alert with `client`, recording the speakers meanwhile;
        /// the frames above −60 dBFS that reached them.
        private func alert(_ client: AlertClient, file: String, name: String, _ scene: AgentScene,
                           display: XvfbDisplay) throws -> Int {
            let monitor = "\(name).wav"
            let recorder = try scene.recordSink("speakers", to: monitor)
            defer { recorder.stop(signal: SIGINT) }
            let player: ChildProcess
            var errors: () -> String = { "" }
            switch client {
            case .pwPlay:
                player = try scene.sandbox.spawn(["pw-play", "--media-role", "Notification", file])
            case .paplay:
                try RealClient.require("paplay", package: "pulseaudio-utils")
                player = try scene.sandbox.spawn(["paplay", "--property=media.role=event", file])
            case .canberra:
                let canberra = try CanberraAlert(sandbox: scene.sandbox, display: display, file: file, description: name)
                player = canberra.process
                errors = { canberra.errors }
            }
            // What the observer saw of the alert's stream, when: its state,
            // Props volume and links, printed for a run that leaked.
            var timeline: [(seconds: Double, state: String)] = []
            let start = Date()
            let known = Set(scene.client.graph.streams.map(\.id))
            let ended = player.waitForExit(timeout: 15) {
                scene.client.loop.iterate(timeout: 0.005)
                let graph = scene.client.graph
                let alert = graph.streams.first { $0.streamDirection == .playback && !known.contains($0.id) }
                // The links' states too: a link that failed still counts as one.
                let state = alert.map { node in
                    let links = graph.links(from: node.id).map(\.state.rawValue)
                    return "\(node.state.rawValue) at \(node.volume.map { "\($0)" } ?? "-"), \(links.count) links"
                        + (links.isEmpty ? "" : " (\(links.joined(separator: ", ")))")
                } ?? "none"
                if state != timeline.last?.state { timeline.append((Date().timeIntervalSince(start), state)) }
            }
            let seen: String = timeline.map { String(format: "%.3f s: ", $0.seconds) + $0.state }.joined(separator: "; ")
            #expect(ended && player.exitStatus == 0,
                    "\(client.rawValue) did not play its alert to the end: \(errors()); the alert's stream \(seen)\n\(scene.log.suffix(4000))")
            scene.client.pump(0.2)
            recorder.stop(signal: SIGINT)
            let loud = try Audio.loudFrames(ofWAV: scene.sandbox.path(monitor), threshold: 0.001)
            if loud > 0 && name.hasPrefix("run") {
                // The agent's side of it too: whether the gate was armed, what it refused.
                Self.report("\(name): the alert's stream \(seen); the agent's log:\n\(scene.log.suffix(3000))")
            }
            return loud
        }

        @Test(arguments: Scene.allCases, AlertClient.allCases)
        func alertsAreSilentFromTheirFirstSampleInEveryRun(_ sceneKind: Scene, _ client: AlertClient) throws {
            let scene = try AgentScene(pulse: true)
            try VirtualMicrophone.create(in: scene.sandbox, client: scene.client)
            let display = try XvfbDisplay(sandbox: scene.sandbox)
            defer { display.stop() }
            // Short, and 16-bit PCM: libcanberra reads no other.
            let file = scene.sandbox.path("alert.wav")
            try Audio.writeTone(to: file, seconds: 0.4, frequency: 880)

            let control = try alert(client, file: file, name: "control", scene, display: display)
            Self.report("\(client.rawValue), nothing going on (control): \(control) frames above -60 dBFS at the speakers")
            #expect(control > 12_000, "the alert did not reach the speakers with nothing going on: a leak would go unheard too")

            // Silent mode once: WirePlumber stores the silenced alert's gain,
            // the agent puts the user's volume back afterwards.
            try scene.cli(["silent", "on"])
            _ = try alert(client, file: file, name: "silenced", scene, display: display)
            try scene.cli(["silent", "off"])

            var stop: () -> Void = {}
            switch sceneKind {
            case .recording:
                try RealClient.require("parecord", package: "pulseaudio-utils")
                let recording = try scene.sandbox.spawn(["parecord", "--file-format=wav", scene.sandbox.path("recording.wav")])
                stop = { recording.stop(signal: SIGINT) }
                let recorder = { scene.client.graph.streams.first { $0.props["application.name"] == "parecord" } }
                #expect(scene.client.wait { _ in recorder().map { scene.polledStatus(id: $0.id)?.category == "record" } == true },
                        "the agent does not see a recording")
            case .call:
                let call = try scene.sandbox.spawn(["pw-loopback", "--capture-props={ media.role=Communication node.name=call-in }",
                                                    "--playback-props={ media.role=Communication node.name=call-out }"])
                stop = { call.stop() }
                let callOut = { scene.client.graph.nodes.values.first { $0.name == "call-out" } }
                #expect(scene.client.wait { _ in callOut().map { scene.polledStatus(id: $0.id)?.category == "play-and-record" } == true },
                        "the agent does not see a call")
            }
            defer { stop() }

            var leaks: [Int] = []
            for run in 1...Self.runs {
                let loud = try alert(client, file: file, name: "run-\(run)", scene, display: display)
                Self.report("\(client.rawValue) during \(sceneKind.rawValue), run \(run) of \(Self.runs): \(loud) frames above -60 dBFS")
                leaks.append(loud)
            }
            #expect(leaks.allSatisfy { $0 == 0 },
                    "\(client.rawValue) alerts reached the speakers during \(sceneKind.rawValue): frames per run \(leaks)")
        }
    }
}
