import Foundation
import PolicyCore
import Testing

extension TimingSensitiveSuites {
    /// A screen shared silences alerts and its end
    /// restores them (docs/POLICY.md, "Presenting"). The screen cast is
    /// GNOME Shell's stream as mutter makes it and the app receiving it is a
    /// libwebrtc-style consumer that WirePlumber links to it
    /// (`pw-policy-test-screencast`); the alert is libcanberra's
    /// canberra-gtk-play through pipewire-pulse, as a desktop's event
    /// sounds are; what reached the speakers is recorded at their monitor.
    @Suite(.serialized) struct PresentingAgentTests {
        private static func report(_ line: String) { print("presenting: \(line)") }

        /// What one alert did: its level at the speakers, the gains its
        /// stream had, and the explanation the agent published for it.
        struct Alert {
            var peak: Double
            var loudFrames: Int
            var gains: [Float]
            var explanation: [String]
        }

        /// Plays `alert` with canberra-gtk-play and records the speakers meanwhile.
        private func playAlert(_ name: String, _ alert: String, _ scene: AgentScene, _ display: XvfbDisplay) throws -> Alert {
            let monitor = "\(name)-speakers.wav"
            let recorder = try scene.recordSink("speakers", to: monitor)
            defer { recorder.stop(signal: SIGINT) }
            let canberra = try CanberraAlert(sandbox: scene.sandbox, display: display, file: alert, description: name)
            var gains: [Float] = []
            var explanation: [String] = []
            var lastStatusRead = Date.distantPast
            _ = canberra.process.waitForExit(timeout: 15) {
                scene.client.loop.iterate(timeout: 0.005)
                guard let stream = scene.client.graph.streams.first(where: {
                    $0.props["application.id"] == "org.freedesktop.libcanberra.gtk-play"
                }) else { return }
                if let volume = stream.volume, volume != gains.last { gains.append(volume) }
                // The agent's published status, now and then (each read is a new client).
                guard Date().timeIntervalSince(lastStatusRead) > 0.2 else { return }
                lastStatusRead = Date()
                if let status = scene.polledStatus(id: stream.id), status.category == "system-sound" {
                    explanation = status.explanation
                }
            }
            #expect(canberra.process.exitStatus == 0, "canberra-gtk-play: \(canberra.errors)")
            scene.client.pump(0.3)
            recorder.stop(signal: SIGINT)
            let path = scene.sandbox.path(monitor)
            let heard = Alert(peak: try Audio.peak(ofWAV: path), loudFrames: try Audio.loudFrames(ofWAV: path, threshold: 0.001),
                              gains: gains, explanation: explanation)
            Self.report(String(format: "%@: peak %.4f, %d frames above 0.001 at the speakers, gains %@, explanation %@",
                               name, heard.peak, heard.loudFrames, "\(heard.gains)", "\(heard.explanation)"))
            return heard
        }

        /// Waits until the agent publishes `presenting` as `shared` (or not).
        private func waitForPresenting(_ scene: AgentScene, shared: Bool) -> PresentingStatus? {
            var last: PresentingStatus?
            _ = scene.client.wait(timeout: 10) { _ in
                last = scene.agentStatus()?.presenting
                return last.map { $0.isPresenting == shared } ?? false
            }
            return last
        }

        @Test func aSharedScreenSilencesAlertsAndItsEndRestoresThem() throws {
            let scene = try AgentScene(pulse: true)
            let display = try XvfbDisplay(sandbox: scene.sandbox)
            defer { display.stop() }
            let alert = scene.sandbox.path("alert.wav")
            try Audio.writeTone(to: alert, seconds: 1, frequency: 880)

            // GNOME's screen cast, with no one receiving it yet: not presenting.
            let source = try TestScreenCast(.source, sandbox: scene.sandbox, client: scene.client)
            defer { source.stop() }
            let castNode = try #require(scene.client.graph.nodes[source.nodeID])
            Self.report("the screen cast's node \(castNode.id): " + ["media.class", "media.name", "node.name", "node.supports-request"]
                .map { "\($0) \"\(castNode.props[$0] ?? "-")\"" }.joined(separator: ", "))
            #expect(castNode.props["media.name"] == "meta-screen-cast-src" && castNode.props["node.name"] == "gnome-shell"
                    && castNode.mediaClass == "Stream/Output/Video", "not the properties mutter's stream has: \(castNode.props)")
            #expect(waitForPresenting(scene, shared: false)?.isPresenting == false, "an unreceived cast counts as presenting")

            // Positive control: the same alert is heard while nothing is shared.
            let control = try playAlert("not-shared", alert, scene, display)
            #expect(control.peak > 0.45 && control.loudFrames > 24_000,
                    "the alert did not reach the speakers with nothing shared: a leak would not be heard either")

            // An app receives the screen: WirePlumber links it to the cast.
            let consumer = try TestScreenCast(.consumer(of: source.nodeID), sandbox: scene.sandbox, client: scene.client)
            defer { consumer.stop() }
            #expect(scene.client.wait(timeout: 10) { graph in
                graph.links(from: source.nodeID).contains { $0.inputNode == consumer.nodeID && $0.state == .active }
            }, "the consumer never linked to the cast: \(consumer.output)")
            let presenting = waitForPresenting(scene, shared: true)
            #expect(presenting == PresentingStatus(
                screenCasts: [ScreenCast(node: source.nodeID, implementation: "GNOME Shell", consumers: [consumer.nodeID])],
                silencesAlerts: true), "the agent published \(String(describing: presenting))")
            let status = try scene.cli(["status"])
            let row = status.stdout.split(separator: "\n").first { $0.contains("Presenting:") }.map(String.init) ?? ""
            Self.report("pw-policy status: \(row)")
            #expect(row.hasSuffix(" yes: GNOME Shell screen cast, node \(source.nodeID), to node \(consumer.nodeID)"),
                    "pw-policy status said:\n\(status.stdout)")

            let during = try playAlert("shared", alert, scene, display)
            #expect(during.loudFrames == 0,
                    "the alert reached the speakers while the screen was shared: \(during.loudFrames) frames, peak \(during.peak); its gains \(during.gains)")
            #expect(during.gains.last == 0, "the alert's stream had gains \(during.gains)")
            #expect(during.explanation.contains(
                "silenced: the screen is being shared (GNOME Shell screen cast, node \(source.nodeID); presenting.silence-alerts)"),
                    "the alert's status said \(during.explanation)")

            // The app stops receiving: its link goes, the sharing has ended.
            consumer.stop()
            #expect(scene.client.wait(timeout: 10) { graph in graph.links(from: source.nodeID).isEmpty },
                    "the consumer's link stayed")
            #expect(waitForPresenting(scene, shared: false)?.isPresenting == false, "the agent still says presenting")
            let after = try playAlert("sharing-ended", alert, scene, display)
            #expect(after.peak > 0.45 && after.loudFrames > 24_000,
                    "the alert was not heard after the sharing ended: \(after.loudFrames) frames, peak \(after.peak); its gains \(after.gains)")
            #expect(scene.log.contains("presenting: the screen is shared (GNOME Shell screen cast, node \(source.nodeID) to node \(consumer.nodeID)); alerts silenced"))
            #expect(scene.log.contains("presenting ended: the screen is no longer shared; alerts sound again"))
        }
    }
}
