import Testing
@testable import PolicyCore

/// The text written as a value encodes itself (JSONTextEncoder) is exactly
/// the tree's text (`JSONValueEncoder.encode(value).text()`): for the
/// journal and the statuses, written before and after every reaction, with
/// every field set, and for the shapes Codable can take.
@Suite struct JSONTextEncoderTests {
    static func streamed<T: Encodable>(_ value: T, escapingSlashes: Bool = true) -> String? {
        JSONTextEncoder.text(value, escapingSlashes: escapingSlashes).map { String(decoding: $0, as: UTF8.self) }
    }

    static func tree<T: Encodable>(_ value: T, escapingSlashes: Bool = true) throws -> String {
        try JSONValueEncoder.encode(value).text(escapingSlashes: escapingSlashes)
    }

    // MARK: the journal

    /// Every stored property set: a property added with a new shape of
    /// value shows whether it is written as the tree writes it.
    static let everyAppliedField: AppliedStream = {
        var stream = AppliedStream(serial: 7001, commandedGain: 0.25, commandedAt: 3.5, confirmed: false, held: true,
                                   ramp: GainRamp(from: 1, to: 0.2, start: 3.25, duration: 0.5), routedTo: 9)
        stream.heldFrom = 4
        stream.unlinkedSince = 3.75
        stream.suspendedAt = 4.125
        stream.rampRunsUntil = 4.5
        stream.rampLength = 0.2
        stream.landing = 1
        stream.overtaken = true
        stream.sentAgainEarly = true
        stream.reportsWhenCommanded = 12
        stream.startGate = .started
        return stream
    }()

    static let everySessionField = EngineMemory.SessionMemory(
        activeSince: 1.5, lastActive: 2, category: .playAndRecord, options: [.duckOthers, .mixWithOthers],
        mode: .spokenAudio, appName: "a \"quoted\" / app", interruption: .init(by: SessionKey("b:c"), resumable: true, waiting: true),
        ducked: 0.2)

    static let everyStreamField: EngineMemory.StreamMemory = {
        var stream = EngineMemory.StreamMemory(lastOutput: 3, lastOutputPrivate: true, lastOutputName: "headphones",
                                               routeLost: true, portPickedOn: "analog-output-headphones")
        stream.routeLostAt = 9.75
        return stream
    }()

    static var journal: AgentJournal {
        var journal = AgentJournalTests.sample
        journal.applied[12] = everyAppliedField
        journal.applied[13] = AppliedStream(serial: nil)
        for id in 100..<140 { journal.applied[UInt32(id)] = AppliedStream(serial: UInt64(id), commandedGain: 1e-7 * Double(id)) }
        journal.memory.sessions[SessionKey("z:every")] = everySessionField
        journal.memory.sessions[SessionKey("é:bare")] = .init(activeSince: 0, lastActive: 0)
        journal.memory.sessions[SessionKey("A:upper")] = .init(activeSince: 1e20, lastActive: -0.0)
        journal.memory.streams[12] = everyStreamField
        journal.memory.streams[13] = .init()
        return journal
    }

    @Test func theJournalIsWrittenAsTheTreeWritesIt() throws {
        let journal = Self.journal
        #expect(Self.streamed(journal) == (try Self.tree(journal)))
        #expect(try AgentJournal.decoded(from: journal.encoded()) == journal)
        #expect(Self.streamed(AgentJournal()) == (try Self.tree(AgentJournal())), "empty maps too")
    }

    @Test func theSamplesSetEveryStoredProperty() {
        for sample in [Self.everyAppliedField, Self.everySessionField, Self.everyStreamField, StatusSamples.everyField] as [Any] {
            for child in Mirror(reflecting: sample).children {
                if let optional = child.value as? OptionalProtocol {
                    #expect(optional.isSome, "\(type(of: sample)).\(child.label ?? "?") is nil in the sample")
                }
            }
        }
    }

    /// The types written for every stream before and after every reaction
    /// are declared in key order, so their text is written straight
    /// through: a property added out of order is put in order on every
    /// write (docs/PERFORMANCE.md, "Limits found").
    @Test func theTypesWrittenAtEveryReactionAreDeclaredInKeyOrder() {
        let values: [(String, any Encodable)] = [
            ("AppliedStream", Self.everyAppliedField), ("EngineMemory.SessionMemory", Self.everySessionField),
            ("EngineMemory.StreamMemory", Self.everyStreamField), ("StreamStatus", StatusSamples.everyField),
        ]
        for (name, value) in values {
            #expect(JSONTextEncoder.objectsPutInOrder(value) == 0, "\(name) (or a type in it) is not declared in key order")
        }
        #expect(JSONTextEncoder.objectsPutInOrder(Shapes(twice: true)) == 1, "members that came b, a are put in order")
    }

    // MARK: the statuses

    @Test(arguments: [StatusSamples.everyField, StatusSamples.fewestFields])
    func aStatusIsWrittenAsTheTreeWritesIt(_ status: StreamStatus) throws {
        #expect(StatusPublisher.json(status) == (try Self.tree(status, escapingSlashes: false)))
    }

    @Test func gainsAreWrittenAsJSONEncoderWritesThem() throws {
        for (gain, text) in [(0.0, "0"), (1, "1"), (0.2, "0.2"), (1e-7, "1e-07"), (0.30000000000000004, "0.30000000000000004"), (-0.0, "-0")] {
            var status = StatusSamples.fewestFields
            status.gain = gain
            #expect(StatusPublisher.json(status) == (try Self.tree(status, escapingSlashes: false)))
            #expect(StatusPublisher.json(status).contains(#""gain":\#(text),"#), "\(gain)")
        }
    }

    /// A number JSON cannot hold: the tree encoder says where.
    @Test func aNumberJSONCannotHoldIsLeftToTheTreeThatSaysWhere() {
        var journal = AgentJournal()
        journal.applied[1] = AppliedStream(serial: 1, commandedGain: .nan)
        #expect(JSONTextEncoder.text(journal, escapingSlashes: true) == nil)
        #expect(throws: EncodingError.self) { try JSONValueEncoder.text(journal) }
        var status = StatusSamples.fewestFields
        status.gain = .infinity
        #expect(StatusPublisher.json(status) == "null")
    }

    // MARK: shapes

    @Test func mapsKeyedByStringsAreWrittenInKeyOrder() throws {
        let map = ["b": [3, 1], "a/é": [], "B": [2], "é": [0], "": [9], "ab": [1, 2, 3]]
        #expect(Self.streamed(map) == (try Self.tree(map)))
        #expect(Self.streamed(map, escapingSlashes: false) == #"{"":[9],"B":[2],"a/é":[],"ab":[1,2,3],"b":[3,1],"é":[0]}"#)
        let nested = ["z": ["y": 1.5, "x": 2], "a": ["d": 0, "c": -1]]
        #expect(Self.streamed(nested) == (try Self.tree(nested)))
        let numbers: [Int: String] = [10: "ten", 9: "nine", 100: "hundred"]
        #expect(Self.streamed(numbers) == #"{"10":"ten","100":"hundred","9":"nine"}"#)
    }

    @Test func containersOfEveryKindAreWrittenAsTheTreeWritesThem() throws {
        let values: [Shapes] = [
            .init(), .init(nothing: true), .init(twice: true), .init(nested: true),
            .init(optionals: [nil, 1, nil], floats: [0.5, 1e-9], small: [-1, 127]),
        ]
        for value in values {
            #expect(Self.streamed(value) == (try Self.tree(value)), "\(value)")
        }
        #expect(Self.streamed(Shapes(nested: true)) == #"{"a":{"inner":[1,{"deep":true}],"last":"x"},"b":"after","c":[]}"#)
    }

    @Test func aSuperEncoderIsLeftToTheTree() throws {
        #expect(Self.streamed(WithSuper()) == nil)
        #expect(try JSONValueEncoder.text(WithSuper()) == Array(#"{"own":1,"super":{"base":true}}"#.utf8))
    }
}

/// Statuses with every field set and with the fewest.
enum StatusSamples {
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
}

/// A value that encodes itself in the ways Codable allows: nothing at all,
/// the same container asked for twice, nested containers its parent goes
/// on after, nulls among elements.
private struct Shapes: Encodable, CustomStringConvertible {
    var nothing = false
    var twice = false
    var nested = false
    var optionals: [Int?] = []
    var floats: [Float] = []
    var small: [Int8] = []

    enum Key: String, CodingKey { case a, b, c, inner, deep, last, optionals, floats, small }

    func encode(to encoder: any Encoder) throws {
        if nothing { return }
        var container = encoder.container(keyedBy: Key.self)
        if twice {
            try container.encode("first", forKey: .b)
            var again = encoder.container(keyedBy: Key.self)
            try again.encode("second", forKey: .a)
            return
        }
        if nested {
            var a = container.nestedContainer(keyedBy: Key.self, forKey: .a)
            try a.encode("x", forKey: .last)
            var inner = a.nestedUnkeyedContainer(forKey: .inner)
            try inner.encode(1)
            var deep = inner.nestedContainer(keyedBy: Key.self)
            try deep.encode(true, forKey: .deep)
            try container.encode("after", forKey: .b)
            _ = container.nestedUnkeyedContainer(forKey: .c)
            return
        }
        try container.encode(optionals, forKey: .optionals)
        try container.encode(floats, forKey: .floats)
        try container.encode(small, forKey: .small)
    }

    var description: String { "nothing \(nothing), twice \(twice), nested \(nested), \(optionals)" }
}

private struct WithSuper: Encodable {
    enum Key: String, CodingKey { case own, base }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(1, forKey: .own)
        var base = container.superEncoder().container(keyedBy: Key.self)
        try base.encode(true, forKey: .base)
    }
}

private protocol OptionalProtocol { var isSome: Bool { get } }
extension Optional: OptionalProtocol { var isSome: Bool { self != nil } }
