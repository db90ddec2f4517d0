import PropertyBased
import Testing
@testable import PolicyCore

/// Events, statuses and explanations name a session by its app,
/// and which of the app's sessions when the name alone does not say it —
/// never by its key (docs/CLI.md, "Names").
@Suite struct SessionNameTests {
    // MARK: the names of sessions seen together

    struct NamingCase: Sendable, CustomTestStringConvertible {
        /// Key, app name, the name people read.
        var sessions: [(key: String, app: String, name: String)]
        var testDescription: String
    }

    static let namingCases: [NamingCase] = [
        NamingCase(sessions: [("pid:1/playback", "Spotify", #""Spotify""#), ("pid:2/playback", "Maps", #""Maps""#)],
                   testDescription: "different apps: the name alone"),
        NamingCase(sessions: [("pid:3/playback", "Chromium", #""Chromium" (playback)"#),
                              ("pid:3/play-and-record", "Chromium", #""Chromium" (play-and-record)"#),
                              ("pid:9/playback", "Maps", #""Maps""#)],
                   testDescription: "one app, two categories: the category"),
        NamingCase(sessions: [("pid:4/playback", "eSpeak", #""eSpeak" (playback, pid 4)"#),
                              ("pid:5/playback", "eSpeak", #""eSpeak" (playback, pid 5)"#)],
                   testDescription: "two copies of one app in one category: the process too"),
        NamingCase(sessions: [("pid:6/playback", "A", #""A" (playback, pid 6)"#), ("pid:6/ambient", "A", #""A" (ambient)"#),
                              ("pid:7/playback", "A", #""A" (playback, pid 7)"#)],
                   testDescription: "the process only where the category does not tell"),
        NamingCase(sessions: [("app:org.x.Y/playback", "Y", #""Y" (playback, org.x.Y)"#),
                              ("app:org.z.Y/playback", "Y", #""Y" (playback, org.z.Y)"#),
                              ("client:45/ambient", "pw-play", #""pw-play" (ambient, client 45)"#),
                              ("node:67/ambient", "pw-play", #""pw-play" (ambient, node 67)"#)],
                   testDescription: "sandboxed apps by their id, clients and nodes by number"),
        NamingCase(sessions: [("radio", "R", #""R" (radio)"#), ("radio2", "R", #""R" (radio2)"#)],
                   testDescription: "keys of another shape"),
    ]

    @Test(arguments: namingCases)
    func sessionsSeenTogether(_ example: NamingCase) {
        let sessions = example.sessions.map {
            WorkingSession(key: SessionKey($0.key), appName: $0.app, category: .playback, options: [], mode: .default)
        }
        var namer = SessionNamer()
        #expect(sessions.indices.map { namer.name($0, among: sessions).description } == example.sessions.map(\.name))
        #expect(namer.names.sessions.count == sessions.count, "every name given is the decision's")
    }

    /// A session whose streams are gone counts itself among those with its name.
    @Test func aSessionNotAmongThemCountsItself() {
        let sessions = [WorkingSession(key: SessionKey("pid:3/play-and-record"), appName: "Chromium", category: .playAndRecord,
                                       options: [], mode: .default)]
        var namer = SessionNamer()
        #expect(namer.name(SessionKey("pid:3/playback"), app: "Chromium", among: sessions).description == #""Chromium" (playback)"#)
        #expect(namer.name(SessionKey("pid:4/playback"), app: "Maps", among: sessions).description == #""Maps""#)
        #expect(namer.name(SessionKey("pid:5/playback"), app: "", among: sessions).description == #""unknown app""#)
    }

    // MARK: through the engine

    static let engine = PolicyEngine(config: DefaultPolicyConfig.config)

    static func stream(_ id: UInt32, _ key: String, _ app: String, _ category: Category, options: Set<PolicyOption> = [],
                       direction: StreamDirection = .playback, running: Bool = true) -> StreamInput {
        StreamInput(id: id, session: SessionKey(key), appName: app, direction: direction,
                    classification: Classification(category: category, options: options, source: .rule, reason: "test"),
                    isRunning: running, output: running && direction == .playback ? 1 : nil)
    }

    /// Each step's decision, its memory fed into the next.
    static func decide(_ steps: [(time: Double, streams: [StreamInput])], silent: Bool = false) -> [PolicyDecision] {
        var memory = EngineMemory.empty
        return steps.map { step in
            let decision = engine.decide(PolicyInput(now: step.time, streams: step.streams,
                                                     outputs: [OutputInput(id: 1, name: "speakers", isPrivate: false)],
                                                     defaultOutput: 1, silentMode: silent), memory: memory)
            memory = decision.memory
            return decision
        }
    }

    static func texts(_ decision: PolicyDecision) -> [String] {
        decision.events.map { StatusPublisher.record($0, seq: 0, names: decision.names).text }
    }

    static let music = stream(10, "pid:31691/playback", "Music", .playback)
    static let maps = stream(20, "pid:4712/playback", "Maps", .playback, options: [.duckOthers])

    /// The duck of a session whose streams are gone ends under its app's
    /// name: in its debounce gap, or once the gap is over (vanished).
    @Test(arguments: [1.0, 5.0])
    func aSessionWithoutStreamsIsNamedByItsApp(after seconds: Double) {
        let decisions = Self.decide([(0, [Self.music, Self.maps]), (seconds, [Self.maps])])
        #expect(Self.texts(decisions[0]) == [#""Music" ducked to 0.20 by "Maps""#])
        #expect(Self.texts(decisions[1]) == [#""Music" no longer ducked"#])
    }

    /// Silent mode silences a notification stream that does not play, so its
    /// session is not active and has no memory entry: it is still named,
    /// also when it stops being silenced after its stream is gone.
    @Test func aSilencedSessionThatDoesNotPlayIsNamedByItsApp() {
        let chime = Self.stream(30, "pid:1866/system-sound", "gnome-shell", .systemSound, running: false)
        let decisions = Self.decide([(0, [Self.music, chime]), (1, [Self.music])], silent: true)
        #expect(Self.texts(decisions[0]) == [#""gnome-shell" silenced"#])
        #expect(decisions[0].memory.silencedApps == [SessionKey("pid:1866/system-sound"): "gnome-shell"])
        #expect(Self.texts(decisions[1]) == [#""gnome-shell" no longer silenced"#])
        #expect(decisions[1].memory.silencedApps == nil)
    }

    /// A session keeps the name it got first while it is remembered, so the
    /// log, the status and the explanation agree whichever of its streams
    /// come and go (Chromium's capture is "Chromium input", its playback "Chromium").
    @Test func aSessionKeepsItsFirstName() throws {
        let input = Self.stream(40, "pid:1700/play-and-record", "Chromium input", .playAndRecord, direction: .capture)
        let output = Self.stream(41, "pid:1700/play-and-record", "Chromium", .playAndRecord)
        let decisions = Self.decide([(0, [Self.music]), (1, [Self.music, input, output]), (2, [Self.music, output])])
        #expect(Self.texts(decisions[1]) == [#""Music" interrupted by "Chromium input", resumes when it ends"#])
        let hold = try #require(decisions[2].streams[Self.music.id]?.hold)
        let status = StatusPublisher.hold(of: hold, names: decisions[2].names)
        #expect(status.byName?.description == #""Chromium input""#)
        #expect(decisions[2].streams[Self.music.id]?.explanation.first?.hasPrefix(#"held: interrupted by "Chromium input","#) == true)
    }

    /// Two copies of one app: each event, status and explanation says which.
    @Test func twoCopiesOfOneAppAreToldApart() throws {
        let reader = Self.stream(50, "pid:400/playback", "eSpeak", .playback, options: [.duckOthers])
        let other = Self.stream(51, "pid:401/playback", "eSpeak", .playback)
        let decision = try #require(Self.decide([(0, [other]), (1, [other, reader])]).last)
        #expect(Self.texts(decision) == [#""eSpeak" (playback, pid 401) ducked to 0.20 by "eSpeak" (playback, pid 400)"#])
        let ducked = try #require(decision.streams[other.id])
        let status = StatusPublisher.streamStatus(node: Graph.Node(id: other.id), classified: testClassified(other.id),
                                                  decision: ducked, graph: Graph(), linkedSinks: [:], names: decision.names,
                                                  extraWarnings: [])
        #expect(status.duckedBy == [StreamStatus.Ducker(session: "pid:400/playback", app: "eSpeak", which: "playback, pid 400")])
        #expect(ducked.explanation.first?.hasPrefix(#"ducked to 0.20 by "eSpeak" (playback, pid 400) (rule"#) == true)
    }

    /// Over random scenarios: every session an event, a hold or a duck
    /// speaks of has its app's name in the decision, and no event's text
    /// holds a session key.
    @Test func everySessionSpokenOfIsNamed() async {
        await propertyCheck(count: 200, input: RandomScenario.gen) { scenario in
            let apps = Dictionary(scenario.sessions.map { ($0.key, $0.app) }) { first, _ in first }
            var memory = EngineMemory.empty
            for input in scenario.inputs() {
                let decision = Self.engine.decide(input, memory: memory)
                memory = decision.memory
                for event in decision.events {
                    let text = StatusPublisher.record(event, seq: 0, names: decision.names).text
                    for key in apps.keys { #expect(!text.contains(key.rawValue), "a key in \(text)") }
                    #expect(!text.contains(SessionName.unknown.app), "unnamed in \(text)")
                }
                for stream in decision.streams.values {
                    var spoken = stream.duckedBy
                    switch stream.hold {
                    case .interrupted(let by, _, _), .waiting(let by, _): spoken.append(by)
                    default: break
                    }
                    for key in spoken { #expect(decision.names.sessions[key]?.app == apps[key], "\(key) unnamed") }
                }
            }
        }
    }

    /// The streams an event names by id are named by their app too.
    @Test func streamEventsNameTheApp() throws {
        let phones = OutputInput(id: 2, name: "headphones", isPrivate: true)
        let song = StreamInput(id: 10, session: SessionKey("pid:9/playback"), appName: "mpv", direction: .playback,
                               classification: Classification(category: .playback, source: .rule, reason: "test"),
                               isRunning: true, output: 2)
        let first = Self.engine.decide(PolicyInput(now: 0, streams: [song], outputs: [phones], defaultOutput: 2), memory: .empty)
        var unplugged = song
        unplugged.output = nil
        let held = Self.engine.decide(PolicyInput(now: 1, streams: [unplugged], outputs: [], defaultOutput: nil),
                                      memory: first.memory)
        #expect(Self.texts(held).contains(#"stream 10 "mpv" held: its output "headphones" went away"#), "\(Self.texts(held))")
        let resumed = Self.engine.decide(PolicyInput(now: 2, streams: [unplugged], outputs: [], resumeRequests: [10]),
                                         memory: held.memory)
        #expect(Self.texts(resumed).contains(#"stream 10 "mpv" resumed by the user"#), "\(Self.texts(resumed))")
    }
}
