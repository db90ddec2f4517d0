import CSystemd
import Glibc
import PolicyCore

/// Follows whether the session is locked (docs/POLICY.md, "Screen lock"):
/// the screen savers on the session bus — `GetActive` when their name gets
/// an owner, then their `ActiveChanged(b)` from that owner — and logind's
/// `LockedHint` of the user's session on the system bus, read when logind
/// is there and followed through PropertiesChanged on the session's own
/// object. Reports the combined state whenever it changes. A source that is
/// absent says nothing; one that misbehaves (a reply of the wrong type, no
/// reply) is logged once and says nothing either. Everything happens on the
/// buses' loop.
public final class ScreenLockObserver {
    private let sessionBus: SessionBus
    private let systemBus: SessionBus?
    public let sources: [ScreenLockSource]
    private let log: (String) -> Void
    private let onChange: (ScreenLock) -> Void
    private var matches: [BusMatch] = []
    private var logindMatch: BusMatch?
    private var readings: [ScreenLockSource: ScreenLock.Reading] = [:]
    /// The unique name owning each watched bus name (logind's too).
    private var owners: [String: String] = [:]
    /// logind's object of the user's session, once `Id` was read.
    private var logindSessionPath: String?
    /// Sources whose misbehaviour was logged: once each, until their
    /// service gets a new owner.
    private var reported: Set<ScreenLockSource> = []
    public private(set) var state = ScreenLock.unknown

    /// `systemBus`: nil when there is none to reach; logind then says nothing.
    public init(sessionBus: SessionBus, systemBus: SessionBus?, sources: [ScreenLockSource],
                log: @escaping (String) -> Void, onChange: @escaping (ScreenLock) -> Void) {
        self.sessionBus = sessionBus; self.systemBus = systemBus; self.sources = sources
        self.log = log; self.onChange = onChange
    }

    deinit {
        logindMatch = nil
        matches = []
    }

    /// Subscribes, then reads every source (matches first: the daemon keeps
    /// order, so no change falls in between).
    public func start() -> Result<Void, BusCallError> {
        var names: [String] = []
        for source in sources {
            switch source.mechanism {
            case .screenSaver(let busName, _, let interface):
                if !names.contains(busName) {
                    names.append(busName)
                    let owner = subscribe(sessionBus, nameOwner: busName)
                    let changed = sessionBus.match(
                        rule: "type='signal',interface='\(interface)',member='\(ScreenLockSource.activeChanged)'") { [weak self] in
                        self?.activeChanged($0, source)
                    }
                    for result in [owner, changed] {
                        switch result {
                        case .success(let match): matches.append(match)
                        case .failure(let error): return .failure(error)
                        }
                    }
                }
            case .logind:
                guard let systemBus else {
                    record(source, .absent)
                    continue
                }
                switch subscribe(systemBus, nameOwner: ScreenLockSource.logindBusName) {
                case .success(let match): matches.append(match)
                case .failure(let error): return .failure(error)
                }
            }
        }
        for name in names { lookUpOwner(of: name, on: sessionBus) }
        if systemBus != nil, sources.contains(where: { $0.mechanism == .logind }) {
            lookUpOwner(of: ScreenLockSource.logindBusName, on: systemBus!)
        }
        report()
        return .success(())
    }

    // MARK: owners

    private func subscribe(_ bus: SessionBus, nameOwner busName: String) -> Result<BusMatch, BusCallError> {
        bus.match(rule: "type='signal',sender='\(SessionBus.daemon)',interface='\(SessionBus.daemon)',member='NameOwnerChanged',arg0='\(busName)'") {
            [weak self] signal in
            guard let self else { return }
            guard let body = signal.body, body.count == 3, let name = body[0].string, let owner = body[2].string else {
                return log("NameOwnerChanged: malformed signal \(String(describing: signal.body))")
            }
            if name == busName { ownerChanged(busName, to: owner) }
        }
    }

    private func lookUpOwner(of busName: String, on bus: SessionBus) {
        bus.callDaemon("GetNameOwner", arguments: [busName]) { [weak self] result in
            switch result {
            case .success(let body): self?.ownerChanged(busName, to: body.first?.string ?? "")
            // Nobody owns it (yet): NameOwnerChanged says when someone does.
            case .failure: self?.ownerChanged(busName, to: "")
            }
        }
    }

    private func ownerChanged(_ busName: String, to owner: String) {
        guard owners[busName] != owner || owner.isEmpty else { return }
        owners[busName] = owner.isEmpty ? nil : owner
        for source in sources where Self.busName(of: source) == busName {
            reported.remove(source)
            if owner.isEmpty {
                if source.mechanism == .logind {
                    logindSessionPath = nil
                    logindMatch = nil
                }
                record(source, .absent)
            } else {
                read(source)
            }
        }
    }

    static func busName(of source: ScreenLockSource) -> String {
        switch source.mechanism {
        case .screenSaver(let busName, _, _): busName
        case .logind: ScreenLockSource.logindBusName
        }
    }

    // MARK: screen savers

    private func read(_ source: ScreenLockSource) {
        switch source.mechanism {
        case .screenSaver(let busName, let paths, let interface):
            guard let owner = owners[busName] else { return record(source, .absent) }
            getActive(source, owner: owner, busName: busName, paths: paths[...], interface: interface)
        case .logind:
            readLogind(source)
        }
    }

    /// `GetActive` at each path in turn until one answers.
    private func getActive(_ source: ScreenLockSource, owner: String, busName: String, paths: ArraySlice<String>,
                           interface: String) {
        guard let path = paths.first else { return record(source, .absent) }
        sessionBus.call(destination: owner, path: path, interface: interface, member: ScreenLockSource.getActive) {
            [weak self] result in
            guard let self, owners[busName] == owner else { return }
            switch result {
            case .success(let body):
                record(source, body.first?.bool.map(ScreenLock.Reading.locked)
                    ?? .unusable("GetActive answered \(body), not a boolean"))
            case .failure(let error) where DoNotDisturbObserver.isNotThere(error):
                getActive(source, owner: owner, busName: busName, paths: paths.dropFirst(), interface: interface)
            case .failure(let error):
                record(source, .unusable("\(error)"))
            }
        }
    }

    private func activeChanged(_ signal: BusSignal, _ source: ScreenLockSource) {
        guard let sender = signal.sender, owners[Self.busName(of: source)] == sender else { return }
        guard let locked = signal.body?.first?.bool else {
            return record(source, .unusable("ActiveChanged carried \(String(describing: signal.body)), not a boolean"))
        }
        record(source, .locked(locked))
    }

    // MARK: logind

    /// The session's `Id` through the `auto` alias, then its own object
    /// (where PropertiesChanged is sent: never on the alias), then its
    /// `LockedHint`.
    private func readLogind(_ source: ScreenLockSource) {
        guard let systemBus, let owner = owners[ScreenLockSource.logindBusName] else { return record(source, .absent) }
        if let path = logindSessionPath { return getLockedHint(source, path: path, owner: owner) }
        systemBus.call(destination: owner, path: ScreenLockSource.logindAutoSession, interface: SessionBus.propertiesInterface,
                       member: "Get", arguments: [ScreenLockSource.logindSessionInterface, "Id"]) { [weak self] result in
            guard let self, owners[ScreenLockSource.logindBusName] == owner else { return }
            switch result {
            case .success(let body):
                guard let id = body.first?.string, let path = Self.sessionPath(id: id) else {
                    return record(source, .unusable("the session's Id is \(body), not a string"))
                }
                let rule = "type='signal',sender='\(owner)',path='\(path)',interface='\(SessionBus.propertiesInterface)',member='PropertiesChanged',arg0='\(ScreenLockSource.logindSessionInterface)'"
                switch systemBus.match(rule: rule, { [weak self] in self?.logindChanged($0, source) }) {
                case .success(let match): logindMatch = match
                case .failure(let error): return record(source, .unusable("\(error)"))
                }
                logindSessionPath = path
                getLockedHint(source, path: path, owner: owner)
            case .failure(let error) where DoNotDisturbObserver.isNotThere(error) || Self.isNoSession(error):
                // No session of this user (a machine without a seat): nothing to follow.
                record(source, .absent)
            case .failure(let error):
                record(source, .unusable("\(error)"))
            }
        }
    }

    private func getLockedHint(_ source: ScreenLockSource, path: String, owner: String) {
        systemBus?.call(destination: owner, path: path, interface: SessionBus.propertiesInterface, member: "Get",
                        arguments: [ScreenLockSource.logindSessionInterface, ScreenLockSource.logindLockedHint]) {
            [weak self] result in
            guard let self, owners[ScreenLockSource.logindBusName] == owner else { return }
            switch result {
            case .success(let body):
                record(source, body.first?.bool.map(ScreenLock.Reading.locked)
                    ?? .unusable("LockedHint is \(body), not a boolean"))
            case .failure(let error) where DoNotDisturbObserver.isNotThere(error):
                record(source, .absent)
            case .failure(let error):
                record(source, .unusable("\(error)"))
            }
        }
    }

    private func logindChanged(_ signal: BusSignal, _ source: ScreenLockSource) {
        guard let body = signal.body, body.count >= 2, let changed = body[1].stringDictionary else {
            return log("logind PropertiesChanged: malformed signal")
        }
        let invalidated = body.count >= 3 ? body[2].strings ?? [] : []
        if let value = changed[ScreenLockSource.logindLockedHint] {
            record(source, value.bool.map(ScreenLock.Reading.locked) ?? .unusable("LockedHint is \(value), not a boolean"))
        } else if invalidated.contains(ScreenLockSource.logindLockedHint), let path = logindSessionPath,
                  let owner = owners[ScreenLockSource.logindBusName] {
            getLockedHint(source, path: path, owner: owner)
        }
    }

    /// logind's object path of session `id` (`/org/freedesktop/login1/session/_32` for "2").
    static func sessionPath(id: String) -> String? {
        var encoded: UnsafeMutablePointer<CChar>?
        guard !id.isEmpty, sd_bus_path_encode("/org/freedesktop/login1/session", id, &encoded) >= 0, let encoded else {
            return nil
        }
        defer { free(encoded) }
        return String(cString: encoded)
    }

    /// logind's answer when the caller has no session to stand for.
    static func isNoSession(_ error: BusCallError) -> Bool {
        error.name == "org.freedesktop.login1.NoSessionForPID" || error.name == "org.freedesktop.login1.NoSuchSession"
    }

    // MARK: state

    private func record(_ source: ScreenLockSource, _ reading: ScreenLock.Reading) {
        readings[source] = reading
        if case .unusable(let why) = reading, reported.insert(source).inserted {
            log("the screen lock of \(source.name) (\(source.location)) is unusable: \(why); it is not followed while it is")
        }
        report()
    }

    private func report() {
        let current = ScreenLock.combine(sources, readings: readings)
        guard current != state else { return }
        state = current
        onChange(current)
    }
}
