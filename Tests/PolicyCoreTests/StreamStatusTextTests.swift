import Testing
@testable import PolicyCore

/// A stream's status written by hand (StreamStatusText) is exactly what the
/// generic encoder writes for it.
@Suite struct StreamStatusTextTests {
    /// Every stored property set, so that a property added to StreamStatus
    /// (or to its nested types) shows up as a difference until it is written.
    static let everyField = StreamStatus(
        id: 4_000_000_000, app: "a \"quoted\" / app\n\u{1}é🎵", appKey: "org.example/App", session: "pid:42/playback",
        direction: "playback", state: "running", category: "playback", options: ["duck-others", "mix-with-others"],
        mode: "spoken-audio", exempt: true, source: "rule", reason: "rule 3 \\ matched", warnings: ["w1", "w/2"],
        gain: 0.2, hold: .init(kind: "interrupted", by: "pid:7/play-and-record", byApp: "Phone", resumable: true,
                                output: "Headphones", app: "running"),
        silenced: true, duckedBy: [.init(session: "pid:9/playback", app: "Maps"), .init(session: "x", app: "y")],
        output: "bench-0", via: "Multimedia", explanation: ["line one", "line \"two\""],
        player: .init(busName: "org.mpris.MediaPlayer2.mpv", identity: "mpv", status: "Playing",
                      matchedBy: "same process (42)", pausedByAgent: "paused by pw-policy"))

    static let fewestFields = StreamStatus(
        id: 0, app: "", appKey: "", session: "", direction: "capture", state: "idle", category: "record", options: [],
        mode: "default", exempt: false, source: "default", reason: "", warnings: [], gain: 1, hold: nil,
        silenced: false, duckedBy: [], output: nil, explanation: [], player: nil)

    @Test(arguments: [everyField, fewestFields])
    func writesWhatTheGenericEncoderWrites(_ status: StreamStatus) {
        #expect(StreamStatusText.encode(status) == StatusPublisher.json(status))
    }

    @Test func gainsAreWrittenAsTheGenericEncoderWritesThem() {
        for gain in [0, 1, 0.2, 1e-7, 0.30000000000000004, -0.0] {
            var status = Self.fewestFields
            status.gain = gain
            #expect(StreamStatusText.encode(status) == StatusPublisher.json(status))
        }
    }

    /// A gain JSON cannot hold: what the generic encoder makes of it.
    @Test func aGainThatIsNotANumberFallsBackToTheGenericEncoder() {
        var status = Self.fewestFields
        status.gain = .nan
        #expect(StreamStatusText.encode(status) == StatusPublisher.json(status))
    }
}
