import Testing
@testable import PolicyCore
import PolicyTestSupport

/// A meter's peaks turned into audibility (docs/POLICY.md, "Ducking while
/// audible"), and which streams the agent meters.
@Suite struct AudibilityMeterTests {
    @Test func onlyChangesAreReported() {
        var meter = AudibilityMeter()
        #expect(meter.audibility == .unmeasured)
        // (peak, time, changed, audibility after)
        let blocks: [(Float, Double, Bool, Audibility)] = [
            (0, 0.00, true, .notYetAudible),
            (0.0009, 0.02, false, .notYetAudible),
            (0.3, 0.04, true, .audible),
            (0.2, 0.06, false, .audible),
            (0, 0.08, true, .quiet(since: 0.06)),
            (0, 0.10, false, .quiet(since: 0.06)),
            (0.001, 0.12, true, .audible),
        ]
        for (peak, time, changed, after) in blocks {
            #expect(meter.measure(peak: peak, at: time) == changed, "peak \(peak) at \(time)")
            #expect(meter.audibility == after, "peak \(peak) at \(time)")
        }
    }

    /// What the agent's meters keep on the data thread is enough: the
    /// audibility follows from whether a block came, whether the latest
    /// was loud and when the latest loud one was.
    @Test func theBlocksTellTheAudibility() {
        typealias Blocks = AudibilityMeter.Blocks
        let cases: [(Blocks, Audibility)] = [
            (Blocks(), .unmeasured),
            (Blocks(measured: true), .notYetAudible),
            (Blocks(measured: true, latestLoud: true, lastLoud: 4), .audible),
            (Blocks(measured: true, latestLoud: false, lastLoud: 4), .quiet(since: 4)),
        ]
        for (blocks, audibility) in cases { #expect(blocks.audibility == audibility, "\(blocks)") }
        var meter = AudibilityMeter()
        _ = meter.measure(peak: 0.5, at: 1)
        _ = meter.measure(peak: 0, at: 2)
        #expect(meter.blocks == Blocks(measured: true, latestLoud: false, lastLoud: 1))
    }

    @Test func theStreamsThatDuckOthersAreMetered() {
        var graph = Graph()
        for id: UInt32 in 10...14 { graph.addStream(id) }
        graph.addStream(15, direction: .capture)
        let classified: [UInt32: ClassifiedStream] = [
            10: testClassified(10, options: [.duckOthers]),
            11: testClassified(11, options: [.interruptSpokenAudio]),
            12: testClassified(12),
            13: testClassified(13, exempt: true, options: [.duckOthers]),
            14: testClassified(14, category: .audioProcessing, options: [.duckOthers]),
            15: testClassified(15, category: .playAndRecord, direction: .capture, options: [.duckOthers]),
        ]
        var settings = DefaultPolicyConfig.config.settings
        #expect(Set(Metering.wanted(classified, graph: graph, settings: settings).keys) == [10, 11])
        #expect(Metering.wanted(classified, graph: graph, settings: settings)[10] == graph.nodes[10]?.serial)
        #expect(Set(Metering.wanted(classified, graph: graph, settings: settings, held: [10: .interrupted]).keys) == [11],
                "a held stream is unlinked from its meter too")
        settings.duckWhileAudible = false
        #expect(Metering.wanted(classified, graph: graph, settings: settings).isEmpty)
    }

    @Test func aMeterThatFailedLeavesItsStreamToItsNodeState() {
        let wanted: [UInt32: UInt64] = [10: 1, 11: 2, 12: 3]
        let meters = AgentCore.Meters(readings: [10: .audible], failed: [12])
        #expect(Metering.audibility(of: wanted, meters: meters) == [10: .audible, 11: .unmeasured])
    }
}
