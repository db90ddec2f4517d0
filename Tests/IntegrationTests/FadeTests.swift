import Foundation
import PolicyCore
import Testing

extension TimingSensitiveSuites {
    /// A duck heard at the sink as a smooth fade, and what it costs
    /// the rest of the desktop in Props updates (docs/POLICY.md, "Fades").
    @Suite(.serialized)
    struct FadeTests {
        @Test func aDuckIsASmoothFadeAtTheSinkMadeOfFewPropsUpdates() throws {
            let scene = try AgentScene()
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitForSinks("music", ["speakers"]) && scene.waitForVolume("music", 1))
            let musicID = try #require(scene.stream("music")?.id)
            let recorder = try scene.recordSink("speakers", to: "fade.wav")
            scene.client.pump(0.5)
            let prompt = try scene.play("prompt", role: nil,
                                        properties: "{ policy.category=playback policy.options=[ duck-others ] }", target: "headphones")
            #expect(scene.waitForVolume("music", 0.2), "\(scene.describe(["music", "prompt"]))")
            scene.client.pump(1.0)
            prompt.stop()
            #expect(scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
            scene.client.pump(1.0)
            recorder.stop(signal: SIGINT)

            // The level over time, relative to the tone before the duck.
            let envelope = try Audio.envelope(ofWAV: scene.sandbox.path("fade.wav"))
            let playing = envelope.drop { $0 < 0.05 }.dropFirst(10)
            let full = try #require(playing.prefix(20).max())
            let levels = playing.map { $0 / full }
            let ducked = try #require(levels.min())
            let decibels = levels.map { 20 * log10(max($0, 1e-4)) }
            let jumps = zip(decibels, decibels.dropFirst()).map { abs($1 - $0) }
            let largest = try #require(jumps.max())
            // How many Props updates the agent sent to the music stream.
            let sent = scene.log.split(separator: "\n").filter { $0.contains("gain of \(musicID) (") }
            let ramps = sent.filter { $0.contains("ramp gain of") }.count
            print("fade at the sink: ducked to \(String(format: "%.3f", ducked)), largest change between 10 ms blocks "
                + "\(String(format: "%.2f", largest)) dB; \(sent.count) Props updates (\(ramps) native ramps)")

            #expect(abs(ducked - 0.2) < 0.02, "the duck level reached the sink")
            #expect(abs((levels.suffix(20).min() ?? 0) - 1) < 0.02, "back at full level")
            // No step is heard as a jump: a duck without a fade falls 14 dB at
            // once. A step of the curve is under 2 dB; two may land in adjacent
            // blocks when a timer tick comes late (3.1 dB seen on 0.3.65).
            #expect(largest < 4, "largest change \(largest) dB")
            let native = StackCapabilities.hasNativeVolumeRamps(
                client: scene.client.graph.nodes[musicID]?.clientID.flatMap { scene.client.graph.clients[$0] })
            if native {
                #expect(ramps > 0 && sent.count <= 2 * FadePacing().mostSegments + 1, "\(sent.joined(separator: "\n"))")
            } else {
                #expect(ramps == 0 && sent.count >= 2 * FadePacing().fewestSteps, "\(sent.joined(separator: "\n"))")
            }
        }
    }
}
