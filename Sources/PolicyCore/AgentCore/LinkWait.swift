/// The streams WirePlumber has yet to link: new streams with no link yet.
/// While one waits, raises wait too (ReconcilePlanner): WirePlumber works
/// through a Props update of ours — 1–3 ms of its CPU each beside 100
/// streams — before it gets to linking, so a fade up of many streams slows
/// down exactly the stream that just started (docs/PERFORMANCE.md, "Raises
/// wait for WirePlumber's links"). Nobody waits for a fade up; everybody
/// waits for a new stream to play.
///
/// Only a stream that has never been linked counts: one that lost its links
/// (WirePlumber restarted, its output went away) is either relinked at once
/// or stays unlinked for good. A stream that asks not to be linked
/// (`node.autoconnect = false`, JACK clients' default) or that we hold does
/// not count, and none counts for longer than `longest`: a stream WirePlumber
/// never links must not keep the others ducked.
public struct LinkWait: Sendable, Equatable {
    /// Since when each stream (by `object.serial`) has waited for its first link.
    public private(set) var waiting: [UInt64: Double] = [:]
    /// Streams seen linked, or that waited `longest` already: they count no more.
    private var settled: Set<UInt64> = []
    /// Until when raises wait: nil when no stream waits.
    public private(set) var raisesWait: Double?

    public init() {}

    /// Brought up to date with the graph at `now`: streams that appeared
    /// unlinked start waiting, linked ones and those gone are forgotten.
    public func observed(_ graph: Graph, applied: [UInt32: AppliedStream], now: Double, longest: Double) -> LinkWait {
        var linked = Set<UInt32>()
        // A link to one of the agent's own meters is not WirePlumber's.
        for link in graph.links.values where graph.nodes[link.inputNode]?.isAgentsOwn != true {
            linked.insert(link.outputNode)
            linked.insert(link.inputNode)
        }
        var next = LinkWait()
        for node in graph.nodes.values where node.streamDirection != nil && !node.isAgentsOwn {
            guard let serial = node.serial else { continue }
            if settled.contains(serial) || linked.contains(node.id) || node.props["node.autoconnect"] == "false"
                || applied[node.id]?.held == true {
                next.settled.insert(serial)
                continue
            }
            let since = waiting[serial] ?? now
            if now - since < longest { next.waiting[serial] = since } else { next.settled.insert(serial) }
        }
        next.raisesWait = next.waiting.values.max().map { $0 + longest }
        return next
    }
}
