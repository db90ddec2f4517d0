import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

extension TimingSensitiveSuites {
    /// Apps as they really run on a desktop, on the real agent
    /// (docs/CLASSIFICATION.md, "One app instance, one judgement", "Web apps",
    /// "Recordings of what plays", "Launch units of every shape"): each app is a
    /// copy of a real client named like the app (pw-cat, or pw-policy-load for a
    /// process with several streams), run inside a real cgroup unit named as its
    /// launcher names it (`LaunchScope`), under the parent its launcher gives it,
    /// with the app's real desktop entry in the sandbox's data directories.
    /// Timing-sensitive: it measures alerts at a sink and gains over time.
    @Suite(.serialized)
    struct DesktopAppsAgentTests {
        static func report(_ line: String) { print("desktop apps: \(line)") }

        /// A unit name with a RANDOM of its own, so tests never share a unit.
        static func unique(_ stem: String, suffix: String = ".scope") -> String {
            "\(stem)-\(getpid())\(UInt16.random(in: 1000...9999))\(suffix)"
        }

        /// A copy of `binary` named `program` in the sandbox's bin directory.
        static func copy(_ binary: String, as program: String, in scene: AgentScene) throws -> String {
            let bin = scene.sandbox.path("bin")
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            let path = bin + "/" + program
            if !FileManager.default.fileExists(atPath: path) { try FileManager.default.copyItem(atPath: binary, toPath: path) }
            return path
        }

        /// A process of the load generator named `program` (several streams in
        /// one process), inside `scope`; `parent` puts it under a shell whose
        /// command line has those arguments.
        static func app(_ program: String, in scope: LaunchScope, scene: AgentScene, parent: [String]? = nil) throws -> ChildProcess {
            let path = try copy(Loader.binary, as: program, in: scene)
            let command = [path, "-r", scene.sandbox.remote]
            let arguments = parent.map { scope.wrapUnderParent(command, parentArguments: $0) } ?? scope.wrap(command)
            return try ChildProcess(arguments, environment: scene.sandbox.environment, input: true,
                                    stderr: scene.sandbox.path("\(program).stderr"))
        }

        /// A load generator command opening a stream `id`, named as the scene
        /// finds streams (a media.name ending in `/<id>.wav`).
        static func open(_ verb: String, _ id: String, _ props: String = "") -> String {
            "\(verb) \(id) media.name=\"/app/\(id).wav\" \(props)"
        }

        /// Waits for a stream of that media.name; on failure, says what the
        /// sandbox's programs printed.
        static func appear(_ name: String, in scene: AgentScene) throws {
            guard scene.client.wait(timeout: 10, until: { _ in scene.stream(name) != nil }) else {
                let bin = scene.sandbox.path("")
                let errors = ((try? FileManager.default.contentsOfDirectory(atPath: bin)) ?? []).filter { $0.hasSuffix(".stderr") }
                    .map { "\($0): \((try? String(contentsOfFile: bin + $0, encoding: .utf8)) ?? "")" }
                report("no stream '\(name)'; streams: \(scene.client.graph.streams.map { $0.props["media.name"] ?? "?" }); \(errors)")
                throw SceneError.streamDidNotAppear(name)
            }
        }

        /// The status once its category is `category`, printed.
        static func judged(_ name: String, _ category: String, in scene: AgentScene) throws -> StreamStatus {
            let reached = scene.waitForStatus(name, timeout: 10) { $0.category == category }
            let status = try scene.status(name)
            report("\(name): \(status.category) [\(status.options.joined(separator: ","))] — \(status.reason)")
            #expect(reached, "\(name): \(status.category) — \(status.reason)")
            return status
        }

        // MARK: one app instance

        /// A messenger's call: its playback and microphone from one process.
        /// Opened together while silent mode is on, the far end is a call from
        /// its first sample (never silenced as "a messenger playing alone"),
        /// both streams say so and name the other, and when the microphone
        /// closes the playback is the messenger's pings again.
        @Test func aCallInOneProcessIsACallOnEveryStream() throws {
            let data = try AppKnowledgeAgentTests.DesktopData(["im.dino.Dino.desktop"])
            let scene = try AgentScene(agentEnvironment: data.environment)
            #expect(try scene.cli(["silent", "on"]).status == 0)
            let scope = try LaunchScope(Self.unique("app-gnome-im.dino.Dino"))
            let dino = try Self.app("dino-im", in: scope, scene: scene)
            defer { dino.stop() }
            dino.send([Self.open("record", "dino-mic"), Self.open("play", "dino-far-end", "pw-policy-load.level=0.3")])
            try Self.appear("dino-far-end", in: scene)
            try Self.appear("dino-mic", in: scene)
            Self.report("dino-im runs in \(LaunchScope.cgroup(of: dino.pid))")
            // From its first appearance: every gain the far end is given.
            var gains: [Float] = []
            _ = scene.client.wait(timeout: 3) { _ in
                if let gain = scene.volume("dino-far-end"), gain != gains.last { gains.append(gain) }
                return false
            }
            let farEnd = try Self.judged("dino-far-end", "play-and-record", in: scene)
            let mic = try Self.judged("dino-mic", "play-and-record", in: scene)
            Self.report("the far end's gains in silent mode: \(gains)")
            #expect(!gains.contains(0), "the call was silenced for a moment: \(gains)")
            #expect(!farEnd.silenced && scene.volume("dino-far-end") == 1)
            #expect(farEnd.reason.contains("desktop entry im.dino.Dino") && farEnd.reason.contains("capture stream") &&
                    farEnd.reason.contains("dino-mic.wav"), "\(farEnd.reason)")
            #expect(mic.reason.contains("im.dino.Dino") && mic.reason.contains("dino-far-end.wav"), "\(mic.reason)")
            let explain = try scene.cli(["explain", String(try #require(scene.stream("dino-far-end")).id)])
            #expect(explain.stdout.contains("dino-mic"), "explain names the other stream: \(explain.stdout)")

            // The call ends: the microphone closes, the messenger plays its pings again.
            dino.send(["stop dino-mic"])
            let alone = try Self.judged("dino-far-end", "system-sound", in: scene)
            #expect(alone.reason.contains("a messenger playing alone"), "\(alone.reason)")
            #expect(scene.waitForVolume("dino-far-end", 0), "in silent mode a messenger's ping is silenced: \(scene.describe(["dino-far-end"]))")
        }

        // MARK: web apps

        /// Google Meet installed from Chrome runs as `chrome`, in Chrome's own
        /// scope, under the browser process started with its `--app-id`: a
        /// meeting is a call (it holds the music), judged as the web app, never
        /// as Chrome; a plain tab of the same browser stays the browser.
        @Test func aWebAppIsTheWebAppNotItsBrowser() throws {
            let data = try AppKnowledgeAgentTests.DesktopData(["chrome-kjgfgldnnfoeklkmfkjfagphfepbbdan-Default.desktop"])
            let scene = try AgentScene(agentEnvironment: data.environment)
            let music = try scene.play("music")
            defer { music.stop() }
            #expect(scene.waitUntilAgentSees("music", runningOn: "speakers"))

            let meetScope = try LaunchScope(Self.unique("app-com.google.Chrome"))
            let meet = try Self.app("chrome", in: meetScope, scene: scene,
                                    parent: ["--profile-directory=Default", "--app-id=kjgfgldnnfoeklkmfkjfagphfepbbdan"])
            defer { meet.stop() }
            meet.send([Self.open("play", "meet-far-end", "pw-policy-load.level=0.3")])
            try Self.appear("meet-far-end", in: scene)
            let alone = try Self.judged("meet-far-end", "system-sound", in: scene)
            #expect(alone.reason.contains("web app \"Google Meet\"") && !alone.reason.contains("browser)"), "\(alone.reason)")
            meet.send([Self.open("record", "meet-mic")])
            try Self.appear("meet-mic", in: scene)
            let call = try Self.judged("meet-far-end", "play-and-record", in: scene)
            let mic = try Self.judged("meet-mic", "play-and-record", in: scene)
            for status in [call, mic] {
                #expect(status.reason.contains("web app \"Google Meet\"") && !status.reason.contains("known browser"), "\(status.reason)")
            }
            #expect(scene.waitForStatus("music") { $0.hold?.kind == "interrupted" }, "a meeting holds the music: \(scene.describe(["music"]))")

            let tabScope = try LaunchScope(Self.unique("app-gnome-chrome"))
            let tab = try Self.app("chrome", in: tabScope, scene: scene, parent: ["--profile-directory=Default"])
            defer { tab.stop() }
            tab.send([Self.open("play", "chrome-tab", "pw-policy-load.level=0.3")])
            try Self.appear("chrome-tab", in: scene)
            let plain = try Self.judged("chrome-tab", "playback", in: scene)
            #expect(plain.options == ["mix-with-others"] && plain.reason.contains("known browser"), "\(plain.reason)")
        }

        // MARK: recordings of what plays

        /// A screen recorder recording the speakers' monitor beside the
        /// microphone (Kooha from Flathub: its entry says no Recorder) is a
        /// recording, and an alert played meanwhile is silent at the speakers;
        /// a visualiser capturing the same monitor is no recording, and the alert
        /// is heard.
        @Test(arguments: [("kooha", true), ("cava", false)])
        func aScreenRecorderSilencesAlertsAVisualiserDoesNot(program: String, records: Bool) throws {
            let data = try AppKnowledgeAgentTests.DesktopData(records ? ["io.github.seadve.Kooha.desktop"] : [])
            let scene = try AgentScene(pulse: true, agentEnvironment: data.environment)
            let display = try XvfbDisplay(sandbox: scene.sandbox)
            defer { display.stop() }
            let alertTone = scene.sandbox.path("alert-tone.wav")
            try Audio.writeTone(to: alertTone, seconds: 1, frequency: 880)
            let scope = try LaunchScope(records ? Self.unique("app-flatpak-io.github.seadve.Kooha")
                                                : Self.unique("app-gnome-org.gnome.Terminal", suffix: ".slice"))
            let app = try Self.app(program, in: scope, scene: scene)
            defer { app.stop() }
            app.send([Self.open("record", "\(program)-desktop", "stream.capture.sink=true target.object=speakers")]
                     + (records ? [Self.open("record", "\(program)-mic")] : []))
            try Self.appear("\(program)-desktop", in: scene)
            let desktop = try Self.judged("\(program)-desktop", records ? "record" : "audio-processing", in: scene)
            #expect(desktop.reason.contains("captures what a sink plays"), "\(desktop.reason)")
            if records {
                try Self.appear("\(program)-mic", in: scene)
                #expect(try Self.judged("\(program)-mic", "record", in: scene).category == "record")
            }

            // The alert as a desktop plays one (libcanberra), heard at the speakers' monitor.
            let monitor = "\(program)-speakers.wav"
            let recorder = try scene.recordSink("speakers", to: monitor)
            scene.client.pump(0.3)
            let alert = try CanberraAlert(sandbox: scene.sandbox, display: display, file: alertTone, description: "\(program) alert")
            #expect(alert.waitUntilPlayed(timeout: 15, pumping: scene.client) == 0, "canberra-gtk-play: \(alert.errors)")
            scene.client.pump(0.3)
            recorder.stop(signal: SIGINT)
            let path = scene.sandbox.path(monitor)
            let loud = try Audio.loudFrames(ofWAV: path, threshold: 0.001)
            let peak = try Audio.peak(ofWAV: path)
            Self.report(String(format: "%@ capturing the speakers: the alert at the speakers peaks %.4f, %d frames above 0.001",
                               program, peak, loud))
            if records {
                #expect(loud == 0, "the alert was heard during the recording: \(loud) frames, peak \(peak)")
            } else {
                #expect(peak > 0.45 && loud > 24_000, "the alert must be heard beside a visualiser (positive control): \(loud) frames")
            }
        }

        // MARK: launch units

        /// Desktop ids of every shape, in units their launchers really make: 0
        /// A.D.'s engine under its wrapper script in GNOME's scope (a
        /// hex-looking id), Teams' Edge web app in GNOME's scope with `\x2d`
        /// escapes, SuperTuxKart in rofi's service with a RANDOM after a dash.
        @Test(arguments: [
            ("0ad.desktop", "app-gnome-0ad-%@.scope", "pyrogenesis", "0ad", "solo-ambient", "desktop entry 0ad (Categories=Game;StrategyGame;), launched in app-gnome-0ad-"),
            ("msedge-cifhbcnohmdccbgoicgdjpfamggdegmo-Default.desktop",
             "app-gnome-msedge\\x2dcifhbcnohmdccbgoicgdjpfamggdegmo\\x2dDefault-%@.scope", "msedge", nil, "system-sound",
             "web app \"Microsoft Teams\""),
            ("supertuxkart.desktop", "app-rofi-supertuxkart-%@.service", "supertuxkart", nil, "solo-ambient",
             "desktop entry supertuxkart (Categories=Game;ArcadeGame;), launched in app-rofi-supertuxkart-"),
        ] as [(String, String, String, String?, String, String)])
        func unitsOfEveryShapeNameTheirApp(entry: String, unitPattern: String, program: String, wrapper: String?,
                                          category: String, evidence: String) throws {
            let data = try AppKnowledgeAgentTests.DesktopData([entry])
            let scene = try AgentScene(agentEnvironment: data.environment)
            let unit = unitPattern.replacingOccurrences(of: "%@", with: "\(getpid())\(UInt16.random(in: 1000...9999))")
            let scope = try LaunchScope(unit)
            let player = try Self.copy(try RealClient.path(of: "pw-cat", package: "pipewire-bin"), as: program, in: scene)
            let file = scene.sandbox.path("\(program).wav")
            if !FileManager.default.fileExists(atPath: file) { symlink(scene.tone, file) }
            var command = [player, "--playback", file]
            if let wrapper {
                // The entry's program is a shell script that runs the engine without exec (Debian's /usr/games/0ad).
                let script = scene.sandbox.path("bin/\(wrapper)")
                try "#!/bin/sh\n\"\(player)\" \"$@\"\n".write(toFile: script, atomically: true, encoding: .utf8)
                chmod(script, 0o755)
                command = [script, "--playback", file]
            }
            let process = try ChildProcess(scope.wrap(command), environment: scene.sandbox.environment.merging(["PIPEWIRE_PROPS": "{ media.role=null }"]) { $1 },
                                           stderr: scene.sandbox.path("\(program).stderr"))
            defer { process.stop(); scope.remove() }
            try Self.appear(program, in: scene)
            Self.report("\(program) runs in \(LaunchScope.cgroup(of: process.pid))")
            let reached = scene.waitForStatus(program, timeout: 10) { $0.category == category }
            let status = try scene.status(program)
            Self.report("\(program): \(status.category) — \(status.reason)")
            #expect(reached && status.source == "app", "\(status.source): \(status.reason)")
            #expect(status.reason.contains(evidence), "\(status.reason)")
        }

        // MARK: what the properties say

        /// Families the properties alone tell, from real clients through
        /// pipewire-pulse: paplay playing a file of the sound theme in the
        /// sandbox's data directory, pw-play with a telephony stack's ring and
        /// call roles, and alsa-utils' speaker-test through PulseAudio's ALSA
        /// plug-in copied as `baresip` (the plug-in names the client `ALSA
        /// plug-in [baresip]`).
        @Test func thePropertiesOnlyFamiliesOnRealClients() throws {
            let data = try AppKnowledgeAgentTests.DesktopData([])
            let scene = try AgentScene(pulse: true, agentEnvironment: data.environment)
            // The sound theme in the desktop's data directory, as /usr/share/sounds is.
            let theme = data.root + "/share/sounds/freedesktop/stereo"
            try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
            let sound = theme + "/complete.wav"
            try Audio.writeTone(to: sound, seconds: 20, frequency: 880)
            let paplay = try scene.sandbox.spawn(["paplay", sound], stderr: scene.sandbox.path("paplay.stderr"))
            defer { paplay.stop() }
            try Self.appear("complete", in: scene)
            let themed = try Self.judged("complete", "system-sound", in: scene)
            #expect(themed.reason.contains("a file of the desktop's sound themes"), "\(themed.reason)")

            for (role, category) in [("ringtone-call", "system-sound"), ("call-voice", "play-and-record")] {
                let player = try scene.play("role-\(role)", role: role)
                defer { player.stop() }
                let status = try Self.judged("role-\(role)", category, in: scene)
                #expect(status.reason.contains("media.role = \"\(role)\""), "\(status.reason)")
            }

            // speaker-test (aplay refuses another name) copied as baresip, on the
            // PulseAudio plug-in's `pulse` device.
            let alsa = try Self.copy(try RealClient.path(of: "speaker-test", package: "alsa-utils"), as: "baresip", in: scene)
            let ring = try scene.sandbox.spawn([alsa, "-D", "pulse", "-c", "2", "-t", "sine", "-f", "440", "-l", "0"],
                                               stderr: scene.sandbox.path("speaker-test.stderr"))
            defer { ring.stop() }
            func plugged(_ graph: Graph) -> Graph.Node? {
                graph.streams.first { graph.clients[$0.clientID ?? 0]?.props["application.name"] == "ALSA plug-in [baresip]" }
            }
            #expect(scene.client.wait(timeout: 10) { plugged($0) != nil },
                    "no stream of the ALSA plug-in appeared: \(scene.sandbox.playerErrors("speaker-test"))")
            let node = try #require(plugged(scene.client.graph))
            let reached = scene.client.wait(timeout: 10) { _ in scene.polledStatus(id: node.id)?.category == "system-sound" }
            let status = try #require(scene.polledStatus(id: node.id))
            Self.report("speaker-test as baresip through the ALSA plug-in (client \"ALSA plug-in [baresip]\"): \(status.category) — \(status.reason)")
            // libpulse adds the binary, which names the same program: a VoIP app playing alone.
            #expect(reached && status.reason.contains("(known VoIP app"), "\(status.reason)")
        }
    }
}
