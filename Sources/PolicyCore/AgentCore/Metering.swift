/// Which streams the agent meters, and what the engine is told of them
/// (docs/POLICY.md, "Ducking while audible"): the playback streams of
/// sessions that duck others (`duck-others`, `interrupt-spoken-audio`), so
/// that they count as playing only while they carry sound. Few streams duck
/// others, and a meter is a capture stream of its own, which costs the
/// daemon and the agent a little on every graph cycle while it runs.
public enum Metering {
    static let duckingOptions: Set<PolicyOption> = [.duckOthers, .interruptSpokenAudio]

    /// The streams to meter now, by node id, with their serials (a meter
    /// targets the serial: node ids are reused). Not those `held`: a hold
    /// unlinks a stream from everything, its meter too, and a stream
    /// released is metered anew.
    public static func wanted(_ classified: [UInt32: ClassifiedStream], graph: Graph, settings: Settings,
                              held: [UInt32: HoldReason.Kind] = [:]) -> [UInt32: UInt64] {
        guard settings.duckWhileAudible else { return [:] }
        var wanted: [UInt32: UInt64] = [:]
        for (id, stream) in classified where stream.facts.direction == .playback && held[id] == nil {
            let classification = stream.classification
            guard !classification.exempt, classification.category != .audioProcessing,
                  !classification.options.isDisjoint(with: duckingOptions),
                  let serial = graph.nodes[id]?.serial else { continue }
            wanted[id] = serial
        }
        return wanted
    }

    /// The engine's view: a metered stream is what its meter measured,
    /// unmeasured while the meter starts; a stream not metered, or whose
    /// meter failed, has none (its node state says whether it plays).
    public static func audibility(of wanted: [UInt32: UInt64], meters: MeterReadings) -> [UInt32: Audibility] {
        var audibility: [UInt32: Audibility] = [:]
        for id in wanted.keys where !meters.failed.contains(id) {
            audibility[id] = meters.readings[id] ?? .unmeasured
        }
        return audibility
    }
}

/// The meters on the streams that duck others (Metering).
public struct MeterReadings: Sendable, Equatable {
    /// What each meter measured, by the metered stream's node id.
    public var readings: [UInt32: Audibility]
    /// Streams whose meter could not be made or failed: judged by node state.
    public var failed: Set<UInt32>
    public init(readings: [UInt32: Audibility] = [:], failed: Set<UInt32> = []) {
        self.readings = readings; self.failed = failed
    }
}
