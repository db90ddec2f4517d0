import CPipeWire
import PolicyCore
import PolicyFiles

/// Peak meters on the streams the core asks to meter (the few that duck
/// others): for each, a capture stream of the agent's whose target is the
/// stream itself, which WirePlumber links to the stream's output beside its
/// sink, so it reads exactly what the stream plays, after its volumes
/// (docs/POLICY.md, "Ducking while audible"). It reads peaks, not audio
/// (`resample.peaks`, one channel, `rate` values a second), in the loop's
/// thread; each meter's `AudibilityMeter` says when its audibility changes,
/// and only then is `onChange` called.
public final class StreamMeters {
    private let connection: Connection
    private let onChange: () -> Void
    private var meters: [UInt32: Meter] = [:]
    /// Streams whose meter could not be made or ended in error: judged by node state.
    private(set) var failed: Set<UInt32> = []
    /// Peak values a second: blocks of 20 ms at most, fine for a 300 ms hold.
    static let rate: UInt32 = 50

    public init(connection: Connection, onChange: @escaping () -> Void) {
        self.connection = connection
        self.onChange = onChange
    }

    /// What the meters measured, for the core.
    public var readings: AgentCore.Meters {
        AgentCore.Meters(readings: meters.filter { !failed.contains($0.key) }.mapValues(\.meter.audibility), failed: failed)
    }

    /// Meters exactly these streams (node id → serial): new ones made, gone ones destroyed.
    public func meter(_ streams: [UInt32: UInt64]) {
        for (id, meter) in meters where streams[id] != meter.serial || failed.contains(id) { meters[id] = nil }
        failed = failed.filter { streams[$0] != nil }
        for (id, serial) in streams.sorted(by: { $0.key < $1.key }) where meters[id] == nil && !failed.contains(id) {
            guard loadStreamModules(), let meter = Meter(connection: connection, stream: id, serial: serial,
                                                        onChange: { [unowned self] in self.onChange() },
                                                        onError: { [unowned self] in self.meterFailed(id) })
            else {
                failed.insert(id)
                continue
            }
            meters[id] = meter
        }
    }

    private func meterFailed(_ id: UInt32) {
        // Destroyed by the next `meter`, not inside its own callback.
        failed.insert(id)
        onChange()
    }

    /// A capture stream needs the adapter and client-node modules in this
    /// process, which the agent does not load until it meters
    /// (Connection.contextProperties; PipeWire 0.3.65's client.conf loads them anyway).
    private func loadStreamModules() -> Bool {
        let context = connection.context
        if pw_context_find_factory(context, "adapter") == nil,
           pw_context_load_module(context, "libpipewire-module-adapter", nil, nil) == nil { return false }
        if pw_context_find_export_type(context, InterfaceType.node) == nil,
           pw_context_load_module(context, "libpipewire-module-client-node", nil, nil) == nil { return false }
        return true
    }
}

/// One meter: a capture stream of peaks, owned here (destroyed with this).
private final class Meter {
    let serial: UInt64
    private(set) var meter = AudibilityMeter()
    private let stream: OpaquePointer
    private let hook = Hook()
    private var events: EventsTable<pw_stream_events>?
    private let onChange: () -> Void
    private let onError: () -> Void

    init?(connection: Connection, stream id: UInt32, serial: UInt64,
          onChange: @escaping () -> Void, onError: @escaping () -> Void) {
        self.serial = serial
        self.onChange = onChange
        self.onError = onError
        let props: [String: String] = [
            "media.type": "Audio", "media.category": "Capture", "media.role": "DSP",
            "node.name": "pw-policy-meter-\(id)", "node.description": "pw-policy meter of stream \(id)",
            Graph.Node.agentsOwnKey: "meter",
            "target.object": String(serial), "stream.monitor": "true", "resample.peaks": "true",
            // Never moved elsewhere when the stream goes; never keeps the graph running;
            // nothing for WirePlumber to remember.
            "node.dont-reconnect": "true", "node.passive": "true",
            "state.restore-props": "false", "state.restore-target": "false",
        ]
        guard let core = try? connection.exportingCore(),
              let created = withDictionary(props, { pw_stream_new(core, "pw-policy meter", pw_properties_new_dict($0)) })
        else { return nil }
        stream = created
        var table = pw_stream_events()
        table.version = UInt32(PW_VERSION_STREAM_EVENTS)
        table.process = { data in
            guard let data else { return }
            Unmanaged<Meter>.fromOpaque(data).takeUnretainedValue().process()
        }
        table.state_changed = { data, _, state, _ in
            guard let data, state == PW_STREAM_STATE_ERROR else { return }
            Unmanaged<Meter>.fromOpaque(data).takeUnretainedValue().onError()
        }
        let tableRef = EventsTable(table)
        events = tableRef
        pw_stream_add_listener(stream, hook.pointer, tableRef.pointer, Unmanaged.passUnretained(self).toOpaque())
        hook.attached()
        if cpw_stream_connect_peak_meter(stream, StreamMeters.rate) < 0 { return nil }
    }

    private func process() {
        var buffers: Int32 = 0
        let peak = cpw_stream_take_peak(stream, &buffers)
        if buffers > 0, meter.measure(peak: peak, at: MonotonicClock.now) { onChange() }
    }

    deinit {
        hook.remove()
        pw_stream_destroy(stream)
    }
}
