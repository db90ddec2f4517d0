/// The journal's text, with the three maps that grow with the streams —
/// what the agent changed on each stream, each session's and each stream's
/// engine memory — written by hand, and the rest through Codable. The journal
/// is written before the gains of every reaction (journal before acting);
/// at 500 streams the generic encoder took 15–30 ms of it (docs/PERFORMANCE.md,
/// "Limits found"). The text is the one `JSONValueEncoder.text` writes for
/// the whole journal (JournalTextTests compare them): keys sorted, optionals
/// left out when nil, a map keyed by a number as `[key, value, …]` in the
/// map's order, sets in theirs.
enum JournalText {
    static func encode(_ journal: AgentJournal) throws -> [UInt8] {
        var rest = journal
        rest.applied = [:]
        rest.memory.sessions = [:]
        rest.memory.streams = [:]
        let skeleton = try JSONValueEncoder.text(rest)
        // The emptied maps, in the order sorted keys put them; a string value
        // cannot contain them, its quotes are escaped.
        var failed = false
        let holes: [(text: String, fill: (inout [UInt8]) -> Void)] = [
            (#""applied":[]"#, { writeMap(journal.applied, to: &$0, failed: &failed, entry: writeApplied) }),
            (#""memory":{"#, { _ in }),
            (#""sessions":{}"#, { writeSessions(journal.memory.sessions, to: &$0, failed: &failed) }),
            (#""streams":[]"#, { writeMap(journal.memory.streams, to: &$0, failed: &failed, entry: writeStreamMemory) }),
        ]
        var output: [UInt8] = []
        output.reserveCapacity(skeleton.count + 200 * (journal.applied.count + 2 * journal.memory.sessions.count))
        var position = skeleton.startIndex
        for hole in holes {
            let pattern = Array(hole.text.utf8)
            guard let found = firstIndex(of: pattern, in: skeleton, from: position) else {
                return try JSONValueEncoder.text(journal)  // not where expected: the generic way
            }
            let keyEnd = found + pattern.count - (pattern.last == UInt8(ascii: "{") ? 0 : 2)
            output.append(contentsOf: skeleton[position..<keyEnd])
            hole.fill(&output)
            position = found + pattern.count
        }
        output.append(contentsOf: skeleton[position...])
        return failed ? try JSONValueEncoder.text(journal) : output
    }

    private static func firstIndex(of pattern: [UInt8], in text: [UInt8], from start: Int) -> Int? {
        guard pattern.count <= text.count else { return nil }
        var index = start
        while index + pattern.count <= text.count {
            if text[index] == pattern[0], text[index..<index + pattern.count].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }

    // MARK: maps

    /// A map keyed by a number, as Codable writes it: `[key, value, …]`.
    private static func writeMap<Value>(_ map: [UInt32: Value], to output: inout [UInt8], failed: inout Bool,
                                        entry: (Value, inout JSONMembers) -> Void) {
        output.append(UInt8(ascii: "["))
        var first = true
        for (key, value) in map {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            output.append(contentsOf: String(key).utf8)
            output.append(UInt8(ascii: ","))
            let complete = JSONMembers.write(into: &output, escapingSlashes: true) { entry(value, &$0) }
            failed = failed || !complete
        }
        output.append(UInt8(ascii: "]"))
    }

    /// Sessions are keyed by their name: an object.
    private static func writeSessions(_ sessions: [SessionKey: EngineMemory.SessionMemory], to output: inout [UInt8],
                                      failed: inout Bool) {
        JSONValue.writeObject(sessions, name: \.rawValue, to: &output, escapingSlashes: true) { session, output in
            let complete = JSONMembers.write(into: &output, escapingSlashes: true) { writeSession(session, to: &$0) }
            failed = failed || !complete
        }
    }

    // MARK: entries (every stored property; JournalTextTests check they are all here)

    private static func writeApplied(_ stream: AppliedStream, to members: inout JSONMembers) {
        members.number("commandedAt", stream.commandedAt)
        members.number("commandedGain", stream.commandedGain)
        members.bool("confirmed", stream.confirmed)
        members.bool("held", stream.held)
        members.integer("heldFrom", stream.heldFrom)
        members.number("landing", stream.landing)
        members.bool("overtaken", stream.overtaken)
        if let ramp = stream.ramp {
            members.object("ramp") { nested in
                nested.number("duration", ramp.duration)
                nested.number("from", ramp.from)
                nested.number("start", ramp.start)
                nested.number("to", ramp.to)
            }
        }
        members.number("rampLength", stream.rampLength)
        members.number("rampRunsUntil", stream.rampRunsUntil)
        members.integer("reportsWhenCommanded", stream.reportsWhenCommanded)
        members.integer("routedTo", stream.routedTo)
        members.bool("sentAgainEarly", stream.sentAgainEarly)
        members.integer("serial", stream.serial)
        members.string("startGate", stream.startGate?.rawValue)
        members.number("suspendedAt", stream.suspendedAt)
        members.number("unlinkedSince", stream.unlinkedSince)
    }

    private static func writeSession(_ session: EngineMemory.SessionMemory, to members: inout JSONMembers) {
        members.number("activeSince", session.activeSince)
        members.string("appName", session.appName)
        members.string("category", session.category.rawValue)
        members.number("ducked", session.ducked)
        if let interruption = session.interruption {
            members.object("interruption") { nested in
                nested.object("by") { $0.string("rawValue", interruption.by.rawValue) }
                nested.bool("resumable", interruption.resumable)
                nested.bool("waiting", interruption.waiting)
            }
        }
        members.number("lastActive", session.lastActive)
        members.string("mode", session.mode.rawValue)
        members.strings("options", session.options.map(\.rawValue))
    }

    private static func writeStreamMemory(_ stream: EngineMemory.StreamMemory, to members: inout JSONMembers) {
        members.integer("lastOutput", stream.lastOutput)
        members.string("lastOutputName", stream.lastOutputName)
        members.bool("lastOutputPrivate", stream.lastOutputPrivate)
        members.string("portPickedOn", stream.portPickedOn)
        members.bool("routeLost", stream.routeLost)
        members.number("routeLostAt", stream.routeLostAt)
    }
}
