import PolicyCore
import Testing
@testable import PolicyCLI

@Suite struct PolicyEffectTests {
    @Test func duckedShowsGainAndWho() {
        let status = Fixtures.stream(57, app: "Spotify", gain: 0.2, duckedBy: [.init(session: "s", app: "Maps")])
        #expect(PolicyEffect.of(status) == PolicyEffect(text: "gain 0.20 DUCKED by \"Maps\"", severity: .ducked))
    }

    @Test func heldSaysByWhomAndWhetherItResumes() {
        let resumes = Fixtures.stream(63, app: "Firefox", gain: 0, hold: .init(kind: "interrupted", by: "s", byApp: "Zoom", resumable: true))
        #expect(PolicyEffect.of(resumes)?.text == "HELD: interrupted by \"Zoom\", resumes")
        let doesNot = Fixtures.stream(63, app: "Firefox", gain: 0, hold: .init(kind: "interrupted", by: "s", byApp: "VLC", resumable: false))
        #expect(PolicyEffect.of(doesNot)?.text == "HELD: interrupted by \"VLC\", does not resume")
        let waiting = Fixtures.stream(63, app: "Firefox", gain: 0, hold: .init(kind: "waiting", by: "s", byApp: "Zoom", resumable: true))
        #expect(PolicyEffect.of(waiting)?.text == "HELD: waiting for \"Zoom\" to end")
        let lost = Fixtures.stream(63, app: "Firefox", gain: 0, hold: .init(kind: "route-lost", resumable: false, output: "headphones"))
        #expect(PolicyEffect.of(lost)?.text == "HELD: output \"headphones\" went away; 'pw-policy resume 63' continues it")
    }

    /// Which of an app's sessions, when its name alone does not
    /// say it; never a session key.
    @Test func namesSaySessionsApart() {
        let ducked = Fixtures.stream(51, app: "eSpeak", gain: 0.2, duckedBy: [
            .init(session: "pid:400/playback", app: "eSpeak", which: "playback, pid 400"),
            .init(session: "pid:12/playback", app: "Maps"),
        ])
        #expect(PolicyEffect.of(ducked)?.text == #"gain 0.20 DUCKED by "eSpeak" (playback, pid 400), "Maps""#)
        let held = Fixtures.stream(63, app: "Spotify", gain: 0, hold: .init(kind: "interrupted", by: "pid:1700/play-and-record",
                                                                             byApp: "Chromium", byWhich: "play-and-record",
                                                                             resumable: true))
        #expect(PolicyEffect.of(held)?.text == #"HELD: interrupted by "Chromium" (play-and-record), resumes"#)
        // From an agent that published no app name: still not the key.
        let bare = Fixtures.stream(63, app: "Spotify", gain: 0, hold: .init(kind: "waiting", by: "pid:7/playback", resumable: true))
        #expect(PolicyEffect.of(bare)?.text == #"HELD: waiting for "unknown app" to end"#)
    }

    @Test func silencedAndUntouched() {
        #expect(PolicyEffect.of(Fixtures.stream(80, app: "Game", gain: 0, silenced: true))?.text == "SILENCED")
        #expect(PolicyEffect.of(Fixtures.stream(81, app: "Music")) == nil)
        #expect(PolicyEffect.of(Fixtures.stream(82, app: "Fading", gain: 0.55))?.text == "gain 0.55")
    }

    @Test func holdBeatsDuckInTheSummary() {
        let both = Fixtures.stream(63, app: "Firefox", gain: 0, hold: .init(kind: "interrupted", byApp: "Zoom", resumable: true),
                                   duckedBy: [.init(session: "s", app: "Maps")])
        #expect(PolicyEffect.of(both)?.severity == .held)
    }
}
