import Testing
@testable import PolicyCore

/// The journal's hand-written maps (JournalText) write exactly what the
/// generic encoder writes for the whole journal.
@Suite struct JournalTextTests {
    /// Every stored property set, so that a property added to one of the
    /// hand-written types shows up as a difference until it is written.
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

    @Test func writesWhatTheGenericEncoderWrites() throws {
        let journal = Self.journal
        let ours = try JournalText.encode(journal)
        let generic = try JSONValueEncoder.text(journal)
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: generic, as: UTF8.self))
        #expect(try AgentJournal.decoded(from: ours) == journal)
        #expect(try JournalText.encode(AgentJournal()) == JSONValueEncoder.text(AgentJournal()), "empty maps too")
    }

    @Test func theSamplesSetEveryStoredProperty() {
        for sample in [Self.everyAppliedField, Self.everySessionField, Self.everyStreamField] as [Any] {
            for child in Mirror(reflecting: sample).children {
                if let optional = child.value as? OptionalProtocol {
                    #expect(optional.isSome, "\(type(of: sample)).\(child.label ?? "?") is nil in the sample")
                }
            }
        }
    }

    @Test func aValueJSONCannotHoldIsLeftToTheGenericEncoder() throws {
        var journal = AgentJournal()
        journal.applied[1] = AppliedStream(serial: 1, commandedGain: .nan)
        let generic = try? JSONValueEncoder.text(journal)
        let ours = try? JournalText.encode(journal)
        #expect(ours == generic)
    }
}

private protocol OptionalProtocol { var isSome: Bool { get } }
extension Optional: OptionalProtocol { var isSome: Bool { self != nil } }
