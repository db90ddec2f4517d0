import Foundation

/// Everything one run measured at one number of background streams.
struct SizeResult {
    var streams: Int
    var duck: [DuckSample] = []
    var hold: [HoldSample] = []
    var agent: ProcessSample?
    var wirePlumber: ProcessSample?
    var harm: HarmResult?
}

struct IdleResult {
    var streams: Int
    var seconds: Double
    var agentCPU: Double
    var agentWakeups: Int
    var wirePlumberCPU: Double
    var wirePlumberWakeups: Int
}

/// The markdown tables `bench/run` prints.
enum Report {
    static func milliseconds(_ seconds: Double) -> String {
        let ms = seconds * 1000
        return ms < 10 ? String(format: "%.2f", ms) : String(format: "%.1f", ms)
    }

    static func ratio(_ ours: Double, _ theirs: Double) -> String {
        theirs > 0 ? String(format: "%.2f", ours / theirs) : "–"
    }

    static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }

    /// One measure's row: its events and percentiles in milliseconds.
    static func percentileRow(streams: Int, what: String, _ values: Percentiles) -> String {
        row(["\(streams)", what, "\(values.count)", milliseconds(values.p50), milliseconds(values.p95),
             milliseconds(values.p99), milliseconds(values.max)])
    }

    /// The ratio row of two measures, percentile by percentile.
    static func ratioRow(streams: Int, what: String, _ ours: Percentiles, _ theirs: Percentiles) -> String {
        row(["\(streams)", what, "", ratio(ours.p50, theirs.p50), ratio(ours.p95, theirs.p95),
             ratio(ours.p99, theirs.p99), ratio(ours.max, theirs.max)])
    }

    static func latencyRows(streams: Int, what: String, ours: Percentiles?, theirs: Percentiles?) -> [String] {
        var rows: [String] = []
        if let ours { rows.append(percentileRow(streams: streams, what: "\(what): pw-policy", ours)) }
        if let theirs { rows.append(percentileRow(streams: streams, what: "\(what): WirePlumber", theirs)) }
        if let ours, let theirs {
            rows.append(ratioRow(streams: streams, what: "\(what): **ratio pw-policy / WirePlumber**", ours, theirs))
        }
        return rows
    }

    /// WirePlumber's link latency for a new stream with the agent and without
    /// it, and their ratio: the harm the agent does to WirePlumber.
    static func harmRows(streams: Int, harm: HarmResult) -> [String] {
        let with = Percentiles(harm.withAgent.map(\.wirePlumber))
        let without = Percentiles(harm.withoutAgent.map(\.wirePlumber))
        var rows: [String] = []
        for (what, values) in [("harm: WirePlumber links a new stream, with pw-policy", with),
                               ("harm: WirePlumber links a new stream, without pw-policy", without)] {
            guard let values else { continue }
            rows.append(percentileRow(streams: streams, what: what, values))
        }
        if let with, let without {
            rows.append(ratioRow(streams: streams, what: "harm: **ratio with / without pw-policy**", with, without))
        }
        return rows
    }

    static func harmNote(streams: Int, harm: HarmResult) -> String {
        let events = harm.withAgent.count
        let unlinkedWith = harm.withAgent.filter { $0.wirePlumber == nil }.count
        let unlinkedWithout = harm.withoutAgent.filter { $0.wirePlumber == nil }.count
        let ducked = harm.withAgent.filter(\.fullyDucked).count
        return "* \(streams) streams, harm: \(events) events with pw-policy and \(harm.withoutAgent.count) without; "
            + "new stream not linked within \(Int(HarmRun.linkTimeout)) s: \(unlinkedWith) with, \(unlinkedWithout) without; "
            + "every background stream at the duck level when the ducking stream stopped: \(ducked) of \(events)."
    }

    /// The order the daemon removed things in when the sink went: the
    /// stream's link (WirePlumber relinks on it) and then the sink's ports
    /// (the agent holds on them), split by whether the relink won the race.
    static func holdOrderNote(streams: Int, holds: [HoldSample]) -> String {
        func gap(_ samples: [HoldSample]) -> String {
            guard let gaps = Percentiles(samples.map(\.portsAfterLink)) else { return "–" }
            return "\(milliseconds(gaps.p50)) ms p50, \(milliseconds(gaps.max)) max over \(gaps.count)"
        }
        return "* \(streams) streams, hold: the sink's first port went after the stream's link by "
            + "\(gap(holds.filter(\.leaked))) where WirePlumber's relink went active first, "
            + "\(gap(holds.filter { !$0.leaked })) where the gain was 0 first."
    }

    /// Where the harm comes from: WirePlumber's CPU before the probe (the
    /// duck it was still working through) and during its link, the agent's
    /// own CPU during the link (what it takes from WirePlumber on two CPUs)
    /// and the agent's updates it met meanwhile (p50 of the events, with / without).
    static func harmCauseNote(streams: Int, harm: HarmResult) -> String {
        func median(_ samples: [HarmSample], _ value: (HarmSample) -> Double?) -> String {
            Percentiles(samples.map(value)).map { milliseconds($0.p50) } ?? "–"
        }
        let updates = Percentiles(harm.withAgent.map { Double($0.backgroundUpdatesDuringLink) })
        return "* \(streams) streams, harm, p50 with / without pw-policy: WirePlumber's CPU from the ducking stream's start "
            + "to the new stream's \(median(harm.withAgent, \.wirePlumberCPUBeforeProbe)) / "
            + "\(median(harm.withoutAgent, \.wirePlumberCPUBeforeProbe)) ms, while it waited for its link "
            + "\(median(harm.withAgent, \.wirePlumberCPUDuringLink)) / \(median(harm.withoutAgent, \.wirePlumberCPUDuringLink)) ms; "
            + "pw-policy's own CPU while it waited \(median(harm.withAgent, \.agentCPUDuringLink)) ms; "
            + "background streams' Props changes while it waited: \(updates.map { String(Int($0.p50)) } ?? "–") "
            + "(max \(updates.map { String(Int($0.max)) } ?? "–"))."
    }

    static func render(sizes: [SizeResult], idle: IdleResult?, meters: MeterResult? = nil, storm: BusStormResult? = nil,
                       startups: [StartupResult]) -> String {
        var lines: [String] = []
        lines.append("### Reaction latency, seen by an independent observer client (ms)")
        lines.append("")
        lines.append("* duck — pw-policy: a `duck-others` stream's node goes running → the first other stream's Props `volume` changes;")
        lines.append("  WirePlumber: the same stream's node appears → WirePlumber's link for it appears.")
        lines.append("* hold — pw-policy: a headphones sink's global is removed → the stream that played on it is at gain 0;")
        lines.append("  WirePlumber: the same removal → WirePlumber links the stream to the speakers.")
        lines.append("* harm — a `duck-others` stream ducks the background and stops; one debounce later, as the fades up start,")
        lines.append("  a plain stream starts: its node appears → WirePlumber's link for it appears, with pw-policy running and")
        lines.append("  without it (same sandbox, same streams, same waits). The ratio is the slowdown the agent causes WirePlumber.")
        lines.append("")
        lines.append(row(["streams", "measure", "events", "p50", "p95", "p99", "max"]))
        lines.append(row(["---:", "---", "---:", "---:", "---:", "---:", "---:"]))
        for size in sizes {
            lines += latencyRows(streams: size.streams, what: "duck", ours: Percentiles(size.duck.map(\.ours)),
                                 theirs: Percentiles(size.duck.map(\.wirePlumber)))
            let duckMeasures: [(String, KeyPath<DuckSample, Double?>)] = [
                ("duck: running → every other stream ducking", \.spread),
                ("duck: running → the ducker audible (its first loud block, at the observer's own meter)", \.toAudible),
                ("duck: audible → first duck step (pw-policy's part)", \.afterAudible),
                ("duck: node appears → first duck step (includes WirePlumber linking)", \.endToEnd),
            ]
            for (what, measure) in duckMeasures {
                guard let values = Percentiles(size.duck.map { $0[keyPath: measure] }) else { continue }
                lines.append(percentileRow(streams: size.streams, what: what, values))
            }
            lines += latencyRows(streams: size.streams, what: "hold", ours: Percentiles(size.hold.map(\.ours)),
                                 theirs: Percentiles(size.hold.map(\.wirePlumber)))
            if let unlinked = Percentiles(size.hold.map(\.unlinkedAfter)) {
                lines.append(percentileRow(streams: size.streams, what: "hold: sink removed → WirePlumber's new link destroyed", unlinked))
            }
            if let harm = size.harm { lines += harmRows(streams: size.streams, harm: harm) }
        }
        lines.append("")
        let missing = sizes.map { size in
            (size.streams, size.duck.filter { $0.ours == nil || $0.wirePlumber == nil }.count,
             size.hold.filter { $0.ours == nil }.count, size.hold.filter(\.leaked).count, size.hold.count)
        }
        for (streams, duckMissing, holdMissing, leaked, holds) in missing {
            lines.append("* \(streams) streams: \(duckMissing) duck events and \(holdMissing) hold events incomplete; "
                         + "WirePlumber's relink went active before the gain was 0 in \(leaked) of \(holds) holds.")
        }
        for size in sizes where !size.hold.isEmpty {
            lines.append(holdOrderNote(streams: size.streams, holds: size.hold))
        }
        for size in sizes {
            guard let harm = size.harm else { continue }
            lines.append(harmNote(streams: size.streams, harm: harm))
            lines.append(harmCauseNote(streams: size.streams, harm: harm))
        }
        lines.append("")
        lines.append("### Memory (VmRSS, MiB) after the events above")
        lines.append("")
        lines.append(row(["streams", "pw-policy", "WirePlumber"]))
        lines.append(row(["---:", "---:", "---:"]))
        for size in sizes {
            lines.append(row(["\(size.streams)", size.agent.map { String(format: "%.1f", Double($0.rssKiB) / 1024) } ?? "–",
                              size.wirePlumber.map { String(format: "%.1f", Double($0.rssKiB) / 1024) } ?? "–"]))
        }
        if let idle {
            lines.append("")
            lines.append("### Idle: \(Int(idle.seconds)) s with \(idle.streams) streams playing and nothing changing")
            lines.append("")
            lines.append(row(["process", "CPU time (ms)", "context switches"]))
            lines.append(row(["---", "---:", "---:"]))
            lines.append(row(["pw-policy", String(format: "%.0f", idle.agentCPU * 1000), "\(idle.agentWakeups)"]))
            lines.append(row(["WirePlumber", String(format: "%.0f", idle.wirePlumberCPU * 1000), "\(idle.wirePlumberWakeups)"]))
        }
        if let meters {
            lines.append("")
            lines.append("### Meters: \(Int(meters.seconds)) s with \(meters.streams) streams playing, per case")
            lines.append("")
            lines.append(row(["case", "pw-policy CPU (ms)", "pw-policy context switches (all threads)",
                              "WirePlumber CPU (ms)", "PipeWire CPU (ms)", "background Props updates"]))
            lines.append(row(["---", "---:", "---:", "---:", "---:", "---:"]))
            for window in meters.windows {
                lines.append(row([window.label, String(format: "%.0f", window.agentCPU * 1000), "\(window.agentWakeups)",
                                  String(format: "%.0f", window.wirePlumberCPU * 1000),
                                  String(format: "%.0f", window.pipeWireCPU * 1000), "\(window.propsUpdates)"]))
            }
        }
        if let storm {
            lines.append("")
            lines.append("### A player flooding the session bus: \(Int(storm.seconds)) s from the flood's start, \(storm.streams) streams playing")
            lines.append("")
            lines.append(row(["flood (50 PropertiesChanged every 10 ms)", "signals sent", "pw-policy CPU (ms)",
                              "pw-policy context switches", "flooder CPU (ms)", "dbus-daemon CPU (ms)",
                              "duck reaction p50 / p95 (ms)"]))
            lines.append(row(["---", "---:", "---:", "---:", "---:", "---:", "---:"]))
            func reaction(_ percentiles: Percentiles?) -> String {
                percentiles.map { "\(milliseconds($0.p50)) / \(milliseconds($0.p95))" } ?? "—"
            }
            lines.append(row(["none", "0", "—", "—", "—", "—", reaction(storm.quietDuck)]))
            for window in storm.windows {
                lines.append(row([window.label, "\(window.signalsSent)", String(format: "%.0f", window.agentCPU * 1000),
                                  "\(window.agentWakeups)", String(format: "%.0f", window.flooderCPU * 1000),
                                  String(format: "%.0f", window.busCPU * 1000), reaction(window.duck)]))
            }
        }
        if let streams = startups.first?.streams {
            lines.append("")
            lines.append("### Start-up with \(streams) streams playing and one ducking stream (ms from spawning `pw-policy run`)")
            lines.append("")
            lines.append(row(["run", "status published", "first gain change", "all \(streams) at the duck level (converged)",
                              "every stream's status published"]))
            lines.append(row(["---:", "---:", "---:", "---:", "---:"]))
            func show(_ value: Double?) -> String { value.map(milliseconds) ?? "not reached" }
            for (run, startup) in startups.enumerated() {
                lines.append(row(["\(run + 1)", show(startup.connected), show(startup.firstChange), show(startup.converged),
                                  show(startup.published)]))
            }
        }
        return lines.joined(separator: "\n")
    }
}
