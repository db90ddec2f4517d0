import PolicyCore

/// Follows the desktop's Do Not Disturb mechanisms on the session bus
/// (docs/POLICY.md, "Do Not Disturb"): for a D-Bus property, the owner of
/// its bus name, the property's value when the owner appears, and its
/// PropertiesChanged; for a GSettings key, dconf's change notices and the
/// key read with `gsettings` (`GSettingsReader`). Reports the combined
/// state whenever it changes. A source that is absent says nothing; one
/// that misbehaves (a value of the wrong type, no reply, flapping:
/// `FlapGuard`) is logged once and says nothing either while it does.
/// Everything happens on the bus's loop.
public final class DoNotDisturbObserver {
    private let bus: SessionBus
    public let sources: [DoNotDisturbSource]
    private let log: (String) -> Void
    private let gsettings: GSettingsReader
    private var matches: [BusMatch] = []
    /// What each source said last, whether it flaps, what they say together.
    private var readings: DoNotDisturbReadings!
    /// The unique name owning each watched bus name.
    private var owners: [String: String] = [:]
    public var state: DoNotDisturb { readings.state }

    /// dconf's writer announces every change on the bus (its D-Bus API).
    static let dconfWriterInterface = "ca.desrt.dconf.Writer"

    /// `clock`: monotonic seconds (flapping is told by the time between changes).
    public init(bus: SessionBus, loop: any BusLoop, clock: @escaping () -> Double, sources: [DoNotDisturbSource],
                gsettings: GSettingsReader, log: @escaping (String) -> Void, onChange: @escaping (DoNotDisturb) -> Void) {
        self.bus = bus; self.sources = sources; self.gsettings = gsettings; self.log = log
        readings = DoNotDisturbReadings(sources: sources, loop: loop, clock: clock, log: log, onChange: onChange)
    }

    /// Its timer and subscriptions go before the bus (and the loop the bus
    /// may be the last to hold).
    deinit {
        readings = nil
        matches = []
    }

    private var busNames: [String] {
        var names: [String] = []
        for case .busProperty(let busName, _, _, _) in sources.map(\.mechanism) where !names.contains(busName) {
            names.append(busName)
        }
        return names
    }

    /// Subscribes, then reads every source. Matches go out before the
    /// reads, and the daemon keeps order: no change falls in between.
    public func start() -> Result<Void, BusCallError> {
        var rules: [(String, (BusSignal) -> Void)] = []
        for busName in busNames {
            rules.append(("type='signal',sender='\(SessionBus.daemon)',interface='\(SessionBus.daemon)',member='NameOwnerChanged',arg0='\(busName)'",
                          { [weak self] in self?.nameOwnerChanged($0) }))
        }
        var paths: [String] = []
        for case .busProperty(_, let path, _, _) in sources.map(\.mechanism) where !paths.contains(path) {
            paths.append(path)
            rules.append(("type='signal',interface='\(SessionBus.propertiesInterface)',member='PropertiesChanged',path='\(path)'",
                          { [weak self] in self?.propertiesChanged($0) }))
        }
        if sources.contains(where: { if case .gsettings = $0.mechanism { true } else { false } }) {
            rules.append(("type='signal',interface='\(Self.dconfWriterInterface)',member='Notify'",
                          { [weak self] in self?.dconfChanged($0) }))
        }
        for (rule, handler) in rules {
            switch bus.match(rule: rule, handler) {
            case .success(let match): matches.append(match)
            case .failure(let error): return .failure(error)
            }
        }
        for busName in busNames { lookUpOwner(of: busName) }
        for source in sources { if case .gsettings = source.mechanism { read(source) } }
        return .success(())
    }

    // MARK: D-Bus properties

    private func lookUpOwner(of busName: String) {
        bus.callDaemon("GetNameOwner", arguments: [busName]) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let body):
                guard let owner = body.first?.string else { return log("GetNameOwner \(busName): unexpected reply \(body)") }
                ownerChanged(busName, to: owner)
            case .failure:
                // Nobody owns it (yet): NameOwnerChanged says when someone does.
                ownerChanged(busName, to: "")
            }
        }
    }

    private func nameOwnerChanged(_ signal: BusSignal) {
        guard let body = signal.body, body.count == 3, let name = body[0].string, let newOwner = body[2].string else {
            return log("NameOwnerChanged: malformed signal \(String(describing: signal.body))")
        }
        guard busNames.contains(name) else { return }
        ownerChanged(name, to: newOwner)
    }

    private func ownerChanged(_ busName: String, to owner: String) {
        guard owners[busName] != owner || owner.isEmpty else { return }
        owners[busName] = owner.isEmpty ? nil : owner
        for source in sources {
            guard case .busProperty(let name, _, _, _) = source.mechanism, name == busName else { continue }
            readings.restart(source)
            if owner.isEmpty {
                record(source, .absent)
            } else {
                read(source)
            }
        }
    }

    private func propertiesChanged(_ signal: BusSignal) {
        guard let sender = signal.sender, owners.values.contains(sender) else { return }
        guard let body = signal.body, body.count >= 2, let interface = body[0].string,
              let changed = body[1].stringDictionary else {
            return log("PropertiesChanged from \(sender): malformed signal")
        }
        let invalidated = body.count >= 3 ? body[2].strings ?? [] : []
        for source in sources {
            guard case .busProperty(let busName, let path, let sourceInterface, let property) = source.mechanism,
                  owners[busName] == sender, path == signal.path, sourceInterface == interface else { continue }
            if let value = changed[property] {
                record(source, Self.reading(of: value))
            } else if invalidated.contains(property) {
                read(source)
            }
        }
    }

    /// A property's value as the core compares it: booleans as true/false,
    /// integers in decimal, strings as they are.
    static func reading(of value: BusValue) -> DoNotDisturb.Reading {
        switch value.unwrapped {
        case .bool(let bool): return .value(bool ? "true" : "false")
        case .string(let string): return .value(string)
        case .uint64(let big): return .value(String(big))
        default:
            if let integer = value.int64 { return .value(String(integer)) }
            return .unusable("a value that is not a boolean, an integer or a string: \(value)")
        }
    }

    // MARK: reading

    private func read(_ source: DoNotDisturbSource) {
        switch source.mechanism {
        case .busProperty(let busName, let path, let interface, let property):
            guard let owner = owners[busName] else { return record(source, .absent) }
            bus.call(destination: owner, path: path, interface: SessionBus.propertiesInterface, member: "Get",
                     arguments: [interface, property]) { [weak self] result in
                guard let self, owners[busName] == owner else { return }
                switch result {
                case .success(let body):
                    record(source, body.first.map(Self.reading(of:)) ?? .unusable("an empty reply"))
                case .failure(let error) where Self.isNotThere(error):
                    // Another desktop's notification server holds the name.
                    record(source, .absent)
                case .failure(let error):
                    record(source, .unusable("\(error)"))
                }
            }
        case .gsettings(let schema, let key):
            gsettings.read(schema: schema, key: key) { [weak self] reading in self?.record(source, reading) }
        }
    }

    /// The errors of a service that left, or has no such property: not
    /// this desktop's mechanism, not a fault.
    static func isNotThere(_ error: BusCallError) -> Bool {
        error.peerLeft
            || ["org.freedesktop.DBus.Error.UnknownProperty", "org.freedesktop.DBus.Error.UnknownInterface",
                "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.InvalidArgs"].contains(error.name)
    }

    // MARK: GSettings

    /// dconf's `Notify(prefix, keys, tag)`: the keys under the prefix that
    /// changed ("" for the prefix itself, which may be a whole directory).
    private func dconfChanged(_ signal: BusSignal) {
        guard let body = signal.body, body.count >= 2, let prefix = body[0].string, let keys = body[1].strings else {
            return log("dconf Notify: malformed signal")
        }
        let changed = keys.map { prefix + $0 }
        for source in sources {
            guard case .gsettings(let schema, let key) = source.mechanism else { continue }
            let path = GSettingsReader.dconfPath(schema: schema, key: key)
            if changed.contains(where: { $0 == path || ($0.hasSuffix("/") && path.hasPrefix($0)) }) { read(source) }
        }
    }

    private func record(_ source: DoNotDisturbSource, _ reading: DoNotDisturb.Reading) {
        readings.record(source, reading)
    }
}

/// What each Do Not Disturb source said last, whether it flaps
/// (`FlapGuard`: a flapping source says nothing until it kept still for
/// the guard's window, when a timer on the loop looks again), and what they
/// say together, reported when that changes. On any `BusLoop`:
/// `DoNotDisturbReadingsTests` runs it on the embedded loop.
final class DoNotDisturbReadings {
    let sources: [DoNotDisturbSource]
    private let clock: () -> Double
    private let log: (String) -> Void
    private let onChange: (DoNotDisturb) -> Void
    private var readings: [DoNotDisturbSource: DoNotDisturb.Reading] = [:]
    private var flapGuards: [DoNotDisturbSource: FlapGuard] = [:]
    private var settleTimer: (any BusLoopTimer)?
    /// Sources whose misbehaviour was logged: once each, until a new owner
    /// of its bus name (a restarted service) gets a fresh start.
    private var reported: Set<DoNotDisturbSource> = []
    private(set) var state = DoNotDisturb.unknown

    /// `clock`: monotonic seconds (flapping is told by the time between changes).
    init(sources: [DoNotDisturbSource], loop: any BusLoop, clock: @escaping () -> Double,
         log: @escaping (String) -> Void, onChange: @escaping (DoNotDisturb) -> Void) {
        self.sources = sources; self.clock = clock; self.log = log; self.onChange = onChange
        settleTimer = loop.busTimer { [weak self] in self?.settleFlapping() }
    }

    /// A new owner of the source's bus name: a fresh start.
    func restart(_ source: DoNotDisturbSource) {
        reported.remove(source)
        flapGuards[source] = nil
    }

    func record(_ source: DoNotDisturbSource, _ reading: DoNotDisturb.Reading) {
        let previous = readings[source]
        readings[source] = reading
        if case .value = reading, case .value = previous, previous != reading {
            let now = clock()
            flapGuards[source, default: FlapGuard()].changed(at: now)
            if let again = flapGuards[source]?.trustedAgainAt { settleTimer?.schedule(after: max(again - now, 0)) }
        }
        if case .unusable(let why) = effectiveReading(source) {
            misbehaves(source, why)
        }
        report()
    }

    private func effectiveReading(_ source: DoNotDisturbSource) -> DoNotDisturb.Reading? {
        guard let guardState = flapGuards[source], guardState.isFlapping else { return readings[source] }
        return .unusable("flapping: more than \(guardState.limit) changes within \(Int(guardState.window)) s")
    }

    private func misbehaves(_ source: DoNotDisturbSource, _ why: String) {
        guard reported.insert(source).inserted else { return }
        log("Do Not Disturb of \(source.name) (\(source.location)) is unusable: \(why); it is not followed while it is")
    }

    private func settleFlapping() {
        let now = clock()
        var next: Double?
        for source in flapGuards.keys.sorted(by: { $0.name < $1.name }) {
            _ = flapGuards[source]?.settle(at: now)
            if let again = flapGuards[source]?.trustedAgainAt { next = min(next ?? again, again) }
        }
        if let next { settleTimer?.schedule(after: max(next - now, 0)) }
        report()
    }

    private func report() {
        var effective: [DoNotDisturbSource: DoNotDisturb.Reading] = [:]
        for source in sources { effective[source] = effectiveReading(source) }
        let current = DoNotDisturb.combine(sources, readings: effective)
        guard current != state else { return }
        state = current
        onChange(current)
    }
}
