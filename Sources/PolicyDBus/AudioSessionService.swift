import CSystemd
import Glibc
import PolicyCore

/// The audio-session service on the session bus, `org.pwpolicy.AudioSession1`
/// (docs/API.md): the manager object, where apps create sessions, and one
/// object per session, where they change them and are told what happens to
/// them. It decides nothing: a call's arguments are read (its signature
/// checked first) and handed to the core, whose reply it sends; the core's
/// messages it sends to each session's owner; it tells the core who a
/// caller is (its pid, its Flatpak app) and when a caller leaves the bus.
///
/// Exported as MediaKeysProxy exports its player: `sd_bus_add_fallback` on
/// the manager's path (its sessions below it included) and one raw message
/// callback, as sd-bus's vtable macros are C macros Swift cannot use.
public final class AudioSessionService {
    /// What the service asks of the agent.
    public struct Handlers {
        /// A call, its arguments of the right types; the core's reply.
        public var call: (AudioSessionTable.Call, _ caller: String) -> AudioSessionTable.Reply
        /// A session's owner and its properties now; nil when the path names none.
        public var properties: (_ path: String) -> (owner: String, properties: [AudioSessionProperty: AudioSessionValue])?
        /// The callers that hold sessions now.
        public var owners: () -> Set<String>
        public var identified: (_ owner: String, _ pid: Int32?, _ flatpakAppID: String?) -> Void
        public var left: (_ owner: String) -> Void
        public init(call: @escaping (AudioSessionTable.Call, String) -> AudioSessionTable.Reply,
                    properties: @escaping (String) -> (owner: String, properties: [AudioSessionProperty: AudioSessionValue])?,
                    owners: @escaping () -> Set<String>, identified: @escaping (String, Int32?, String?) -> Void,
                    left: @escaping (String) -> Void) {
            self.call = call; self.properties = properties; self.owners = owners; self.identified = identified
            self.left = left
        }
    }

    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    static let propertiesInterface = SessionBus.propertiesInterface

    private let bus: SessionBus
    private let handlers: Handlers
    private let log: (String) -> Void
    private var objectSlot: OpaquePointer?
    private var nameSlot: BusSlot?
    /// The callers followed, with the match that hears them leave.
    private var watched: [String: BusMatch] = [:]
    public private(set) var ownsName = false

    /// Exports the objects and asks for the name; `owned` hears whether the
    /// bus gave it (nil) or why not.
    public init(bus: SessionBus, handlers: Handlers, log: @escaping (String) -> Void,
                owned: @escaping (String?) -> Void) throws(BusCallError) {
        self.bus = bus
        self.handlers = handlers
        self.log = log
        var slot: OpaquePointer?
        let added = sd_bus_add_fallback(bus.bus, &slot, AudioSessionAPI.managerPath, Self.callback,
                                        Unmanaged.passUnretained(self).toOpaque())
        guard added >= 0 else { throw BusCallError(name: "pw-policy.AddObjectFailed", message: errnoText(added)) }
        objectSlot = slot
        let request = BusSlot()
        // The slot stays until the service goes: never released in its own callback.
        request.completion = { [weak self] result in
            switch result {
            case .failure(let error): owned("requesting \(AudioSessionAPI.busName) failed: \(error)")
            // 1: the primary owner; 4: already it. 3: another owns it (we do not queue).
            case .success(let body):
                switch body.first?.uint32 {
                case 1?, 4?:
                    self?.ownsName = true
                    owned(nil)
                case 3?: owned("\(AudioSessionAPI.busName) is owned by another process (another pw-policy?)")
                default: owned("requesting \(AudioSessionAPI.busName): unexpected reply \(body)")
                }
            }
        }
        var requestSlot: OpaquePointer?
        let requested = sd_bus_request_name_async(bus.bus, &requestSlot, AudioSessionAPI.busName, 0, BusSlot.replyCallback,
                                                  request.userdata)
        guard requested >= 0 else {
            throw BusCallError(name: "pw-policy.RequestNameFailed", message: errnoText(requested))
        }
        request.slot = requestSlot
        nameSlot = request
        bus.queued()
    }

    deinit {
        watched = [:]
        nameSlot = nil
        if let objectSlot { sd_bus_slot_unref(objectSlot) }
        if bus.failure == nil, ownsName {
            sd_bus_release_name_async(bus.bus, nil, AudioSessionAPI.busName, nil, nil)
            bus.queued()
        }
    }

    // MARK: telling

    /// Sends the core's messages, each to its session's owner only.
    public func tell(_ messages: [AudioSessionNews.Message]) {
        guard ownsName, bus.failure == nil else { return }
        for message in messages {
            switch message.kind {
            case .propertiesChanged(let changed):
                var values: [String: BusOut] = [:]
                for (property, value) in changed { values[property.rawValue] = Self.out(value) }
                send(path: message.path, to: message.owner, interface: Self.propertiesInterface, member: "PropertiesChanged",
                     [.string(AudioSessionAPI.sessionInterface), .propertyDictionary(values), .array("s", [])])
            case .signal(let signal, let arguments):
                send(path: message.path, to: message.owner, interface: AudioSessionAPI.sessionInterface,
                     member: signal.rawValue, arguments.map(Self.out))
            }
        }
        bus.queued()
    }

    private func send(path: String, to destination: String, interface: String, member: String, _ values: [BusOut]) {
        var signal: OpaquePointer?
        guard sd_bus_message_new_signal(bus.bus, &signal, path, interface, member) >= 0, let signal else { return }
        defer { sd_bus_message_unref(signal) }
        guard sd_bus_message_set_destination(signal, destination) >= 0 else { return }
        for value in values where value.append(to: signal) < 0 { return }
        sd_bus_send(bus.bus, signal, nil)
    }

    static func out(_ value: AudioSessionValue) -> BusOut {
        switch value {
        case .bool(let bool): .bool(bool)
        case .string(let text): .string(text)
        case .strings(let texts): .array("s", texts.map(BusOut.string))
        case .uints(let numbers): .array("u", numbers.map(BusOut.uint32))
        case .double(let number): .double(number)
        }
    }

    // MARK: callers

    /// Follows the callers that hold sessions (their process, their leaving)
    /// and stops following those that hold none any more.
    public func ownersChanged() {
        let owners = handlers.owners()
        for name in watched.keys where !owners.contains(name) { watched[name] = nil }
        for name in owners.sorted() where watched[name] == nil { follow(name) }
    }

    private func follow(_ name: String) {
        let rule = "type='signal',sender='\(SessionBus.daemon)',interface='\(SessionBus.daemon)',member='NameOwnerChanged',arg0='\(name)'"
        switch bus.match(rule: rule, { [weak self] signal in
            guard let body = signal.body, body.count == 3, body[0].string == name, body[2].string == "" else { return }
            self?.leftBus(name)
        }) {
        case .success(let match): watched[name] = match
        case .failure(let error):
            log("cannot follow \(name): \(error)")
            return
        }
        // After the match: a caller that left before it is told by this reply.
        bus.callDaemon("GetConnectionUnixProcessID", arguments: [name]) { [weak self] result in
            guard let self, watched[name] != nil else { return }
            switch result {
            case .success(let body):
                let pid = body.first?.uint32.flatMap { Int32(exactly: $0) }
                handlers.identified(name, pid, pid.flatMap { FlatpakInfo.read(pid: $0)?.appID })
            case .failure(let error) where error.peerLeft:
                leftBus(name)
            case .failure(let error):
                log("the process of \(name) is not known: \(error)")
            }
        }
    }

    private func leftBus(_ name: String) {
        guard watched[name] != nil else { return }
        handlers.left(name)
        ownersChanged()
    }

    // MARK: method calls

    private static let callback: sd_bus_message_handler_t = { message, userdata, _ in
        guard let message, let userdata else { return 0 }
        return Unmanaged<AudioSessionService>.fromOpaque(userdata).takeUnretainedValue().handle(message)
    }

    /// What a method call gets. 1: answered here; 0: left to sd-bus.
    private func handle(_ message: OpaquePointer) -> Int32 {
        guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 0 }
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let path = text(sd_bus_message_get_path(message))
        let interface = text(sd_bus_message_get_interface(message))
        let member = text(sd_bus_message_get_member(message))
        let signature = text(sd_bus_message_get_signature(message, 1))
        let sender = text(sd_bus_message_get_sender(message))
        let answer = Self.answer(path: path, interface: interface, member: member, signature: signature,
                                 arguments: { (try? BusMessage.readBody(message)) ?? [] }, caller: sender,
                                 handlers: handlers)
        switch answer {
        case .unknown:
            return 0
        case .reply(let values):
            reply(to: message, values)
        case .error(let name, let text):
            replyError(to: message, name: name, text)
        }
        if case .reply = answer, interface == AudioSessionAPI.managerInterface || interface == AudioSessionAPI.sessionInterface {
            ownersChanged()
        }
        return 1
    }

    enum Answer: Equatable {
        case reply([BusOut])
        case error(String, String)
        /// Not ours: sd-bus answers (UnknownMethod, Peer.Ping).
        case unknown
    }

    /// The answer to one call, from its path, interface, member and
    /// signature; the arguments are read only once the signature is right.
    static func answer(path: String, interface: String, member: String, signature: String,
                       arguments: () -> [BusValue], caller: String, handlers: Handlers) -> Answer {
        typealias API = AudioSessionAPI
        func expect(_ wanted: String, _ then: () -> Answer) -> Answer {
            signature == wanted ? then()
                : .error(API.Error.invalidArgs, "\(interface).\(member) takes '\(wanted)', not '\(signature)'")
        }
        func reply(_ reply: AudioSessionTable.Reply) -> Answer {
            switch reply {
            case .created(let path): .reply([.objectPath(path)])
            case .done: .reply([])
            case .error(let name, let message), .flooding(let name, let message, _): .error(name, message)
            }
        }
        let isManager = path == API.managerPath
        let session = isManager ? nil : handlers.properties(path)
        if !isManager, session == nil {
            if path == API.managerPath + "/session", interface == introspectableInterface, member == "Introspect" {
                return expect("") { .reply([.string(AudioSessionIntrospection.emptyNode)]) }
            }
            return .error(API.Error.unknownObject, "no audio session \(path)")
        }
        func properties(_ name: String) -> [String: BusOut]? {
            switch name {
            case API.sessionInterface where !isManager:
                var all: [String: BusOut] = [:]
                for (property, value) in session?.properties ?? [:] { all[property.rawValue] = out(value) }
                return all
            case API.managerInterface where isManager: return [:]
            default: return nil
            }
        }
        // A session is its owner's: only it calls its methods and reads its
        // properties (its Token among them). Anyone may introspect.
        if let session, interface != introspectableInterface, caller != session.owner {
            return .error(API.Error.accessDenied, "\(path) belongs to another connection; a caller reads and changes only its own sessions")
        }
        guard !caller.isEmpty || interface == introspectableInterface else {
            return .error(API.Error.accessDenied, "calls must come through the bus, from a named connection")
        }
        switch (interface, member) {
        case (introspectableInterface, "Introspect"):
            return expect("") {
                .reply([.string(isManager ? AudioSessionIntrospection.manager : AudioSessionIntrospection.session)])
            }
        case (propertiesInterface, "Get"):
            return expect("ss") {
                let values = arguments().compactMap(\.string)
                guard values.count == 2 else { return .error(API.Error.invalidArgs, "Get takes an interface and a property") }
                guard let all = properties(values[0]) else {
                    return .error(API.Error.unknownInterface, "no interface '\(values[0])' at \(path)")
                }
                guard let value = all[values[1]] else {
                    return .error(API.Error.unknownProperty, "no property '\(values[1])' in \(values[0])")
                }
                return .reply([.variant(value)])
            }
        case (propertiesInterface, "GetAll"):
            return expect("s") {
                let name = arguments().first?.string ?? ""
                guard let all = properties(name) else {
                    return .error(API.Error.unknownInterface, "no interface '\(name)' at \(path)")
                }
                return .reply([.propertyDictionary(all)])
            }
        case (propertiesInterface, "Set"):
            return expect("ssv") {
                let values = arguments()
                let (name, property) = (values.first?.string ?? "", values.dropFirst().first?.string ?? "")
                guard let all = properties(name) else {
                    return .error(API.Error.unknownInterface, "no interface '\(name)' at \(path)")
                }
                guard all[property] != nil else {
                    return .error(API.Error.unknownProperty, "no property '\(property)' in \(name)")
                }
                return .error(API.Error.propertyReadOnly, "\(property) is read-only; \(API.setCategory) changes a declaration")
            }
        case (API.managerInterface, API.createSession) where isManager:
            return expect("sass") {
                let values = arguments()
                guard values.count == 3, let category = values[0].string, let options = values[1].strings,
                      let mode = values[2].string else {
                    return .error(API.Error.invalidArgs, "\(API.createSession) takes a category, options and a mode")
                }
                return reply(handlers.call(.create(category: category, options: options, mode: mode), caller))
            }
        case (API.sessionInterface, API.setCategory) where !isManager:
            return expect("sass") {
                let values = arguments()
                guard values.count == 3, let category = values[0].string, let options = values[1].strings,
                      let mode = values[2].string else {
                    return .error(API.Error.invalidArgs, "\(API.setCategory) takes a category, options and a mode")
                }
                return reply(handlers.call(.setCategory(path: path, category: category, options: options, mode: mode), caller))
            }
        case (API.sessionInterface, API.deactivate) where !isManager:
            return expect("b") {
                guard let notify = arguments().first?.bool else {
                    return .error(API.Error.invalidArgs, "\(API.deactivate) takes notify_others, a boolean")
                }
                return reply(handlers.call(.deactivate(path: path, notifyOthers: notify), caller))
            }
        case (API.sessionInterface, API.close) where !isManager:
            return expect("") { reply(handlers.call(.close(path: path), caller)) }
        default:
            return .unknown
        }
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

    /// A fresh token for a new session: 128 random bits in hex.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()].map { word -> String in
            let hex = String(word as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
