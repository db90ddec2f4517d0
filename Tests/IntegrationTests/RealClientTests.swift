import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// The agent beside applications nobody here wrote — Chromium,
    /// speech-dispatcher with espeak-ng, libcanberra, paplay — each on its
    /// own sandbox with pipewire-pulse, checked by what really happened: the
    /// graph, the agent's published status, the audio at a sink's monitor,
    /// what the player says over MPRIS and what WirePlumber stored. A client
    /// that is not installed fails the test (`RealClient`). Figures are
    /// printed, as "real clients: …" lines; the only time limits asserted are
    /// the issue's (0.5 s, 1 s).
    @Suite(.serialized) struct RealClientTests {
        private static func seconds(_ interval: TimeInterval?) -> String {
            interval.map { String(format: "%.3f s", $0) } ?? "never"
        }

        private static func report(_ line: String) { print("real clients: \(line)") }

        // MARK: the browser call

        @Test func theRealBrowserCallNeverInterruptsItself() throws {
            let scene = try AgentScene(pulse: true, toneSeconds: 60)
            try VirtualMicrophone.create(in: scene.sandbox, client: scene.client)
            let chromium = try ChromiumCall(sandbox: scene.sandbox, audio: scene.tone)
            defer { chromium.stop() }
            try #require(chromium.waitFor("microphone on", pumping: scene.client),
                         "the page never got the microphone; it logged \(chromium.console)")
            #expect(chromium.waitFor("playing", pumping: scene.client), "the page logged \(chromium.console)")
            let graph = { scene.client.graph }
            func playback() -> [Graph.Node] {
                graph().streams.filter { $0.streamDirection == .playback && $0.props["application.name"] == "Chromium" }
            }
            func capture() -> Graph.Node? {
                graph().streams.first { $0.streamDirection == .capture && $0.props["application.name"] == "Chromium input" }
            }
            func running() -> Graph.Node? { playback().first { $0.state == .running && !graph().links(from: $0.id).isEmpty } }

            // The call as the agent sees it: one app capturing and playing.
            let inCall = scene.client.wait(timeout: 10) { _ in
                guard let capture = capture(), let output = running() else { return false }
                return scene.polledStatus(id: capture.id)?.category == "play-and-record"
                    && scene.polledStatus(id: output.id)?.category == "play-and-record"
            }
            let captureNode = try #require(capture(), "no capture stream 'Chromium input'")
            let callOutput = try #require(running(), "no Chromium playback stream plays")
            #expect(inCall, "the agent does not see a call: capture \(String(describing: scene.polledStatus(id: captureNode.id)?.category)), playback \(String(describing: scene.polledStatus(id: callOutput.id)?.category))")
            for node in playback() + [captureNode] {
                Self.report("chromium stream \(node.id) serial \(node.serial.map(String.init) ?? "?") \(node.streamDirection!.rawValue) application.name \"\(node.props["application.name"] ?? "")\" media.name \"\(node.props["media.name"] ?? "")\" application.process.id \(node.props["application.process.id"] ?? "-") state \(node.state.rawValue)")
            }
            Self.report("chromium browser pid \(chromium.pid), player \(chromium.busName)")
            let processes = Set((playback() + [captureNode]).compactMap { $0.props["application.process.id"] })
            #expect(processes.count == 1, "capture and playback come from one process: \(processes.sorted())")
            #expect(scene.sandbox.wait(timeout: 10) { scene.client.pump(0.05); return chromium.playbackStatus(pumping: scene.client) == "Playing" },
                    "Chromium's player says \(chromium.playbackStatus(pumping: scene.client) ?? "nothing")")
            let matched = scene.polledStatus(id: callOutput.id)?.player
            Self.report("the agent matched the call's playback to \(matched.map { "\($0.busName) (\($0.matchedBy))" } ?? "no player")")

            // Every PlaybackStatus the player reports from now on.
            let statusPath = scene.sandbox.path("chromium-mpris.txt")
            let follower = try ChildProcess(["playerctl", "-p", chromium.playerName, "--follow", "status"],
                                                  environment: scene.sandbox.environment, stdout: statusPath)
            defer { follower.stop() }
            let recorder = try scene.recordSink("speakers", to: "call-speakers.wav")
            defer { recorder.stop(signal: SIGINT) }
            let clock = RecordingClock(path: scene.sandbox.path("call-speakers.wav"))

            // What each Chromium stream went through, sampled every loop turn
            // (graph) and every 150 ms (the agent's status). Keyed by serial:
            // Chromium opens new streams, and PipeWire reuses node ids.
            func label(_ node: Graph.Node) -> String { "\(node.id) (serial \(node.serial.map(String.init) ?? "?"))" }
            var holds: [String: String] = [:], lowest: [String: (volume: Float, first: String)] = [:]
            var lostLinks: [String] = [], categories: [String: String] = [:]
            var linked: Set<String> = [], present: [String: (direction: StreamDirection?, seen: Date)] = [:]
            var gone: [String: Date] = [:]
            var lastStatusRead = Date.distantPast
            var stoppedAt: Date?
            func observe(for duration: Double) {
                let end = Date().addingTimeInterval(duration)
                while Date() < end {
                    scene.client.pump(0.01)
                    clock.mark()
                    let now = Date()
                    let at = stoppedAt.map { String(format: "%+.2f s after the microphone stopped", now.timeIntervalSince($0)) }
                        ?? "before the microphone stopped"
                    let streams = playback() + (capture().map { [$0] } ?? [])
                    let labels = Set(streams.map(label))
                    for node in streams where present[label(node)] == nil { present[label(node)] = (node.streamDirection, now) }
                    for key in present.keys where gone[key] == nil && !labels.contains(key) { gone[key] = now }
                    for node in playback() {
                        let key = label(node)
                        if let volume = node.volume, volume < 0.999 {
                            lowest[key] = (min(volume, lowest[key]?.volume ?? 1), lowest[key]?.first ?? at)
                        }
                        if !graph().links(from: node.id).isEmpty { linked.insert(key) } else if linked.remove(key) != nil {
                            lostLinks.append("\(key) \(at)")
                        }
                    }
                    guard now.timeIntervalSince(lastStatusRead) >= 0.15 else { continue }
                    lastStatusRead = now
                    for node in streams {
                        let key = label(node)
                        guard let status = scene.polledStatus(id: node.id) else { continue }
                        if categories[key] != status.category {
                            categories[key] = status.category
                            Self.report("\(at): stream \(key) (\(node.props["application.name"] ?? "")) is \(status.category)")
                        }
                        if node.streamDirection == .playback, let hold = status.hold, holds[key] == nil {
                            holds[key] = "\(hold.kind) by \(hold.byApp ?? hold.by ?? "?") from \(at)"
                        }
                    }
                }
            }
            observe(for: 1.0)
            clock.mark()
            let stopped = Date()
            stoppedAt = stopped
            let stopFrame = try #require(clock.frames(at: stopped), "the monitor recording has no frames yet")
            try chromium.stopMicrophone(pumping: scene.client)
            #expect(chromium.waitFor("microphone stopped", timeout: 5, pumping: scene.client), "the page logged \(chromium.console)")
            observe(for: 5.0)
            recorder.stop(signal: SIGINT)
            follower.stop()

            let after = { (date: Date) in Self.seconds(date.timeIntervalSince(stopped)) }
            let opened = present.filter { $0.value.seen > stopped }.sorted { $0.value.seen < $1.value.seen }
                .map { "\($0.key) \($0.value.direction?.rawValue ?? "?") after \(after($0.value.seen))" }
            let closed = gone.sorted { $0.value < $1.value }
                .map { "\($0.key) \(present[$0.key]?.direction?.rawValue ?? "?") after \(after($0.value))" }
            let states = playback().map { "\(label($0)) \($0.state.rawValue)" }
            Self.report("after the microphone stopped: streams opened \(opened), closed \(closed); Chromium's playback streams at the end: \(states)")
            let mpris = ((try? String(contentsOfFile: statusPath, encoding: .utf8)) ?? "")
                .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            Self.report("chromium's player said \(mpris); the page logged \(chromium.console)")

            let heldStreams = holds.sorted { $0.key < $1.key }.map { "stream \($0.key) \($0.value)" }
            #expect(heldStreams.isEmpty, "Chromium's playback was held: \(heldStreams)")
            let lowered = lowest.sorted { $0.key < $1.key }.map { "stream \($0.key) from \($0.value.first), down to \($0.value.volume)" }
            #expect(lowered.isEmpty, "Chromium's playback gain left 1: \(lowered)")
            #expect(lostLinks.isEmpty, "Chromium's playback lost its links: \(lostLinks)")
            let pauses = scene.log.split(separator: "\n").filter {
                $0.contains("pause \(chromium.busName)") || ($0.contains("interrupted by") && $0.contains("Chromium"))
            }
            #expect(pauses.isEmpty, "the agent paused or interrupted the page:\n\(pauses.joined(separator: "\n"))")
            #expect(!mpris.isEmpty && mpris.allSatisfy { $0 == "Playing" }, "Chromium's player said \(mpris)")
            #expect(!chromium.console.contains("paused"), "the page's audio was paused: \(chromium.console)")

            // The far end at the speakers in 5 ms windows, from 1 s before the
            // microphone stopped (the reference level) to the end. Chromium
            // itself leaves one gap about 1 s after the microphone stopped
            // (on the stream it plays on: no stream opens then): 35 to 60 ms
            // measured with no agent (4 runs). Any other gap, or a longer
            // one, is the agent's. A stretch of one graph cycle or less
            // (1024 frames, 21.3 ms: up to 25 ms in these windows) is a
            // dropout, one buffer the client did not deliver in time on
            // these two CPUs (once in about a dozen runs of the whole
            // suite, 20 ms, with nothing of the agent's on the call); it
            // counts in the quiet time, not as a gap. Every way the agent
            // has of interrupting a stream (a hold, a gain, a lost link, a
            // pause) is checked above, and each lasts far longer than a cycle.
            let window = 240
            let levels = try Audio.windowRMS(ofWAV: scene.sandbox.path("call-speakers.wav"), window: window)
            let stopWindow = min(stopFrame / window, levels.count)
            let before = Array(levels[max(0, stopWindow - 200)..<stopWindow])
            let reference = before.isEmpty ? 0 : before.sorted()[before.count / 2]
            var quiet: [(start: Double, length: Double)] = []
            for (index, level) in levels[stopWindow...].enumerated() where level < reference * 0.5 {
                let time = Double(index * window) / 48_000, length = Double(window) / 48_000
                if let last = quiet.last, abs(last.start + last.length - time) < 1e-6 {
                    quiet[quiet.count - 1].length += length
                } else {
                    quiet.append((time, length))
                }
            }
            let described = quiet.map { String(format: "%.3f s from %+.3f s", $0.length, $0.start) }
            let quietTime = quiet.reduce(0) { $0 + $1.length }
            let gaps = quiet.filter { $0.length > 0.025 + 1e-6 }
            Self.report(String(format: "the far end at the speakers: RMS %.3f before the microphone stopped; after it, %.3f s below half that in %d stretches %@, %d longer than a cycle (over %.1f s)",
                               reference, quietTime, quiet.count, "\(described)", gaps.count, Double((levels.count - stopWindow) * window) / 48_000))
            #expect(reference > 0.3, "the far end did not reach the speakers before the microphone stopped (RMS \(reference))")
            #expect(levels.count - stopWindow >= 800, "only \(Double((levels.count - stopWindow) * window) / 48_000) s recorded after the microphone stopped")
            #expect(gaps.count <= 1 && quietTime <= 0.1,
                    "the far end went quiet after the microphone stopped for \(String(format: "%.3f", quietTime)) s: \(described) (Chromium's own gap accounts for one stretch, dropouts of a cycle for others, all within 0.1 s)")
        }

        // MARK: the screen reader

        @Test func theRealScreenReaderDucksOnlyWhileItSpeaks() throws {
            let scene = try AgentScene(pulse: true, toneSeconds: 60)
            // Music on the headphones, so that the speakers carry the voice alone.
            let music = try scene.play("music", role: "Music", target: "headphones")
            defer { music.stop() }
            #expect(scene.waitForSinks("music", ["headphones"]) && scene.waitForVolume("music", 1), "\(scene.describe(["music"]))")
            #expect(scene.waitForStatus("music") { $0.state == "running" && $0.category == "playback" })
            let voice = scene.sandbox.path("voice.wav")
            let recorder = try scene.recordSink("speakers", to: "voice.wav")
            defer { recorder.stop(signal: SIGINT) }
            let clock = RecordingClock(path: voice)

            func speech(_ name: String) -> Graph.Node? {
                scene.client.graph.streams.first { $0.props["application.name"] == name }
            }
            var samples: [(time: Date, music: Float?, dummy: Graph.NodeState?, espeak: Graph.NodeState?)] = []
            func observe(until done: () -> Bool, timeout: Double) {
                let end = Date().addingTimeInterval(timeout)
                while Date() < end, !done() {
                    scene.client.pump(0.01)
                    clock.mark()
                    samples.append((Date(), scene.volume("music"), speech("speech-dispatcher-dummy")?.state,
                                    speech("speech-dispatcher-espeak-ng")?.state))
                }
            }

            // The daemon starts: its dummy module's stream runs ~5 s, silent.
            let daemonStart = Date()
            let speechDispatcher = try SpeechDispatcher(sandbox: scene.sandbox)
            defer { speechDispatcher.stop() }
            observe(until: { speech("speech-dispatcher-dummy") != nil }, timeout: 10)
            let dummy = try #require(speech("speech-dispatcher-dummy"),
                                     "speech-dispatcher opened no stream at start; its log:\n\(speechDispatcher.log)")
            observe(until: { Date().timeIntervalSince(daemonStart) > 7 }, timeout: 8)
            let atStart = samples.filter { $0.time >= daemonStart }
            let dummyRan = atStart.filter { $0.dummy == .running }
            let lowest = atStart.compactMap(\.music).min()
            Self.report("speech-dispatcher started: dummy stream \(dummy.id) (binary \(dummy.props["application.process.binary"] ?? "?"), pid \(dummy.props["application.process.id"] ?? "?")) running from \(Self.seconds(dummyRan.first?.time.timeIntervalSince(daemonStart))) to \(Self.seconds(dummyRan.last?.time.timeIntervalSince(daemonStart))) after the start; agent: \(scene.polledStatus(id: dummy.id).map { "\($0.category) \($0.options)" } ?? "no status"); music lowest \(lowest.map { "\($0)" } ?? "?") in 7 s")
            #expect(lowest == 1, "the music was ducked after the daemon started, before anything was said (lowest gain \(String(describing: lowest)))")

            // A sentence: ducked while it is spoken, back as soon as it ends.
            #expect(scene.waitForVolume("music", 1), "the music is not back at 1 before the sentence: \(scene.describe(["music"]))")
            samples.removeAll()
            let sayStart = Date()
            let say = try speechDispatcher.say("This is the screen reader, reading one sentence aloud for the test.")
            observe(until: { !say.isRunning }, timeout: 30)
            let sayEnd = Date()
            #expect(say.exitStatus == 0, "spd-say -w failed (status \(String(describing: say.exitStatus)))")
            // Past the deadline too, so that the log shows how late it came.
            observe(until: { (scene.volume("music") ?? 0) >= 0.999 && Date().timeIntervalSince(sayEnd) > 1.5 }, timeout: 8)
            recorder.stop(signal: SIGINT)

            let block = 240  // 5 ms
            let envelope = try Audio.envelope(ofWAV: voice, block: block)
            let loud = envelope.indices.filter { envelope[$0] > 0.01 }
            let onsetFrame = try #require(loud.first, "no voice reached the speakers; spd-say: \(speechDispatcher.log.suffix(2000))") * block
            let voiceStart = try #require(clock.time(ofFrame: onsetFrame), "the voice's start cannot be placed in time")
            let voiceEnd = loud.last.flatMap { clock.time(ofFrame: ($0 + 1) * block) }
            let duckBegan = samples.first { $0.time >= sayStart && ($0.music ?? 1) < 0.999 }?.time
            let ducked = samples.first { $0.time >= sayStart && ($0.music ?? 1) <= 0.201 }?.time
            let restored = samples.first { $0.time >= sayEnd && ($0.music ?? 0) >= 0.999 }?.time
            let espeak = try #require(speech("speech-dispatcher-espeak-ng"), "the espeak-ng module opened no stream")
            let espeakRunningAt = { (time: Date) in samples.last { $0.time <= time }?.espeak }
            let espeakLeftRunning = samples.first { $0.time >= sayEnd && $0.espeak != .running }
            Self.report("spd-say: espeak-ng stream \(espeak.id) (pid \(espeak.props["application.process.id"] ?? "?"), the daemon is \(speechDispatcher.process.pid)); voice at the speakers from \(Self.seconds(voiceStart.timeIntervalSince(sayStart))) to \(Self.seconds(voiceEnd?.timeIntervalSince(sayStart))) after spd-say started; spd-say -w returned after \(Self.seconds(sayEnd.timeIntervalSince(sayStart)))")
            Self.report("music: duck began \(Self.seconds(duckBegan?.timeIntervalSince(voiceStart))) and reached 0.2 \(Self.seconds(ducked?.timeIntervalSince(voiceStart))) after the voice started; back at 1 \(Self.seconds(restored?.timeIntervalSince(sayEnd))) after spd-say returned; espeak-ng stream \(espeakLeftRunning.map { "\($0.espeak?.rawValue ?? "gone") \(Self.seconds($0.time.timeIntervalSince(sayEnd))) after" } ?? "still running at the end")")

            let duckDelay = try #require(ducked, "the music was never ducked to 0.2 while the voice spoke").timeIntervalSince(voiceStart)
            #expect(duckDelay <= 0.5, "ducked \(Self.seconds(duckDelay)) after the voice started")
            let restoreDelay = try #require(restored, "the music was not back at 1 within 8 s of the end of the speech: \(scene.describe(["music"]))")
                .timeIntervalSince(sayEnd)
            #expect(restoreDelay <= 1.0, "back at 1 only \(Self.seconds(restoreDelay)) after spd-say returned")
            // What makes this hard: the voice's node still runs at the deadline.
            #expect(espeakRunningAt(sayEnd.addingTimeInterval(1)) == .running,
                    "the espeak-ng stream no longer ran 1 s after the speech: the deadline above proves nothing about audibility")
        }

        // MARK: alerts during a recording

        /// What WirePlumber has stored for the Notification role when the alert
        /// starts: silent mode used once before left 0.0 there.
        enum StoredNotificationVolume: String, CaseIterable, Sendable {
            case nothing = "nothing stored", silent = "0.0 stored", full = "1.0 stored"
            var value: Double? { switch self { case .nothing: nil; case .silent: 0; case .full: 1 } }
        }

        static let notificationKey = "Output/Audio:media.role:Notification"

        /// Stores `volume` for the Notification role through WirePlumber's own
        /// interface (its route-settings metadata, as pipewire-pulse's
        /// stream-restore does) and waits until WirePlumber saved it.
        private func storeNotificationVolume(_ volume: Double, _ scene: AgentScene) throws {
            let key = "restore.stream." + Self.notificationKey.replacingOccurrences(of: "Audio:", with: "Audio.")
            // WirePlumber acts on a change of the entry: the same value set
            // again after it stored another one would change nothing.
            try scene.client.run(["pw-metadata", "-n", "route-settings", "-d", "0", key], in: scene.sandbox)
            let result = try scene.client.run(["pw-metadata", "-n", "route-settings", "0", key, "{ \"volume\": \(volume) }",
                                               "Spa:String:JSON"], in: scene.sandbox)
            try #require(result.status == 0, "pw-metadata: \(result.stderr)")
            let saved = scene.client.wait(timeout: 5) { _ in
                WirePlumberSavedState.read(in: scene.sandbox)[Self.notificationKey]?.volume == volume
            }
            try #require(saved, "WirePlumber did not store \(volume): \(WirePlumberSavedState.read(in: scene.sandbox))")
        }

        /// Plays `alert` with canberra-gtk-play and records the speakers
        /// meanwhile; the alert's level there and the gains its stream had.
        private func playAlert(_ name: String, _ alert: String, _ scene: AgentScene, _ display: XvfbDisplay)
            throws -> (rms: Double, peak: Double, loudFrames: Int, gains: [Float]) {
            let monitor = "\(name)-speakers.wav"
            let recorder = try scene.recordSink("speakers", to: monitor)
            defer { recorder.stop(signal: SIGINT) }
            let canberra = try CanberraAlert(sandbox: scene.sandbox, display: display, file: alert, description: name)
            var gains: [Float] = []
            // What the observer saw of the alert's stream, when: its state,
            // Props volume and links (a leak shows as running at 1.0).
            var timeline: [(seconds: Double, state: String)] = []
            let start = Date()
            _ = canberra.process.waitForExit(timeout: 15) {
                scene.client.loop.iterate(timeout: 0.005)
                let stream = scene.client.graph.streams.first { $0.props["application.id"] == "org.freedesktop.libcanberra.gtk-play" }
                if let volume = stream?.volume, volume != gains.last { gains.append(volume) }
                let state = stream.map { "\($0.state.rawValue) at \($0.volume.map { "\($0)" } ?? "-"), "
                    + "\(scene.client.graph.links(from: $0.id).count) links" } ?? "none"
                if state != timeline.last?.state { timeline.append((Date().timeIntervalSince(start), state)) }
            }
            Self.report("\(name): the alert's stream " + timeline.map { String(format: "%.3f s: ", $0.seconds) + $0.state }
                .joined(separator: "; "))
            #expect(canberra.process.exitStatus == 0, "canberra-gtk-play: \(canberra.errors)")
            scene.client.pump(0.3)
            recorder.stop(signal: SIGINT)
            let path = scene.sandbox.path(monitor)
            return (try Audio.rms(ofWAV: path), try Audio.peak(ofWAV: path),
                    try Audio.loudFrames(ofWAV: path, threshold: 0.001), gains)
        }

        /// A pulse sandbox with a virtual microphone, a display for
        /// canberra-gtk-play and a 1 s alert to play.
        private func alertScene() throws -> (scene: AgentScene, display: XvfbDisplay, alert: String) {
            let scene = try AgentScene(pulse: true)
            try VirtualMicrophone.create(in: scene.sandbox, client: scene.client)
            let display = try XvfbDisplay(sandbox: scene.sandbox)
            let alert = scene.sandbox.path("alert.wav")
            try Audio.writeTone(to: alert, seconds: 1, frequency: 880)
            return (scene, display, alert)
        }

        @Test(arguments: StoredNotificationVolume.allCases)
        func alertsDuringARecordingAreSilentFromTheirFirstSample(stored: StoredNotificationVolume) throws {
            let (scene, display, alert) = try alertScene()
            defer { display.stop() }

            // Positive control: with nothing recording the same alert is heard.
            if let volume = stored.value { try storeNotificationVolume(volume, scene) }
            let control = try playAlert("control", alert, scene, display)
            Self.report(String(format: "alert with no recording (%@): RMS %.4f, peak %.4f, %d loud frames, gains %@",
                               stored.rawValue, control.rms, control.peak, control.loudFrames, "\(control.gains)"))
            #expect(control.peak > 0.45 && control.loudFrames > 24_000,
                    "the alert did not reach the speakers with nothing recording: the recorder would not hear a leak either")

            // A recording of the microphone, through pipewire-pulse like a voice recorder's.
            try RealClient.require("parecord", package: "pulseaudio-utils")
            let recording = try scene.sandbox.spawn(["parecord", "--file-format=wav", scene.sandbox.path("recording.wav")])
            defer { recording.stop(signal: SIGINT) }
            let recorderStream = { scene.client.graph.streams.first { $0.props["application.name"] == "parecord" } }
            #expect(scene.client.wait { graph in recorderStream().map { !graph.links(to: $0.id).isEmpty } ?? false },
                    "parecord never linked to the microphone")
            let recordingID = try #require(recorderStream()?.id)
            #expect(scene.client.wait { _ in scene.polledStatus(id: recordingID)?.category == "record" },
                    "the agent does not see a recording: \(String(describing: scene.polledStatus(id: recordingID)?.category))")

            if let volume = stored.value { try storeNotificationVolume(volume, scene) }
            let during = try playAlert("during", alert, scene, display)
            Self.report(String(format: "alert during a recording (%@): RMS %.4f, peak %.4f, %d frames above 0.001 at the speakers, gains %@",
                               stored.rawValue, during.rms, during.peak, during.loudFrames, "\(during.gains)"))
            #expect(during.loudFrames == 0,
                    "the alert reached the speakers during the recording: \(during.loudFrames) frames, peak \(during.peak), RMS \(during.rms); its gains \(during.gains)")
            // Its node is created at volume 1 before anyone can set it: what
            // counts is that no sample plays at that gain (above), and that it
            // ends at its policy gain.
            #expect(during.gains.last == 0, "the alert's stream had gains \(during.gains)")
        }

        /// During a call, an alert is silenced and music that starts waits
        /// (hold-incoming): neither reaches the speakers from its first
        /// sample, whatever WirePlumber stored for them; the same alert is
        /// heard with no call (the positive control).
        @Test func anAlertAndMusicStartedDuringACallAreSilentFromTheirFirstSample() throws {
            let (scene, display, alert) = try alertScene()
            defer { display.stop() }
            let control = try playAlert("control", alert, scene, display)
            #expect(control.peak > 0.45 && control.loudFrames > 24_000, "the alert did not reach the speakers with no call")

            // A call: one client capturing and playing, media.role=Communication
            // (its own audio is the silent virtual microphone's).
            let call = try scene.sandbox.spawn(["pw-loopback", "--capture-props={ media.role=Communication node.name=call-in }",
                                                "--playback-props={ media.role=Communication node.name=call-out }"])
            defer { call.stop() }
            let callOut = { scene.client.graph.nodes.values.first { $0.name == "call-out" } }
            #expect(scene.client.wait { _ in callOut().map { scene.polledStatus(id: $0.id)?.category == "play-and-record" } == true },
                    "the agent does not see a call")
            // Music started now must wait for the call, silent from its first sample.
            let monitor = try scene.recordSink("speakers", to: "call-speakers.wav")
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitForStatus("music") { $0.hold?.kind == "waiting" }, "\(String(describing: scene.polledStatus("music")))")
            let during = try playAlert("during-call", alert, scene, display)
            scene.client.pump(0.3)
            monitor.stop(signal: SIGINT)
            let path = scene.sandbox.path("call-speakers.wav")
            let loud = try Audio.loudFrames(ofWAV: path, threshold: 0.001)
            Self.report(String(format: "during a call: the alert's own recording %d loud frames; the speakers, music and alert: %d frames above 0.001, peak %.4f",
                               during.loudFrames, loud, try Audio.peak(ofWAV: path)))
            #expect(during.loudFrames == 0 && loud == 0, "the alert or the music reached the speakers during the call")
        }

        // MARK: nothing left in WirePlumber's stored state

        enum AgentStop: String, CaseIterable, Sendable {
            case sigterm = "SIGTERM"
            case sigkillRestartSigterm = "SIGKILL, restart, SIGTERM"
            /// What the user unit's ExecStopPost does after a SIGKILL.
            case sigkillRestore = "SIGKILL, pw-policy restore"
        }

        static let mpvKey = "Output/Audio:application.name:mpv"

        private static func stored(_ state: WirePlumberSavedState) -> String {
            [mpvKey, notificationKey].map { key in
                "\(key) volume \(state[key]?.volume.map { "\($0)" } ?? "-") channelVolumes \(state[key]?.channelVolumes.map { "\($0)" } ?? "-")"
            }.joined(separator: "; ")
        }

        /// An app's stream that ends while ducked and an alert silenced by
        /// silent mode, then the agent stops: what WirePlumber stored and gives
        /// the next streams of that app and role must be the user's volume
        /// (channelVolumes 0.5 here), at Props volume 1, with no agent running.
        @Test(arguments: AgentStop.allCases)
        func noPolicyGainIsLeftInWirePlumbersStoredState(stop: AgentStop) throws {
            try RealClient.require("paplay", package: "pulseaudio-utils")
            let scene = try AgentScene(pulse: true)
            let display = try XvfbDisplay(sandbox: scene.sandbox)
            defer { display.stop() }
            // paplay named like an app: WirePlumber keys it by application.name.
            func paplay(_ name: String) throws -> ChildProcess {
                let file = scene.sandbox.path("\(name).wav")
                if !FileManager.default.fileExists(atPath: file) { symlink(scene.tone, file) }
                let player = try scene.sandbox.spawn(["paplay", "--client-name=mpv", file])
                guard scene.client.wait(until: { _ in scene.stream(name) != nil }) else { throw SceneError.streamDidNotAppear(name) }
                return player
            }
            let mpv = try paplay("mpv")
            defer { mpv.stop() }
            #expect(scene.waitForSinks("mpv", ["speakers"]))
            try scene.setUserVolume("mpv")

            // An alert while silent mode is on, its user volume set meanwhile.
            #expect(try scene.cli(["silent", "on"]).status == 0)
            let alertFile = scene.sandbox.path("alert.wav")
            try Audio.writeTone(to: alertFile, seconds: 3, frequency: 880)
            let alert = try CanberraAlert(sandbox: scene.sandbox, display: display, file: alertFile, description: "alert")
            #expect(scene.client.wait { _ in scene.stream("alert") != nil }, "canberra-gtk-play's stream never appeared: \(alert.errors)")
            #expect(scene.waitForVolume("alert", 0), "silent mode did not silence the alert: \(scene.describe(["alert"]))")
            try scene.setUserVolume("alert")
            #expect(alert.waitUntilPlayed(pumping: scene.client) == 0, "canberra-gtk-play: \(alert.errors)")

            // mpv ducked by a prompt.
            let prompt = try scene.play("prompt", role: nil, properties: "{ policy.category=playback policy.options=[ duck-others ] }",
                                        target: "headphones")
            defer { prompt.stop() }
            #expect(scene.waitForVolume("mpv", 0.2), "\(scene.describe(["mpv"]))")
            scene.client.pump(1.5)  // WirePlumber saves 1 s after a change
            Self.report("\(stop.rawValue): while the agent acted WirePlumber stored \(Self.stored(WirePlumberSavedState.read(in: scene.sandbox)))")

            switch stop {
            case .sigterm:
                mpv.stop()  // it ends while ducked
                #expect(scene.client.wait { _ in scene.stream("mpv") == nil })
                prompt.stop()
                scene.client.pump(0.5)
                scene.stopAgent(signal: SIGTERM)
            case .sigkillRestartSigterm:
                scene.stopAgent(signal: SIGKILL)
                mpv.stop()  // ducked, with no agent to see it end
                #expect(scene.client.wait { _ in scene.stream("mpv") == nil })
                prompt.stop()
                try scene.startAgent()
                scene.client.pump(1.5)
                scene.stopAgent(signal: SIGTERM)
            case .sigkillRestore:
                scene.stopAgent(signal: SIGKILL)
                mpv.stop()
                #expect(scene.client.wait { _ in scene.stream("mpv") == nil })
                prompt.stop()
                let restore = try scene.cli(["restore"])
                Self.report("\(stop.rawValue): pw-policy restore said: \(restore.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
                #expect(restore.status == 0, "pw-policy restore: \(restore.stderr)")
                #expect(restore.stderr.contains("restored") && restore.stderr.contains("WirePlumber saved"), "\(restore.stderr)")
                let again = try scene.cli(["restore"])
                #expect(again.status == 0 && again.stderr.contains("nothing to restore"), "a second restore: \(again.stderr)")
            }
            if stop != .sigkillRestore {
                Self.report("\(stop.rawValue): the agent's last log line: \(scene.log.split(separator: "\n").last ?? "none")")
            }

            // What WirePlumber keeps, once it saved (1 s after the last change).
            var state = WirePlumberSavedState()
            _ = scene.client.wait(timeout: 4) { _ in
                state = WirePlumberSavedState.read(in: scene.sandbox)
                return state[Self.mpvKey]?.volume == 1 && state[Self.notificationKey]?.volume == 1
            }
            Self.report("\(stop.rawValue): after the agent stopped WirePlumber stored \(Self.stored(state)) (\(state.file ?? "no file"))")
            for key in [Self.mpvKey, Self.notificationKey] {
                #expect(state[key]?.volume == 1, "WirePlumber stored volume \(state[key]?.volume.map { "\($0)" } ?? "none") for \(key)")
                #expect(state[key]?.channelVolumes == [0.5, 0.5],
                        "the user's channelVolumes were not kept for \(key): \(state[key]?.channelVolumes.map { "\($0)" } ?? "none")")
            }

            // The next streams of that app and that role, with no agent.
            let again = try paplay("mpv-again")
            defer { again.stop() }
            let nextAlert = scene.sandbox.path("alert-again.wav")
            try Audio.writeTone(to: nextAlert, seconds: 3, frequency: 880)
            let alertAgain = try CanberraAlert(sandbox: scene.sandbox, display: display, file: nextAlert, description: "alert again")
            defer { alertAgain.stop() }
            for name in ["mpv-again", "alert-again"] {
                #expect(scene.client.wait { _ in scene.stream(name).map { $0.state == .running && !$0.channelVolumes.isEmpty } ?? false },
                        "\(scene.describe([name]))")
            }
            scene.client.pump(0.5)  // WirePlumber's restore is done by then
            Self.report("\(stop.rawValue): next streams with no agent: \(scene.describe(["mpv-again", "alert-again"])); channelVolumes \(scene.stream("mpv-again")?.channelVolumes ?? []), \(scene.stream("alert-again")?.channelVolumes ?? [])")
            for name in ["mpv-again", "alert-again"] {
                #expect(scene.volume(name) == 1, "the next '\(name)' started at volume \(scene.volume(name).map { "\($0)" } ?? "none") with no agent running")
                #expect(scene.stream(name)?.channelVolumes == [0.5, 0.5],
                        "the next '\(name)' lost the user's channelVolumes: \(scene.stream(name)?.channelVolumes ?? [])")
            }
        }
    }
}
