import Foundation
import PolicyCore

/// Turns successive views of the `pw-policy` metadata into the events
/// `monitor` prints. The agent overwrites one key per event, so each change
/// of that key's `seq` is a new event; the agent appearing and going away
/// are reported too (types `agent-started` and `agent-stopped`, made up by
/// the CLI, with seq 0). Events overwritten before the CLI read the key show
/// up as a gap in `seq`, reported as `events-missed`.
public struct EventFeed: Sendable {
    private var lastSeq: UInt64?
    private var wasRunning: Bool

    /// `initial` is the metadata when monitoring starts: its event is old news.
    public init(initial metadata: Graph.Metadata?) {
        wasRunning = metadata != nil
        lastSeq = metadata.flatMap(Self.record(in:))?.seq
    }

    /// The events that happened since the previous call.
    public mutating func update(_ metadata: Graph.Metadata?) -> [EventRecord] {
        var events: [EventRecord] = []
        let running = metadata != nil
        if running != wasRunning {
            wasRunning = running
            events.append(running
                ? EventRecord(seq: 0, type: .agentStarted, text: "the agent started")
                : EventRecord(seq: 0, type: .agentStopped, text: "the agent stopped; waiting for it to come back"))
            if !running { lastSeq = nil }
        }
        if let record = metadata.flatMap(Self.record(in:)), record.seq != lastSeq {
            if let lastSeq, record.seq > lastSeq + 1 {
                let missed = record.seq - lastSeq - 1
                events.append(EventRecord(seq: 0, type: .eventsMissed,
                                          text: "\(missed) event\(missed == 1 ? "" : "s") came too fast to show; the agent's log has them"))
            }
            lastSeq = record.seq
            events.append(record)
        }
        return events
    }

    static func record(in metadata: Graph.Metadata) -> EventRecord? {
        guard let value = metadata.value(subject: 0, key: AgentProtocol.eventKey) else { return nil }
        return try? JSONDecoder().decode(EventRecord.self, from: Data(value.utf8))
    }
}

/// How `monitor` prints one event.
public enum EventRenderer {
    /// `12:03:04  duck-began          "Spotify" ducked to 0.20 by "Maps"`.
    public static func text(_ event: EventRecord, time: String, style: TextStyle = .plain) -> String {
        let type = StatusRenderer.pad(event.type.rawValue, 18)
        return "\(style.dim(time))  \(color(for: event.type, style: style)(type))  \(event.text)"
    }

    /// One line of JSON: `{"id": seq, "type": "PwPolicy:Event", "info": {…EventRecord, "time": …}}`.
    public static func json(_ event: EventRecord, time: String) -> String {
        CLIJSON.line(CLIJSON.Entry(id: UInt32(truncatingIfNeeded: event.seq), type: CLIJSON.eventType,
                                   info: TimedEvent(event: event, time: time)))
    }

    static func color(for type: EventType, style: TextStyle) -> (String) -> String {
        switch type.tone {
        case .stopped: style.red
        case .quieter: style.yellow
        case .silenced: style.magenta
        case .back: style.green
        case .news: style.cyan
        }
    }

    /// `HH:MM:SS` local time.
    public static func clockTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// ISO 8601 with milliseconds, for JSON.
    public static func isoTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

struct TimedEvent: Encodable {
    var event: EventRecord
    var time: String

    enum Keys: String, CodingKey { case time }

    func encode(to encoder: Encoder) throws {
        try event.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(time, forKey: .time)
    }
}
