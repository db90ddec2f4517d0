import CPipeWire
import PolicyCore
import PolicyFiles

/// Peak meters on the streams the core asks to meter (the few that duck
/// others; docs/POLICY.md, "Ducking while audible"). Each is a node of the
/// agent's own (`MeterNode`) with one input port, which the agent links
/// from the stream's output ports itself, passively, beside the stream's
/// link to its sink: it reads exactly what the stream plays, after its
/// volumes. The node has no `media.class`, so WirePlumber makes nothing of
/// it: no session item, no rescan, no link to wait for. Meters are kept and
/// given to the next stream (`MeterPool`); the links are the core's
/// `MeterLinks`. The nodes are on the agent's connection of its own thread
/// (`ThreadConnection`), so that the daemon starts them with the stream
/// while the agent's loop reconciles; the links are made on that thread
/// too, as the stream's ports appear (`MeterLinker`). `onChange` is called
/// when a stream's audibility changes, and when a meter's node appeared
/// (it can be given its stream).
public final class StreamMeters {
    private let mirror: GraphMirror
    /// Where the meters' nodes are; nil when it could not be made (then no
    /// stream can be metered, and each is judged by its node's state).
    private let thread: ThreadConnection?
    /// Links the meters on that thread.
    private let linker: MeterLinker?
    private let onChange: () -> Void
    private var pool = MeterPool()
    private var nodes: [Int: MeterNode] = [:]
    /// Streams whose meter could not be made or failed: judged by node state.
    private(set) var failed: Set<UInt32> = []
    /// What was last reported of each metered stream.
    private var reported: [UInt32: Audibility] = [:]

    public init(mirror: GraphMirror, thread: ThreadConnection?, onChange: @escaping () -> Void) {
        self.mirror = mirror
        self.thread = thread
        linker = thread.map(MeterLinker.init)
        self.onChange = onChange
    }

    /// The nodes go before the thread's connection they are on.
    deinit { nodes = [:] }

    /// What the meters measured, for the core.
    public var readings: AgentCore.Meters {
        AgentCore.Meters(readings: audibilities(), failed: failed)
    }

    private func audibilities() -> [UInt32: Audibility] {
        var readings: [UInt32: Audibility] = [:]
        for (stream, number) in pool.streams where !failed.contains(stream) {
            readings[stream] = nodes[number]?.blocks.audibility ?? .unmeasured
        }
        return readings
    }

    /// When `stream`'s meter heard its first loud block (monotonic seconds,
    /// as `MonotonicClock.now`), if it did: the benchmark's independent
    /// "the ducker became audible" (docs/PERFORMANCE.md).
    public func firstLoud(of stream: UInt32) -> Double? {
        guard !failed.contains(stream), let number = pool.streams[stream] else { return nil }
        return nodes[number]?.firstLoud
    }

    /// Meters exactly these streams (node id → serial): each gets a meter,
    /// meters no longer needed are kept for the next ones.
    public func meter(_ streams: [UInt32: UInt64]) {
        failed.formIntersection(streams.keys)
        let graph = mirror.graph
        let linked = Set(nodes.compactMap { number, node in node.nodeID.map { graph.links(to: $0).isEmpty ? nil : number } ?? nil })
        let changes = pool.assign(Set(streams.keys).subtracting(failed), linked: linked)
        for number in changes.retire { nodes[number] = nil }
        for number in changes.make {
            guard let thread, thread.canExportNodes(),
                  let node = MeterNode(thread: thread, loop: mirror.connection.loop, number: number,
                                       onChange: { [unowned self] in self.meterChanged() })
            else {
                if let stream = changes.restart[number] { failed.insert(stream) }
                pool.retire(number)
                continue
            }
            nodes[number] = node
        }
        for (number, _) in changes.restart { nodes[number]?.restart() }
        reported = reported.filter { streams[$0.key] != nil }
        relink()
    }

    /// Tells the linker which stream each meter is on, and judges by node
    /// state the streams whose link to their meter failed: run when the
    /// meters' nodes or streams changed, and on every reconcile (a link
    /// that failed shows in the agent's graph, not in the thread's).
    public func relink() {
        guard let linker, !nodes.isEmpty else { return }
        var meters: [UInt32: UInt32?] = [:]
        var streamOfMeter: [Int: UInt32] = [:]
        for (stream, number) in pool.streams { streamOfMeter[number] = stream }
        for (number, node) in nodes {
            guard let id = node.nodeID else { continue }
            meters[id] = streamOfMeter[number]
        }
        linker.assign(meters)
        let failedLinks = MeterLinks.failed(graph: mirror.graph, meters: meters)
        if !failedLinks.isEmpty {
            failed.formUnion(failedLinks)
            onChange()
        }
    }

    /// A meter's node was bound, failed, or what it measured changed.
    private func meterChanged() {
        for (number, node) in nodes where node.failed {
            nodes[number] = nil
            if let stream = pool.streams.first(where: { $0.value == number })?.key { failed.insert(stream) }
            pool.retire(number)
        }
        let now = audibilities()
        if now != reported || nodes.values.contains(where: \.isNewlyBound) {
            reported = now
            for node in nodes.values { node.isNewlyBound = false }
            onChange()
        }
    }
}

/// One meter: a node of the agent's with one input port, its peaks taken on
/// the data thread (CPipeWire's peak meter), owned here (destroyed with this).
private final class MeterNode {
    private var meter: OpaquePointer?
    private let onChange: () -> Void
    /// Set when its node id becomes known, until the change is reported.
    var isNewlyBound = false
    private var knownID: UInt32?

    init?(thread: ThreadConnection, loop: EventLoop, number: Int, onChange: @escaping () -> Void) {
        self.onChange = onChange
        let props: [String: String] = [
            "node.name": "pw-policy-meter-\(number)", "node.description": "pw-policy meter",
            "media.type": "Audio", "media.role": "DSP", Graph.Node.agentsOwnKey: "meter",
            // No media.class: WirePlumber's policy handles only nodes that
            // have one. It links nothing to it and keeps nothing of it.
            "node.autoconnect": "false", "node.passive": "true",
        ]
        var made: OpaquePointer?
        withDictionary(props) { dict in
            made = cpw_peak_meter_new(thread.threadLoop, thread.core, loop.pwLoop, dict, AudibilityMeter.audibleLevel, { data in
                guard let data else { return }
                Unmanaged<MeterNode>.fromOpaque(data).takeUnretainedValue().changed()
            }, Unmanaged.passUnretained(self).toOpaque())
        }
        guard let made else { return nil }
        meter = made
    }

    var nodeID: UInt32? {
        guard let meter else { return nil }
        let id = cpw_peak_meter_node_id(meter)
        return id == UInt32.max ? nil : id
    }

    var failed: Bool { meter.map(cpw_peak_meter_failed) ?? true }

    /// What it measured on its current stream.
    var blocks: AudibilityMeter.Blocks {
        guard let meter else { return AudibilityMeter.Blocks() }
        let reading = cpw_peak_meter_read(meter)
        return AudibilityMeter.Blocks(measured: reading.measured, latestLoud: reading.loud,
                                      lastLoud: reading.has_loud ? Double(reading.last_loud_usec) / 1_000_000 : nil)
    }

    /// When it heard the first loud block on its current stream.
    var firstLoud: Double? {
        guard let meter else { return nil }
        let reading = cpw_peak_meter_read(meter)
        return reading.has_loud ? Double(reading.first_loud_usec) / 1_000_000 : nil
    }

    /// It meters another stream from now on.
    func restart() { meter.map(cpw_peak_meter_restart) }

    private func changed() {
        if knownID == nil, let id = nodeID {
            knownID = id
            isNewlyBound = true
        }
        onChange()
    }

    deinit { meter.map(cpw_peak_meter_destroy) }
}
