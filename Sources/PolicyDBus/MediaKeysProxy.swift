import CSystemd
import Glibc
import PolicyCore

/// pw-policy's own MPRIS player, `org.mpris.MediaPlayer2.pw_policy`: the
/// desktop's media keys and playerctl call it, and the agent sends each key
/// to the player a person means (docs/PLAYERS.md, "Media keys"). Its
/// properties mirror that player's; it decides nothing itself.
///
/// Exported with `sd_bus_add_object` and a raw message callback (sd-bus's
/// vtable macros are C macros Swift cannot use): it answers
/// `org.freedesktop.DBus.Properties` (Get, GetAll, Set),
/// `org.freedesktop.DBus.Introspectable.Introspect`, `org.mpris.MediaPlayer2`
/// and `org.mpris.MediaPlayer2.Player`; anything else is left to sd-bus,
/// which answers `UnknownMethod`. A call with the wrong signature gets
/// `InvalidArgs`. A key's method returns at once, before the agent acts.
public final class MediaKeysProxy {
    public static let busName = "org.mpris.MediaPlayer2.pw_policy"
    static let path = MPRISProperties.objectPath
    static let rootInterface = MPRISProperties.rootInterface
    static let playerInterface = MPRISProperties.playerInterface
    static let propertiesInterface = SessionBus.propertiesInterface
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    private let bus: SessionBus
    private let onKey: (MediaKey) -> Void
    private var objectSlot: OpaquePointer?
    private var nameSlot: BusSlot?
    /// The player whose properties it shows (nil: none; it says Stopped).
    public private(set) var mirrored: MediaPlayer?
    /// Whether the bus gave it the name (signals are sent only then).
    public private(set) var ownsName = false

    /// Exports the object and asks for the name; `owned` hears whether the
    /// bus gave it (nil) or why not (another process owns it, the bus
    /// refused). `onKey` runs on the loop for each key, after the reply.
    public init(bus: SessionBus, mirroring player: MediaPlayer?, onKey: @escaping (MediaKey) -> Void,
                owned: @escaping (String?) -> Void) throws(BusCallError) {
        self.bus = bus
        self.onKey = onKey
        mirrored = player
        var slot: OpaquePointer?
        let added = sd_bus_add_object(bus.bus, &slot, Self.path, Self.callback,
                                      Unmanaged.passUnretained(self).toOpaque())
        guard added >= 0 else { throw BusCallError(name: "pw-policy.AddObjectFailed", message: errnoText(added)) }
        objectSlot = slot
        let request = BusSlot()
        // The slot stays until the proxy goes: never released in its own callback.
        request.completion = { [weak self] result in
            switch result {
            case .failure(let error): owned("requesting \(Self.busName) failed: \(error)")
            // 1: the primary owner; 4: already it. 3: another owns it (we do not queue).
            case .success(let body):
                switch body.first?.uint32 {
                case 1?, 4?:
                    self?.ownsName = true
                    owned(nil)
                case 3?: owned("\(Self.busName) is owned by another process (another pw-policy?)")
                default: owned("requesting \(Self.busName): unexpected reply \(body)")
                }
            }
        }
        var requestSlot: OpaquePointer?
        let requested = sd_bus_request_name_async(bus.bus, &requestSlot, Self.busName, 0, BusSlot.replyCallback,
                                                  request.userdata)
        guard requested >= 0 else {
            throw BusCallError(name: "pw-policy.RequestNameFailed", message: errnoText(requested))
        }
        request.slot = requestSlot
        nameSlot = request
        bus.queued()
    }

    deinit {
        nameSlot = nil
        if let objectSlot { sd_bus_slot_unref(objectSlot) }
        // Give the name back; nothing to wait for.
        if bus.failure == nil, ownsName {
            sd_bus_release_name_async(bus.bus, nil, Self.busName, nil, nil)
            bus.queued()
        }
    }

    /// Shows `player`'s properties from now on; signals those that changed.
    public func mirror(_ player: MediaPlayer?) {
        let before = Self.playerProperties(mirrored)
        mirrored = player
        let after = Self.playerProperties(player)
        let changed = after.filter { before[$0.key] != $0.value }
        guard !changed.isEmpty, ownsName, bus.failure == nil else { return }
        var signal: OpaquePointer?
        guard sd_bus_message_new_signal(bus.bus, &signal, Self.path, Self.propertiesInterface, "PropertiesChanged") >= 0,
              let signal else { return }
        defer { sd_bus_message_unref(signal) }
        for value in [BusOut.string(Self.playerInterface), .propertyDictionary(changed), .array("s", [])] {
            guard value.append(to: signal) >= 0 else { return }
        }
        sd_bus_send(bus.bus, signal, nil)
        bus.queued()
    }

    // MARK: - properties

    static func rootProperties() -> [String: BusOut] {
        ["CanQuit": .bool(false), "CanRaise": .bool(false), "HasTrackList": .bool(false), "Identity": .string("pw-policy"),
         "SupportedUriSchemes": .array("s", []), "SupportedMimeTypes": .array("s", [])]
    }

    /// The Player interface's properties, mirroring `player`. What the
    /// observer does not follow is not claimed: `Volume`, `Position`,
    /// `LoopStatus`, `Shuffle` are absent (no seeking, no volume: the agent
    /// never changes a user's volume).
    static func playerProperties(_ player: MediaPlayer?) -> [String: BusOut] {
        let status: String = switch player?.status {
        case .playing?: "Playing"
        case .paused?: "Paused"
        default: "Stopped"
        }
        var metadata: [String: BusOut] = [:]
        if let player {
            let track = player.trackID.flatMap { BusOut.isObjectPath($0) ? $0 : nil } ?? "/org/mpris/MediaPlayer2/TrackList/NoTrack"
            metadata["mpris:trackid"] = .objectPath(track)
            if let title = player.title { metadata["xesam:title"] = .string(title) }
            if let url = player.url { metadata["xesam:url"] = .string(url) }
            if let artist = player.artist { metadata["xesam:artist"] = .array("s", artist.map(BusOut.string)) }
            if let album = player.album { metadata["xesam:album"] = .string(album) }
            if let art = player.artURL { metadata["mpris:artUrl"] = .string(art) }
            if let length = player.length { metadata["mpris:length"] = .int64(length) }
        }
        let present = player != nil
        return ["PlaybackStatus": .string(status), "Metadata": .propertyDictionary(metadata),
                "Rate": .double(1), "MinimumRate": .double(1), "MaximumRate": .double(1),
                "CanGoNext": .bool(present && player?.canGoNext ?? false),
                "CanGoPrevious": .bool(present && player?.canGoPrevious ?? false),
                "CanPlay": .bool(present && player?.canPlay ?? true), "CanPause": .bool(present && player?.canPause ?? true),
                "CanSeek": .bool(false), "CanControl": .bool(true)]
    }

    // MARK: - method calls

    private static let callback: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        return Unmanaged<MediaKeysProxy>.fromOpaque(userdata).takeUnretainedValue().handle(message)
    }

    /// What a method call gets. 1: answered here; 0: left to sd-bus.
    private func handle(_ message: OpaquePointer) -> Int32 {
        guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 0 }
        let interface = sd_bus_message_get_interface(message).map { String(cString: $0) } ?? ""
        let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        switch Self.answer(interface: interface, member: member, signature: signature(of: message),
                           arguments: { (try? BusMessage.readBody(message)) ?? [] }, proxy: self) {
        case .unknown:
            return 0
        case .reply(let values):
            reply(to: message, values)
        case .error(let name, let text):
            replyError(to: message, name: name, text)
        case .key(let key):
            reply(to: message, [])
            onKey(key)
        }
        return 1
    }

    enum Answer: Equatable {
        case reply([BusOut])
        case error(String, String)
        case key(MediaKey)
        /// Not ours: sd-bus answers (UnknownMethod, Peer.Ping).
        case unknown
    }

    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"

    /// The answer to one call, from its interface, member and signature
    /// (the arguments are read only once the signature is right).
    static func answer(interface: String, member: String, signature: String, arguments: () -> [BusValue],
                       proxy: MediaKeysProxy?) -> Answer {
        func expect(_ wanted: String, _ then: () -> Answer) -> Answer {
            signature == wanted ? then()
                : .error(invalidArgs, "\(interface).\(member) takes '\(wanted)', not '\(signature)'")
        }
        let player = proxy?.mirrored
        func properties(_ name: String) -> [String: BusOut]? {
            switch name {
            case rootInterface: rootProperties()
            case playerInterface: playerProperties(player)
            default: nil
            }
        }
        switch (interface, member) {
        case (introspectableInterface, "Introspect"):
            return expect("") { .reply([.string(introspection)]) }
        case (propertiesInterface, "Get"):
            return expect("ss") {
                let values = arguments().compactMap(\.string)
                guard values.count == 2 else { return .error(invalidArgs, "Get takes an interface and a property") }
                guard let all = properties(values[0]) else {
                    return .error("org.freedesktop.DBus.Error.UnknownInterface", "no interface '\(values[0])'")
                }
                guard let value = all[values[1]] else {
                    return .error("org.freedesktop.DBus.Error.UnknownProperty", "no property '\(values[1])' in \(values[0])")
                }
                return .reply([.variant(value)])
            }
        case (propertiesInterface, "GetAll"):
            return expect("s") {
                let name = arguments().first?.string ?? ""
                guard let all = properties(name) else {
                    return .error("org.freedesktop.DBus.Error.UnknownInterface", "no interface '\(name)'")
                }
                return .reply([.propertyDictionary(all)])
            }
        case (propertiesInterface, "Set"):
            return expect("ssv") {
                let values = arguments()
                let (name, property) = (values.first?.string ?? "", values.dropFirst().first?.string ?? "")
                guard let all = properties(name) else {
                    return .error("org.freedesktop.DBus.Error.UnknownInterface", "no interface '\(name)'")
                }
                guard all[property] != nil else {
                    return .error("org.freedesktop.DBus.Error.UnknownProperty", "no property '\(property)' in \(name)")
                }
                return .error("org.freedesktop.DBus.Error.PropertyReadOnly", "\(property) is read-only")
            }
        case (rootInterface, "Raise"), (rootInterface, "Quit"):
            // CanRaise and CanQuit are false: the call does nothing.
            return expect("") { .reply([]) }
        case (playerInterface, let name):
            if let key = MediaKey(rawValue: name) { return expect("") { .key(key) } }
            switch name {
            // CanSeek is false: Seek and SetPosition do nothing.
            case "Seek": return expect("x") { .reply([]) }
            case "SetPosition": return expect("ox") { .reply([]) }
            case "OpenUri":
                return expect("s") { .error("org.freedesktop.DBus.Error.NotSupported", "pw-policy opens nothing") }
            default: return .unknown
            }
        default:
            return .unknown
        }
    }

    private func signature(of message: OpaquePointer) -> String {
        sd_bus_message_get_signature(message, 1).map { String(cString: $0) } ?? ""
    }

    private func reply(to call: OpaquePointer, _ values: [BusOut]) {
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(call, &reply) >= 0, let reply else { return }
        defer { sd_bus_message_unref(reply) }
        for value in values where value.append(to: reply) < 0 {
            return replyError(to: call, name: "org.freedesktop.DBus.Error.Failed", "the reply could not be written")
        }
        sd_bus_send(bus.bus, reply, nil)
    }

    private func replyError(to call: OpaquePointer, name: String, _ text: String) {
        name.withCString { name in
            text.withCString { text in
                var error = sd_bus_error(name: name, message: text, _need_free: 0)
                _ = sd_bus_reply_method_error(call, &error)
            }
        }
    }

    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
         <interface name="org.freedesktop.DBus.Introspectable">
          <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Peer">
          <method name="Ping"/>
          <method name="GetMachineId"><arg name="machine_uuid" type="s" direction="out"/></method>
         </interface>
         <interface name="org.freedesktop.DBus.Properties">
          <method name="Get"><arg name="interface" type="s" direction="in"/><arg name="property" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
          <method name="GetAll"><arg name="interface" type="s" direction="in"/><arg name="properties" type="a{sv}" direction="out"/></method>
          <method name="Set"><arg name="interface" type="s" direction="in"/><arg name="property" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>
          <signal name="PropertiesChanged"><arg name="interface" type="s"/><arg name="changed_properties" type="a{sv}"/><arg name="invalidated_properties" type="as"/></signal>
         </interface>
         <interface name="org.mpris.MediaPlayer2">
          <method name="Raise"/>
          <method name="Quit"/>
          <property name="CanQuit" type="b" access="read"/>
          <property name="CanRaise" type="b" access="read"/>
          <property name="HasTrackList" type="b" access="read"/>
          <property name="Identity" type="s" access="read"/>
          <property name="SupportedUriSchemes" type="as" access="read"/>
          <property name="SupportedMimeTypes" type="as" access="read"/>
         </interface>
         <interface name="org.mpris.MediaPlayer2.Player">
          <method name="Next"/>
          <method name="Previous"/>
          <method name="Pause"/>
          <method name="PlayPause"/>
          <method name="Stop"/>
          <method name="Play"/>
          <method name="Seek"><arg name="Offset" type="x" direction="in"/></method>
          <method name="SetPosition"><arg name="TrackId" type="o" direction="in"/><arg name="Position" type="x" direction="in"/></method>
          <method name="OpenUri"><arg name="Uri" type="s" direction="in"/></method>
          <signal name="Seeked"><arg name="Position" type="x"/></signal>
          <property name="PlaybackStatus" type="s" access="read"/>
          <property name="Rate" type="d" access="read"/>
          <property name="Metadata" type="a{sv}" access="read"/>
          <property name="MinimumRate" type="d" access="read"/>
          <property name="MaximumRate" type="d" access="read"/>
          <property name="CanGoNext" type="b" access="read"/>
          <property name="CanGoPrevious" type="b" access="read"/>
          <property name="CanPlay" type="b" access="read"/>
          <property name="CanPause" type="b" access="read"/>
          <property name="CanSeek" type="b" access="read"/>
          <property name="CanControl" type="b" access="read"/>
         </interface>
        </node>

        """
}
