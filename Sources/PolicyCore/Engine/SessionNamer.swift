/// Names the sessions of one decision as they are asked for (docs/CLI.md,
/// "Names"), and keeps every name it gave for the decision's `names`. Only
/// a decision where a session holds, ducks or silences another, or where
/// something happens, asks: naming every session of every decision cost a
/// tenth of a decision at a thousand streams (pw-policy-engine-bench).
struct SessionNamer {
    /// Every name given, for the decision.
    private(set) var names = DecisionNames()
    /// How many of the decision's sessions have each app name, counted at
    /// the first question.
    private var appCounts: [String: Int]?
    /// Per session index, once named; `isNamed` is the same, cheaper to test.
    private var given: [SessionName?] = []
    private var isNamed: [Bool] = []

    /// The name of `sessions[index]`.
    mutating func name(_ index: Int, among sessions: [WorkingSession]) -> SessionName {
        if given.isEmpty {
            given = Array(repeating: nil, count: sessions.count)
            isNamed = Array(repeating: false, count: sessions.count)
        }
        if isNamed[index], let name = given[index] { return name }
        let name = newName(sessions[index].key, app: sessions[index].appName, among: sessions, isOneOfThem: true)
        given[index] = name
        isNamed[index] = true
        return name
    }

    /// Names `sessions[index]` for the decision, if not yet: for every
    /// ducker of every ducked session, so the check is kept cheap.
    @inline(__always)
    mutating func include(_ index: Int, among sessions: [WorkingSession]) {
        if index < isNamed.count, isNamed[index] { return }
        _ = name(index, among: sessions)
    }

    /// The name of a session that is not among `sessions`: its streams are
    /// gone (vanished, or silenced without ever being active).
    mutating func name(_ key: SessionKey, app: String, among sessions: [WorkingSession]) -> SessionName {
        names.sessions[key] ?? newName(key, app: app, among: sessions, isOneOfThem: false)
    }

    /// Expects many names to be asked for (one per event).
    mutating func reserve(_ count: Int) {
        names.sessions.reserveCapacity(names.sessions.count + count)
    }

    private mutating func newName(_ key: SessionKey, app: String, among sessions: [WorkingSession],
                                  isOneOfThem: Bool) -> SessionName {
        let app = app.isEmpty ? SessionName.unknown.app : app
        if appCounts == nil {
            var counts: [String: Int] = [:]
            counts.reserveCapacity(sessions.count)
            // By index: a loop over the elements would copy each session.
            for index in sessions.indices { counts[sessions[index].appName, default: 0] += 1 }
            appCounts = counts
        }
        var name = SessionName(app: app)
        if (appCounts?[app] ?? 0) + (isOneOfThem ? 0 : 1) > 1 {
            // Rare: the category tells apart the sessions of one app; the
            // instance (the process) two copies of it in one category.
            let category = key.category
            let twin = sessions.contains { $0.key != key && $0.appName == app && $0.key.category == category }
            name.which = twin || category == nil ? [category, key.instance].compactMap { $0 }.joined(separator: ", ") : category
        }
        names.sessions[key] = name
        return name
    }

    /// The app of a stream an event names by id.
    mutating func nameStream(_ id: UInt32, app: String) {
        names.streams[id] = app
    }
}
