import Testing
@testable import PolicyCore

/// One stream as a real app would show it in pw-dump, and what inference must make of it.
struct InferenceCase: CustomTestStringConvertible, Sendable {
    var name: String
    var direction: StreamDirection = .playback
    var node: [String: String]
    var client: [String: String] = [:]
    var duplex = false
    var category: Category?
    var options: Set<PolicyOption> = []
    var mode: AudioMode = .default
    /// A piece the reason must contain (the deciding property and value).
    var evidence: String = ""

    var testDescription: String { name }

    /// The evidence holds the expected piece, or at least names a property and its value.
    func reasonIsRight(_ reason: String) -> Bool {
        evidence.isEmpty ? reason.contains(" = \"") : reason.contains(evidence)
    }

    func infer() -> InferredCategory? {
        RoleInference.infer(StreamFacts(nodeID: 70, direction: direction, nodeProps: node, clientProps: client,
                                        appAlsoStreamsOtherDirection: duplex))
    }
}

let playbackStreamClass = ["media.class": "Stream/Output/Audio"]
let captureStreamClass = ["media.class": "Stream/Input/Audio"]

func pwPlay(role: String) -> [String: String] {
    playbackStreamClass.merging(["application.name": "pw-play", "application.process.binary": "pw-play",
                           "node.name": "pw-play", "media.name": "tone.wav", "media.role": role]) { $1 }
}

@Suite struct RoleInferenceTests {
    static let roleCases: [InferenceCase] = [
        // PipeWire spellings, as `pw-play --media-role X` sets them.
        InferenceCase(name: "Music", node: pwPlay(role: "Music"), category: .playback, evidence: #"media.role = "Music""#),
        InferenceCase(name: "Movie", node: pwPlay(role: "Movie"), category: .playback),
        InferenceCase(name: "Game", node: pwPlay(role: "Game"), category: .soloAmbient),
        InferenceCase(name: "Notification", node: pwPlay(role: "Notification"), category: .systemSound),
        InferenceCase(name: "Communication", node: pwPlay(role: "Communication"), category: .playAndRecord),
        InferenceCase(name: "Accessibility", node: pwPlay(role: "Accessibility"), category: .playback,
                      options: [.duckOthers], mode: .spokenAudio),
        InferenceCase(name: "Production", node: pwPlay(role: "Production"), category: .audioProcessing),
        InferenceCase(name: "DSP", node: pwPlay(role: "DSP"), category: .audioProcessing),
        InferenceCase(name: "Test", node: pwPlay(role: "Test"), category: .playback, options: [.mixWithOthers]),
        InferenceCase(name: "Alarm", node: pwPlay(role: "Alarm"), category: .playback),
        InferenceCase(name: "Navigation", node: pwPlay(role: "Navigation"), category: .playback, options: [.duckOthers]),
        InferenceCase(name: "Assistant", node: pwPlay(role: "Assistant"), category: .playback,
                      options: [.duckOthers, .interruptSpokenAudio]),
        InferenceCase(name: "Emergency", node: pwPlay(role: "Emergency"), category: .playback, options: [.duckOthers]),
        // PulseAudio spellings, as `paplay --property=media.role=X` sets them.
        InferenceCase(name: "pa video", node: playbackStreamClass.merging(
            ["application.name": "paplay", "media.name": "clip.ogg", "media.role": "video"]) { $1 }, category: .playback),
        InferenceCase(name: "pa event", node: playbackStreamClass.merging(
            ["application.name": "paplay", "media.name": "bell.oga", "media.role": "event"]) { $1 },
            category: .systemSound, evidence: #"media.role = "event""#),
        InferenceCase(name: "pa phone", node: playbackStreamClass.merging(
            ["application.name": "paplay", "media.role": "phone"]) { $1 }, category: .playAndRecord),
        InferenceCase(name: "pa a11y", node: playbackStreamClass.merging(
            ["application.name": "paplay", "media.role": "a11y"]) { $1 }, category: .playback,
            options: [.duckOthers], mode: .spokenAudio),
        InferenceCase(name: "pa animation", node: playbackStreamClass.merging(
            ["application.name": "paplay", "media.role": "animation"]) { $1 }, category: .ambient),
        // Case does not matter.
        InferenceCase(name: "GAME", node: pwPlay(role: "GAME"), category: .soloAmbient, evidence: #"media.role = "GAME""#),
        InferenceCase(name: "music lower", node: pwPlay(role: "music"), category: .playback),
        // A call's microphone with a role.
        InferenceCase(name: "Communication capture", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "baresip", "media.role": "Communication"]) { $1 }, category: .playAndRecord,
            evidence: "media.role"),
        // pw-record labels its capture Music by default: a recording.
        InferenceCase(name: "pw-record Music", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "pw-record", "application.process.binary": "pw-record", "node.name": "pw-record",
             "media.role": "Music"]) { $1 }, category: .record, evidence: "capture stream"),
        // Video roles and unknown roles decide nothing.
        InferenceCase(name: "Camera", node: pwPlay(role: "Camera"), category: nil),
        InferenceCase(name: "unknown role", node: pwPlay(role: "Ambience"), category: nil),
    ]

    static let eventCases: [InferenceCase] = [
        // GNOME Shell's volume-change sound through libcanberra.
        InferenceCase(name: "canberra event.id", node: playbackStreamClass.merging(
            ["application.name": "GNOME Shell", "application.id": "org.gnome.Shell",
             "event.id": "audio-volume-change", "event.description": "Volume changed",
             "media.name": "audio-volume-change"]) { $1 },
            category: .systemSound, evidence: #"event.id = "audio-volume-change" (libcanberra event sound)"#),
        InferenceCase(name: "canberra cache-control only", node: playbackStreamClass.merging(
            ["application.name": "Thunderbird", "canberra.cache-control": "permanent",
             "media.filename": "/usr/share/sounds/freedesktop/stereo/message.oga"]) { $1 },
            category: .systemSound, evidence: "canberra.cache-control"),
        InferenceCase(name: "canberra-gtk-play", node: playbackStreamClass.merging(
            ["application.name": "canberra-gtk-play", "media.name": "bell"]) { $1 },
            category: .systemSound, evidence: #"application.name = "canberra-gtk-play""#),
        // An alarm through libcanberra must still sound in silent mode.
        InferenceCase(name: "alarm event", node: playbackStreamClass.merging(
            ["application.name": "Clocks", "event.id": "alarm-clock-elapsed"]) { $1 },
            category: .playback, evidence: "an alarm"),
        // The role wins over the event id (role comes first).
        InferenceCase(name: "Alarm role with event id", node: playbackStreamClass.merging(
            ["media.role": "alarm", "event.id": "bell"]) { $1 }, category: .playback, evidence: "media.role"),
    ]

    static let meterCases: [InferenceCase] = [
        // pavucontrol's peak meters through pipewire-pulse.
        InferenceCase(name: "pavucontrol peak detect", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "PulseAudio Volume Control", "application.process.binary": "pavucontrol",
             "media.name": "Peak detect", "stream.monitor": "true", "resample.peaks": "true",
             "node.name": "PulseAudio Volume Control"]) { $1 },
            category: .audioProcessing, evidence: #"stream.monitor = "true""#),
        InferenceCase(name: "peak detect by name", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "Some Mixer", "media.name": "Peak detect"]) { $1 },
            category: .audioProcessing, evidence: #"media.name = "Peak detect""#),
        InferenceCase(name: "resample.peaks", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "Some Mixer", "resample.peaks": "1"]) { $1 }, category: .audioProcessing),
        // `pw-record --target speakers -P '{ stream.capture.sink=true }'`: records what a sink
        // plays (the design's measuring client) — not a recording that silences alerts.
        InferenceCase(name: "capture sink", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "pw-record", "media.role": "Music", "stream.capture.sink": "true"]) { $1 },
            category: .audioProcessing, evidence: "stream.capture.sink"),
        // A spectrum widget labelling its monitor capture Music must not become playback.
        InferenceCase(name: "visualizer with Music role", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "Noctalia Spectrum", "media.role": "Music", "stream.monitor": "true",
             "media.category": "Capture"]) { $1 }, category: .audioProcessing),
        // `parec -d alsa_output.pci-0000_00_1f.3.analog-stereo.monitor` through pipewire-pulse.
        InferenceCase(name: "parec of a sink monitor", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "parec", "application.process.binary": "parec",
             "target.object": "alsa_output.pci-0000_00_1f.3.analog-stereo.monitor"]) { $1 },
            category: .audioProcessing, evidence: "captures a sink's monitor"),
        InferenceCase(name: "media.category Monitor", direction: .capture, node: captureStreamClass.merging(
            ["media.category": "Monitor", "media.name": "Spectrum analyzer"]) { $1 }, category: .audioProcessing),
        InferenceCase(name: "cava", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "cava", "application.process.binary": "cava", "node.name": "cava"]) { $1 },
            category: .audioProcessing, evidence: "known level meter/visualizer"),
        // A loopback's two halves would otherwise look like a call.
        InferenceCase(name: "loopback playback half", node: playbackStreamClass.merging(
            ["node.name": "output.loopback-1234-18", "node.link-group": "loopback-1234-18",
             "application.process.binary": "pw-loopback"]) { $1 }, duplex: true,
            category: .audioProcessing, evidence: "node.link-group"),
        // …unless it says it carries a call (pw-loopback --capture-props='{ media.role=Communication }').
        InferenceCase(name: "loopback carrying a call", node: playbackStreamClass.merging(
            ["node.name": "output.pw-loopback-1234", "node.link-group": "pw-loopback-1234",
             "application.process.binary": "pw-loopback", "media.role": "Communication"]) { $1 }, duplex: true,
            category: .playAndRecord),
        InferenceCase(name: "easyeffects both ways", node: playbackStreamClass.merging(
            ["application.name": "EasyEffects", "application.id": "com.github.wwmm.easyeffects",
             "application.process.binary": "easyeffects"]) { $1 }, duplex: true,
            category: .audioProcessing, evidence: "audio effects/DSP"),
        // A meter app's playback (a test sound) is not a meter.
        InferenceCase(name: "pavucontrol test sound", node: playbackStreamClass.merging(
            ["application.process.binary": "pavucontrol", "media.name": "Test"]) { $1 }, category: nil),
        // stream.monitor=false is no monitor.
        InferenceCase(name: "monitor false", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "arecord", "stream.monitor": "false"]) { $1 }, category: .record),
    ]

    static let directionCases: [InferenceCase] = [
        // A browser in a WebRTC call: the playback stream of a pid that also captures.
        InferenceCase(name: "firefox call playback", node: playbackStreamClass.merging(
            ["application.name": "Firefox", "application.process.binary": "firefox",
             "media.name": "AudioStream"]) { $1 }, duplex: true,
            category: .playAndRecord, evidence: "also has a running capture stream"),
        InferenceCase(name: "firefox call names the process", node: playbackStreamClass.merging(
            ["application.process.binary": "firefox"]) { $1 }, client: ["application.process.id": "3312"], duplex: true,
            category: .playAndRecord, evidence: "the app (pid:3312) also has a running capture stream"),
        InferenceCase(name: "chromium call capture", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "Chromium", "application.process.binary": "chromium",
             "media.name": "RecordStream"]) { $1 }, duplex: true,
            category: .playAndRecord, evidence: "also has a running playback stream"),
        // A duplex app's event sound stays an event sound.
        InferenceCase(name: "ping during a call", node: playbackStreamClass.merging(
            ["application.name": "Telegram", "event.id": "message-new-instant"]) { $1 }, duplex: true,
            category: .systemSound),
        InferenceCase(name: "arecord", direction: .capture, node: captureStreamClass.merging(
            ["application.name": "ALSA plug-in [arecord]", "application.process.binary": "arecord",
             "node.name": "alsa_capture.arecord"]) { $1 }, category: .record, evidence: "capture stream"),
        InferenceCase(name: "unknown playback", node: playbackStreamClass.merging(
            ["application.name": "Hades II", "node.name": "Hades II"]) { $1 }, category: nil),
    ]

    @Test(arguments: roleCases + eventCases + meterCases + directionCases)
    func infers(_ example: InferenceCase) {
        let result = example.infer()
        #expect(result?.category == example.category)
        guard let result, example.category != nil else { return }
        #expect(result.options == example.options)
        #expect(result.mode == example.mode)
        #expect(example.reasonIsRight(result.evidence), "evidence: \(result.evidence)")
    }

    @Test func everyRoleInTheTableIsCaseInsensitive() {
        for (role, meaning) in RoleInference.roles {
            #expect(RoleInference.meaning(ofRole: role.uppercased()) == meaning)
            #expect(RoleInference.meaning(ofRole: " \(role.capitalized) ") == meaning)
        }
    }

    @Test func videoRolesSayLittleAboutAudio() {
        // PipeWire's camera role says nothing about audio; its screencast
        // role on an audio capture is a screen recording's sound (wf-recorder).
        for role in ["camera", "Camera"] { #expect(RoleInference.meaning(ofRole: role) == nil) }
        let screen = StreamProperties(node: ["media.role": "Screen", "stream.capture.sink": "true"], client: [:])
        #expect(RoleInference.fromMediaRole(screen, direction: .capture)?.category == .record)
        #expect(RoleInference.fromMediaRole(screen, direction: .playback) == nil)
    }

    @Test func monitorsNeverRecord() {
        // A meter's capture is audio-processing, even with a role or a recorder's name on it.
        let meters = [["stream.monitor": "true"], ["resample.peaks": "true"], ["media.name": "Peak detect"],
                      ["media.category": "Monitor"], ["stream.capture.sink": "true", "resample.peaks": "true"]]
        for flag in meters {
            for extra in [[:], ["media.role": "Music"], ["application.process.binary": "obs"]] {
                let facts = StreamFacts(nodeID: 1, direction: .capture,
                                        nodeProps: captureStreamClass.merging(flag) { $1 }.merging(extra) { $1 })
                let inferred = RoleInference.infer(facts)
                print("meter \(flag) \(extra): \(inferred?.category.rawValue ?? "nil") — \(inferred?.evidence ?? "")")
                #expect(inferred?.category == .audioProcessing, "\(flag) \(extra)")
            }
        }
    }

    /// A capture of what a sink plays records when its app records (a known
    /// recorder, or an app also capturing a microphone or video), and is
    /// audio-processing otherwise: a visualiser, an unknown tool, an effect.
    @Test func capturesOfWhatPlaysRecordOnlyForRecorders() {
        let desktop = [["stream.capture.sink": "true"], ["target.object": "alsa_output.usb-headset.analog-stereo.monitor"]]
        let microphone = InstanceStream(nodeID: 61, name: "Microphone", direction: .capture, activity: .running)
        let video = InstanceStream(nodeID: 70, name: "screen", direction: .capture, activity: .running)
        let cases: [(extra: [String: String], instance: InstanceFacts, expected: Category, evidence: String)] = [
            ([:], .alone, .audioProcessing, "captures"),
            (["media.role": "Music"], .alone, .audioProcessing, "captures"),
            (["application.process.binary": "obs"], .alone, .record, "(known recorder"),
            (["application.name": "Kooha"], .alone, .record, "(known recorder"),
            ([:], InstanceFacts(microphone: microphone), .record, "also captures a running capture stream 61 \"Microphone\""),
            ([:], InstanceFacts(video: video), .record, "also captures video"),
            (["application.process.binary": "cava"], InstanceFacts(microphone: microphone), .audioProcessing, "captures"),
            (["application.id": "com.github.wwmm.easyeffects"], InstanceFacts(microphone: microphone), .audioProcessing,
             "captures"),
        ]
        for flag in desktop {
            for example in cases {
                let facts = StreamFacts(nodeID: 1, direction: .capture,
                                        nodeProps: captureStreamClass.merging(flag) { $1 }.merging(example.extra) { $1 },
                                        instance: example.instance)
                let inferred = RoleInference.infer(facts)
                print("desktop capture \(flag) \(example.extra): \(inferred?.category.rawValue ?? "nil") — \(inferred?.evidence ?? "")")
                #expect(inferred?.category == example.expected, "\(flag) \(example.extra) \(example.instance)")
                #expect(inferred?.evidence.contains(example.evidence) == true, "\(inferred?.evidence ?? "nil")")
            }
        }
    }
}
