import CPipeWire
import PolicyCore

/// A proxy we bound to a global through the registry, owned by Swift: the
/// listener hook is removed and the proxy destroyed when this object goes,
/// so no callback can reach a freed object.
class BoundProxy {
    let id: UInt32
    /// The object's interface: a bound proxy, or an object of our own.
    let proxy: OpaquePointer
    let hook = Hook()
    unowned let mirror: GraphMirror
    private let ownsProxy: Bool

    init?(mirror: GraphMirror, id: UInt32, type: String) {
        guard let raw = cpw_registry_bind(mirror.registry, id, type, InterfaceType.version) else { return nil }
        self.id = id
        self.proxy = OpaquePointer(raw)
        self.mirror = mirror
        ownsProxy = true
    }

    /// A global that this process implements and exported: it is observed
    /// and changed through its implementation's interface, the same calls
    /// as on a proxy, because binding our own export would deadlock (the
    /// daemon marks the binder busy until the exporter answers a ping, and
    /// both are us).
    init(mirror: GraphMirror, id: UInt32, exported implementation: OpaquePointer) {
        self.id = id
        self.proxy = implementation
        self.mirror = mirror
        ownsProxy = false
    }

    var opaqueSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    deinit {
        hook.remove()
        if ownsProxy { pw_proxy_destroy(proxy) }
    }
}

final class NodeObserver: BoundProxy {
    private var events: EventsTable<pw_node_events>?

    init?(mirror: GraphMirror, id: UInt32) {
        super.init(mirror: mirror, id: id, type: InterfaceType.node)
        var table = pw_node_events()
        table.version = UInt32(PW_VERSION_NODE_EVENTS)
        table.info = { data, info in
            guard let data, let info else { return }
            let me = Unmanaged<NodeObserver>.fromOpaque(data).takeUnretainedValue()
            let mask = info.pointee.change_mask
            let props = (mask & UInt64(PW_NODE_CHANGE_MASK_PROPS)) != 0 ? copyDictionary(info.pointee.props) : nil
            let state = (mask & UInt64(PW_NODE_CHANGE_MASK_STATE)) != 0 ? Graph.NodeState(info.pointee.state) : nil
            me.mirror.nodeInfo(id: me.id, props: props, state: state)
        }
        table.param = { data, _, paramID, _, _, param in
            guard let data, paramID == SPA_PARAM_Props.rawValue else { return }
            let me = Unmanaged<NodeObserver>.fromOpaque(data).takeUnretainedValue()
            var props = cpw_props()
            guard cpw_parse_props(param, &props) == 0 else { return }
            let channelVolumes = withUnsafeBytes(of: props.channel_volumes) { raw in
                Array(raw.bindMemory(to: Float.self).prefix(Int(props.n_channel_volumes)))
            }
            me.mirror.nodeProps(id: me.id, volume: props.has_volume ? props.volume : nil,
                                channelVolumes: channelVolumes, mute: props.has_mute ? props.mute : nil)
        }
        let tableRef = EventsTable(table)
        events = tableRef
        _ = cpw_node_add_listener(proxy, hook.pointer, tableRef.pointer, opaqueSelf)
        hook.attached()
        var ids: [UInt32] = [SPA_PARAM_Props.rawValue]
        _ = cpw_node_subscribe_params(proxy, &ids, UInt32(ids.count))
    }

    /// Sets Props `volume` and nothing else.
    func setVolume(_ volume: Float) -> Int32 {
        cpw_node_set_props_volume(proxy, volume)
    }

    /// Sets Props `volume`, `mute` and `channelVolumes`: for the agent's own stand-in streams only.
    func setVolumes(_ volume: Float, mute: Bool, channelVolumes: [Float]) -> Int32 {
        channelVolumes.withUnsafeBufferPointer { cpw_node_set_props_volumes(proxy, volume, mute, $0.baseAddress, UInt32($0.count)) }
    }

    func rampVolume(to volume: Float, milliseconds: Int32, stepFrames: Int32) -> Int32 {
        cpw_node_set_props_volume_ramp(proxy, volume, milliseconds, stepFrames)
    }

    /// Sends the node command `id` (`SPA_NODE_COMMAND_Suspend`, …).
    func send(command id: UInt32) -> Int32 {
        cpw_node_send_command(proxy, id)
    }
}

final class DeviceObserver: BoundProxy {
    private var events: EventsTable<pw_device_events>?
    /// The `Route` and `EnumRoute` params' flags in the last info event. A
    /// device toggles a param's serial flag when it changes (a jack, a
    /// profile, a route someone set).
    private var paramFlags: [UInt32: UInt32] = [:]
    /// Enumerations under way, by the seq their param events carry: which
    /// param, and what arrived so far.
    private var enumerations: [Int32: (param: UInt32, routes: [Graph.Route])] = [:]
    private static let routeParams = [SPA_PARAM_Route.rawValue, SPA_PARAM_EnumRoute.rawValue]

    init?(mirror: GraphMirror, id: UInt32) {
        super.init(mirror: mirror, id: id, type: InterfaceType.device)
        var table = pw_device_events()
        table.version = UInt32(PW_VERSION_DEVICE_EVENTS)
        table.info = { data, info in
            guard let data, let info else { return }
            let me = Unmanaged<DeviceObserver>.fromOpaque(data).takeUnretainedValue()
            let mask = info.pointee.change_mask
            if (mask & UInt64(PW_DEVICE_CHANGE_MASK_PROPS)) != 0 {
                me.mirror.deviceInfo(id: me.id, props: copyDictionary(info.pointee.props))
            }
            if (mask & UInt64(PW_DEVICE_CHANGE_MASK_PARAMS)) != 0 {
                let params = UnsafeBufferPointer(start: info.pointee.params, count: Int(info.pointee.n_params))
                for param in params where DeviceObserver.routeParams.contains(param.id) {
                    me.paramChanged(param.id, flags: param.flags)
                }
            }
        }
        table.param = { data, seq, paramID, _, _, param in
            guard let data, DeviceObserver.routeParams.contains(paramID) else { return }
            let me = Unmanaged<DeviceObserver>.fromOpaque(data).takeUnretainedValue()
            var route = cpw_route()
            guard cpw_parse_route(param, &route) == 0 else { return }
            if me.enumerations[seq] != nil {
                me.enumerations[seq]!.routes.append(Graph.Route(route))
            } else if paramID == SPA_PARAM_Route.rawValue {
                // Pushed by the subscription: the initial routes, and those of
                // devices the daemon itself runs.
                me.mirror.deviceRoute(id: me.id, route: Graph.Route(route))
            }
        }
        let tableRef = EventsTable(table)
        events = tableRef
        _ = cpw_device_add_listener(proxy, hook.pointer, tableRef.pointer, opaqueSelf)
        hook.attached()
        var ids: [UInt32] = [SPA_PARAM_Route.rawValue]
        _ = cpw_device_subscribe_params(proxy, &ids, UInt32(ids.count))
    }

    /// A device a client exports — every ALSA card, which WirePlumber's
    /// monitor exports — answers the daemon's enumerations asynchronously,
    /// and the daemon then sends its subscribers the info event saying the
    /// param changed but no param event with the new value (PipeWire 0.3.65
    /// and 1.4.2 alike; docs/TESTING.md, "The test card"). So the mirror
    /// enumerates the param itself whenever its flags change, as pw-dump and
    /// WirePlumber do, and on the first info too.
    private func paramChanged(_ param: UInt32, flags: UInt32) {
        defer { paramFlags[param] = flags }
        guard flags != paramFlags[param], (flags & UInt32(SPA_PARAM_INFO_READ)) != 0 else { return }
        let seq = cpw_device_enum_params(proxy, 0, param, 0, UInt32.max, nil)
        guard seq >= 0 else { return }
        enumerations[seq] = (param, [])
        // The daemon holds our further requests until the device has answered
        // the enumeration, so this round trip ends after its last param event.
        mirror.connection.sync { [weak self] in
            guard let self, let done = self.enumerations.removeValue(forKey: seq) else { return }
            // As a whole: a profile change takes the routes of devices it no
            // longer has with it.
            self.mirror.deviceRoutes(id: self.id, done.param == SPA_PARAM_Route.rawValue ? \.routes : \.ports, done.routes)
        }
    }
}

final class ClientObserver: BoundProxy {
    private var events: EventsTable<pw_client_events>?

    init?(mirror: GraphMirror, id: UInt32) {
        super.init(mirror: mirror, id: id, type: InterfaceType.client)
        var table = pw_client_events()
        table.version = UInt32(PW_VERSION_CLIENT_EVENTS)
        table.info = { data, info in
            guard let data, let info else { return }
            let me = Unmanaged<ClientObserver>.fromOpaque(data).takeUnretainedValue()
            guard (info.pointee.change_mask & UInt64(PW_CLIENT_CHANGE_MASK_PROPS)) != 0 else { return }
            me.mirror.clientInfo(id: me.id, props: copyDictionary(info.pointee.props))
        }
        let tableRef = EventsTable(table)
        events = tableRef
        _ = cpw_client_add_listener(proxy, hook.pointer, tableRef.pointer, opaqueSelf)
        hook.attached()
    }
}

final class LinkObserver: BoundProxy {
    private var events: EventsTable<pw_link_events>?

    init?(mirror: GraphMirror, id: UInt32) {
        super.init(mirror: mirror, id: id, type: InterfaceType.link)
        var table = pw_link_events()
        table.version = UInt32(PW_VERSION_LINK_EVENTS)
        table.info = { data, info in
            guard let data, let info else { return }
            let me = Unmanaged<LinkObserver>.fromOpaque(data).takeUnretainedValue()
            guard (info.pointee.change_mask & UInt64(PW_LINK_CHANGE_MASK_STATE)) != 0 else { return }
            me.mirror.linkState(id: me.id, state: Graph.LinkState(info.pointee.state))
        }
        let tableRef = EventsTable(table)
        events = tableRef
        _ = cpw_link_add_listener(proxy, hook.pointer, tableRef.pointer, opaqueSelf)
        hook.attached()
    }
}

final class MetadataObserver: BoundProxy {
    private var events: EventsTable<pw_metadata_events>?

    /// `implementation`: a metadata we export ourselves (nil: bind the global).
    init?(mirror: GraphMirror, id: UInt32, implementation: OpaquePointer?) {
        if let implementation {
            super.init(mirror: mirror, id: id, exported: implementation)
        } else {
            super.init(mirror: mirror, id: id, type: InterfaceType.metadata)
        }
        // A new listener is first told every entry the metadata holds.
        var table = pw_metadata_events()
        table.version = UInt32(PW_VERSION_METADATA_EVENTS)
        table.property = { data, subject, key, type, value in
            guard let data else { return 0 }
            let me = Unmanaged<MetadataObserver>.fromOpaque(data).takeUnretainedValue()
            me.mirror.metadataProperty(id: me.id, MetadataChange(subject: subject, key: key, type: type, value: value))
            return 0
        }
        let tableRef = EventsTable(table)
        events = tableRef
        _ = cpw_metadata_add_listener(proxy, hook.pointer, tableRef.pointer, opaqueSelf)
        hook.attached()
    }

    /// Sets `key` for `subject`; a nil value removes the key.
    func set(subject: UInt32, key: String, type: String?, value: String?) -> Int32 {
        cpw_metadata_set_property(proxy, subject, key, type, value)
    }
}

/// One metadata `property` event, copied out of the C strings of the callback.
struct MetadataChange {
    var subject: UInt32
    /// nil: every key of the subject is removed.
    var key: String?
    var type: String?
    /// nil: the key is removed.
    var value: String?

    init(subject: UInt32, key: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?) {
        self.subject = subject
        self.key = key.map { String(cString: $0) }
        self.type = type.map { String(cString: $0) }
        self.value = value.map { String(cString: $0) }
    }
}

extension Graph.NodeState {
    init(_ state: pw_node_state) {
        switch state {
        case PW_NODE_STATE_ERROR: self = .error
        case PW_NODE_STATE_CREATING: self = .creating
        case PW_NODE_STATE_SUSPENDED: self = .suspended
        case PW_NODE_STATE_IDLE: self = .idle
        case PW_NODE_STATE_RUNNING: self = .running
        default: self = .error
        }
    }
}

extension Graph.LinkState {
    init(_ state: pw_link_state) {
        switch state {
        case PW_LINK_STATE_ERROR: self = .error
        case PW_LINK_STATE_UNLINKED: self = .unlinked
        case PW_LINK_STATE_INIT: self = .initializing
        case PW_LINK_STATE_NEGOTIATING: self = .negotiating
        case PW_LINK_STATE_ALLOCATING: self = .allocating
        case PW_LINK_STATE_PAUSED: self = .paused
        case PW_LINK_STATE_ACTIVE: self = .active
        default: self = .error
        }
    }
}

extension Graph.Route {
    init(_ route: cpw_route) {
        let name = withUnsafeBytes(of: route.name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let description = withUnsafeBytes(of: route.description) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let portType = withUnsafeBytes(of: route.port_type) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        let availability: Graph.Availability = switch route.available {
        case SPA_PARAM_AVAILABILITY_no.rawValue: .no
        case SPA_PARAM_AVAILABILITY_yes.rawValue: .yes
        default: .unknown
        }
        let devices = withUnsafeBytes(of: route.devices) { Array($0.bindMemory(to: Int32.self).prefix(Int(route.n_devices))) }
        self.init(index: route.index, device: route.device,
                  direction: route.direction == SPA_DIRECTION_INPUT.rawValue ? .input : .output,
                  name: name, description: description, available: availability,
                  portType: portType.isEmpty ? nil : portType, devices: devices)
    }
}
