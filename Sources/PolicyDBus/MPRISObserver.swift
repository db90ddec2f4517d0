import PolicyCore
import PolicyFiles

/// Watches the MPRIS players on a session bus — `org.mpris.MediaPlayer2.*`
/// names, their connection's process, `PlaybackStatus`, `Metadata`,
/// `Identity`, `CanPause`/`CanPlay` — and reports a `PlayerSet` whenever
/// it changed (docs/PLAYERS.md). Pause and Play go through it too.
///
/// A player is reported once its first queries are answered (or failed),
/// so a consumer never sees one half-filled; what could not be read stays
/// nil and is logged. Each player's PropertiesChanged are subscribed by its
/// unique name, so a player that floods the bus can be unsubscribed alone
/// and read by polling for a while (`FloodGuard`; docs/PLAYERS.md, "A
/// player that floods the bus"). Everything happens on the bus's loop.
public final class MPRISObserver {
    private let bus: SessionBus
    private let log: (String) -> Void
    private let onChange: (PlayerSet) -> Void
    private let flatpakInfo: (Int32) -> FlatpakInfo?
    private let clock: () -> Double
    /// Names never followed: pw-policy's own media-key proxy, which must
    /// never be a player pw-policy manages (docs/PLAYERS.md, "Media keys").
    private let ignoring: Set<String>
    private var matches: [BusMatch] = []
    /// Reads the players that flood while they are not listened to.
    private var pollTimer: (any BusLoopTimer)?
    /// Subscriptions dropped from inside their own signal: released on the
    /// loop's next turn, never while their callback runs.
    private var retired: [BusMatch] = []
    private var releaseTimer: (any BusLoopTimer)?

    private struct Entry {
        var player: MediaPlayer
        /// Queries not answered yet; the player is reported at 0.
        var pending: Int
        /// Tells replies meant for a previous owner of the name.
        var generation: Int
        /// Its PropertiesChanged, subscribed by its unique name; nil while
        /// it floods.
        var listening: BusMatch?
        var flood = FloodGuard()
    }
    private var entries: [String: Entry] = [:]
    private var generations = 0
    private var lastReported: PlayerSet?

    /// `flatpakInfo` reads a process's Flatpak sandbox (tests replace it);
    /// `clock` is monotonic seconds.
    public init(bus: SessionBus, log: @escaping (String) -> Void,
                flatpakInfo: @escaping (Int32) -> FlatpakInfo? = { FlatpakInfo.read(pid: $0) },
                clock: @escaping () -> Double = { MonotonicClock.now },
                ignoring: Set<String> = [], onChange: @escaping (PlayerSet) -> Void) {
        self.ignoring = ignoring
        self.bus = bus
        self.log = log
        self.flatpakInfo = flatpakInfo
        self.clock = clock
        self.onChange = onChange
        pollTimer = bus.makeTimer { [weak self] in self?.pollFlooders() }
        releaseTimer = bus.makeTimer { [weak self] in self?.retired = [] }
    }

    /// Its timer and subscriptions go before the bus (and the loop the bus
    /// may be the last to hold).
    deinit {
        pollTimer = nil
        releaseTimer = nil
        entries = [:]
        retired = []
        matches = []
    }

    /// The players reported so far.
    public var players: PlayerSet { lastReported ?? .empty }

    /// Subscribes, then lists the players already there. The match is
    /// queued before ListNames, and the daemon keeps order, so a player
    /// appearing in between is seen by one or the other (or both: tracking
    /// the same owner twice is a no-op).
    public func start() -> Result<Void, BusCallError> {
        let owners = bus.match(rule: "type='signal',sender='\(SessionBus.daemon)',interface='\(SessionBus.daemon)',"
                               + "member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'") { [weak self] signal in
            self?.nameOwnerChanged(signal)
        }
        switch owners {
        case .success(let owners): matches = [owners]
        case .failure(let error): return .failure(error)
        }
        bus.callDaemon("ListNames") { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let body):
                guard let names = body.first?.strings else { return log("ListNames: unexpected reply \(body)") }
                for name in names.sorted() where MediaPlayer.isPlayerBusName(name) && !ignoring.contains(name) {
                    lookUpOwner(of: name)
                }
                report()
            case .failure(let error):
                log("ListNames failed: \(error)")
            }
        }
        return .success(())
    }

    private func lookUpOwner(of name: String) {
        bus.callDaemon("GetNameOwner", arguments: [name]) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let body):
                guard let owner = body.first?.string else { return log("GetNameOwner \(name): unexpected reply \(body)") }
                track(name, owner: owner)
            case .failure(let error):
                // Gone between ListNames and now: NameOwnerChanged said so too.
                log("player \(name): no owner (\(error))")
            }
        }
    }

    private func nameOwnerChanged(_ signal: BusSignal) {
        guard let body = signal.body, body.count == 3, let name = body[0].string,
              let newOwner = body[2].string else {
            return log("NameOwnerChanged: malformed signal \(String(describing: signal.body))")
        }
        guard MediaPlayer.isPlayerBusName(name), !ignoring.contains(name) else { return }
        if newOwner.isEmpty {
            if entries.removeValue(forKey: name) != nil { log("player \(name) left") }
            report()
        } else {
            track(name, owner: newOwner)
        }
    }

    /// Starts following `name` as owned by `owner`: its process, then both
    /// interfaces' properties.
    private func track(_ name: String, owner: String) {
        if let entry = entries[name], entry.player.uniqueName == owner { return }
        generations += 1
        let generation = generations
        entries[name] = Entry(player: MediaPlayer(busName: name, uniqueName: owner), pending: 3, generation: generation)
        log("player \(name) appeared (\(owner))")
        // Before the reads: no change falls between a read and the subscription.
        listen(to: name, owner: owner)
        bus.callDaemon("GetConnectionUnixProcessID", arguments: [owner]) { [weak self] result in
            guard let self else { return }
            update(name, generation: generation, answering: true) { player in
                switch result {
                case .success(let body):
                    guard let pid = body.first?.uint32.flatMap({ Int32(exactly: $0) }) else {
                        return log("player \(name): unexpected process id \(body)")
                    }
                    player.pid = pid
                    if let info = flatpakInfo(pid) {
                        player.flatpakAppID = info.appID
                        player.flatpakInstanceID = info.instanceID
                    }
                case .failure(let error):
                    log("player \(name): no process id (\(error))")
                }
            }
        }
        for interface in [MPRISProperties.rootInterface, MPRISProperties.playerInterface] {
            getAll(name, owner: owner, interface: interface, generation: generation)
        }
    }

    /// Subscribes to the PropertiesChanged of `owner` alone.
    private func listen(to name: String, owner: String) {
        let rule = "type='signal',sender='\(owner)',interface='\(SessionBus.propertiesInterface)',"
            + "member='PropertiesChanged',path='\(MPRISProperties.objectPath)'"
        switch bus.match(rule: rule, { [weak self] signal in self?.propertiesChanged(signal) }) {
        case .success(let match): entries[name]?.listening = match
        case .failure(let error): log("player \(name): cannot follow its changes (\(error))")
        }
    }

    /// `answering`: one of the first reads (the player is reported once
    /// they are all answered); a re-read changes the player in place.
    private func getAll(_ name: String, owner: String, interface: String, generation: Int, answering: Bool = true) {
        bus.call(destination: owner, path: MPRISProperties.objectPath, interface: SessionBus.propertiesInterface,
                 member: "GetAll", arguments: [interface]) { [weak self] result in
            guard let self else { return }
            update(name, generation: generation, answering: answering) { player in
                switch result {
                case .success(let body):
                    guard let properties = body.first?.stringDictionary else {
                        return log("player \(name): GetAll \(interface): unexpected reply \(body)")
                    }
                    apply(properties, of: interface, to: &player)
                case .failure(let error):
                    log("player \(name): GetAll \(interface) failed (\(error))")
                }
            }
        }
    }

    private func propertiesChanged(_ signal: BusSignal) {
        guard let sender = signal.sender else { return }
        let names = entries.filter { $0.value.player.uniqueName == sender }.keys.sorted()
        guard !names.isEmpty else { return }
        guard let body = signal.body, body.count >= 2, let interface = body[0].string,
              let changed = body[1].stringDictionary else {
            return log("PropertiesChanged from \(sender): malformed signal \(String(describing: signal.body))")
        }
        let invalidated = body.count >= 3 ? body[2].strings ?? [] : []
        let now = clock()
        for name in names {
            guard entries[name]?.listening != nil else { continue }
            if entries[name]!.flood.signal(at: now) {
                quiet(name)
                continue
            }
            guard let entry = entries[name] else { continue }
            update(name, generation: entry.generation, answering: false) { player in
                apply(changed, of: interface, to: &player)
                MPRISProperties.invalidate(invalidated, of: interface, in: &player)
            }
            if !invalidated.isEmpty, [MPRISProperties.rootInterface, MPRISProperties.playerInterface].contains(interface) {
                entries[name]?.pending += 1
                getAll(name, owner: sender, interface: interface, generation: entry.generation)
            }
        }
    }

    /// A player flooding the bus: unsubscribed (the daemon stops routing
    /// its signals here), read once a second until it is listened to again.
    private func quiet(_ name: String) {
        guard let entry = entries[name], let until = entry.flood.quietUntil else { return }
        if let match = entry.listening {
            retired.append(match)
            releaseTimer?.schedule(after: 0)
        }
        entries[name]?.listening = nil
        log("player \(name) sends more than \(FloodGuard.limit) PropertiesChanged a second: "
            + "read once a second for \(Int((until - clock()).rounded())) s instead")
        pollTimer?.schedule(after: 1)
    }

    private func pollFlooders() {
        let now = clock()
        var anyQuiet = false
        for name in entries.keys.sorted() {
            guard let entry = entries[name], entry.flood.isQuieted else { continue }
            if entries[name]!.flood.listenAgain(at: now) {
                listen(to: name, owner: entry.player.uniqueName)
                log("player \(name): listening to its changes again")
                getAll(name, owner: entry.player.uniqueName, interface: MPRISProperties.rootInterface,
                       generation: entry.generation, answering: false)
            } else {
                anyQuiet = true
            }
            getAll(name, owner: entry.player.uniqueName, interface: MPRISProperties.playerInterface,
                   generation: entry.generation, answering: false)
        }
        if anyQuiet { pollTimer?.schedule(after: 1) }
    }

    private func apply(_ properties: [String: BusValue], of interface: String, to player: inout MediaPlayer) {
        let malformed = MPRISProperties.apply(properties, of: interface, to: &player)
        if !malformed.isEmpty {
            log("player \(player.busName): ignored properties of the wrong type: \(malformed.joined(separator: ", "))")
        }
    }

    /// Changes a tracked player, unless `generation` is an owner's that is gone.
    private func update(_ name: String, generation: Int, answering: Bool, _ change: (inout MediaPlayer) -> Void) {
        guard var entry = entries[name], entry.generation == generation else { return }
        change(&entry.player)
        if answering { entry.pending -= 1 }
        entries[name] = entry
        report()
    }

    private func report() {
        let current = PlayerSet(entries.values.filter { $0.pending <= 0 }.map(\.player))
        guard current != lastReported else { return }
        lastReported = current
        onChange(current)
    }

    // MARK: commands

    /// Carries out a command the core decided (`AgentEffect.player`). A
    /// failure is logged by the call; the player's status (still Playing)
    /// tells the next reconcile, and the hold stays.
    public func perform(_ command: PlayerCommand) {
        switch command {
        case .pause(let name): pause(name) { _ in }
        case .play(let name): play(name) { _ in }
        case .mediaKey(let key, let name): send(key.rawValue, to: name) { _ in }
        }
    }

    /// Asks the player to pause; `completion` hears whether it answered.
    public func pause(_ busName: String, completion: @escaping (Result<Void, BusCallError>) -> Void) {
        command("Pause", busName, completion)
    }

    /// Asks the player to play; `completion` hears whether it answered.
    public func play(_ busName: String, completion: @escaping (Result<Void, BusCallError>) -> Void) {
        command("Play", busName, completion)
    }

    /// Calls a `org.mpris.MediaPlayer2.Player` method with no arguments
    /// (a media key forwarded: `PlayPause`, `Next`…).
    public func send(_ member: String, to busName: String, completion: @escaping (Result<Void, BusCallError>) -> Void) {
        command(member, busName, completion)
    }

    /// Sent to the owner we know, so a command meant for a player that
    /// left never reaches the next owner of its name.
    private func command(_ member: String, _ busName: String, _ completion: @escaping (Result<Void, BusCallError>) -> Void) {
        let destination = entries[busName]?.player.uniqueName ?? busName
        bus.call(destination: destination, path: MPRISProperties.objectPath, interface: MPRISProperties.playerInterface,
                 member: member) { [weak self] result in
            if case .failure(let error) = result { self?.log(Self.failure(of: member, to: busName, error)) }
            completion(result.map { _ in () })
        }
    }

    /// The log line of a command that failed.
    static func failure(of member: String, to busName: String, _ error: BusCallError) -> String {
        error.peerLeft ? "player \(busName) left the bus before it answered \(member)"
                       : "player \(busName): \(member) failed (\(error))"
    }
}
