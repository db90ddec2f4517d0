import Testing
@testable import PolicyCore

/// The calls of the audio-session service as the core checks them
/// (docs/API.md, "Safe against its callers"): arguments, ownership, limits,
/// a flooding caller, callers leaving.
private typealias api = AudioSessionAPI

@Suite struct AudioSessionTableTests {
    typealias Table = AudioSessionTable

    struct CallCase: CustomTestStringConvertible, Sendable {
        var name: String
        var call: Table.Call
        /// nil: accepted; else the D-Bus error's name and a part of its message.
        var error: (name: String, says: String)?
        var testDescription: String { name }
    }

    /// One session of ":1.1" exists (path …/session/1) when each call is made by ":1.1".
    static let callCases: [CallCase] = [
        CallCase(name: "a game", call: .create(category: "ambient", options: [], mode: "")),
        CallCase(name: "a prompt", call: .create(category: "playback", options: ["mix-with-others", "duck-others"], mode: "default")),
        CallCase(name: "a book", call: .create(category: "playback", options: [], mode: "spoken-audio")),
        CallCase(name: "an unknown category", call: .create(category: "musik", options: [], mode: ""),
                 error: (api.Error.invalidArgs, "'musik' is not a category; expected one of: ambient, solo-ambient")),
        CallCase(name: "no category", call: .create(category: "", options: [], mode: ""),
                 error: (api.Error.invalidArgs, "'' is not a category")),
        CallCase(name: "a category spelt loosely", call: .create(category: "Playback", options: [], mode: ""),
                 error: (api.Error.invalidArgs, "'Playback' is not a category")),
        CallCase(name: "an unknown option", call: .create(category: "playback", options: ["duck"], mode: ""),
                 error: (api.Error.invalidArgs, "'duck' is not an option; expected any of: mix-with-others, duck-others")),
        CallCase(name: "an unknown mode", call: .create(category: "playback", options: [], mode: "loud"),
                 error: (api.Error.invalidArgs, "'loud' is not a mode; expected default or spoken-audio (or empty)")),
        CallCase(name: "its own session changed", call: .setCategory(path: api.path(of: 1), category: "solo-ambient", options: [], mode: "")),
        CallCase(name: "its own session with a bad option", call: .setCategory(path: api.path(of: 1), category: "playback", options: ["x"], mode: ""),
                 error: (api.Error.invalidArgs, "'x' is not an option")),
        CallCase(name: "a session that is not there", call: .setCategory(path: api.path(of: 9), category: "playback", options: [], mode: ""),
                 error: (api.Error.unknownObject, "no audio session /org/pwpolicy/AudioSession1/session/9")),
        CallCase(name: "a path that is no session", call: .deactivate(path: "/org/pwpolicy/AudioSession1/session/01", notifyOthers: true),
                 error: (api.Error.unknownObject, "no audio session")),
        CallCase(name: "its deactivation", call: .deactivate(path: api.path(of: 1), notifyOthers: true)),
        CallCase(name: "its close", call: .close(path: api.path(of: 1))),
    ]

    @Test(arguments: callCases)
    func callsAreCheckedAndAnswered(_ test: CallCase) {
        var table = Table()
        #expect(table.handle(.create(category: "playback", options: [], mode: ""), from: ":1.1", token: "t1", now: 0)
                == .created(api.path(of: 1)))
        let before = table
        let reply = table.handle(test.call, from: ":1.1", token: "t2", now: 1)
        print("audio session call \(test.name): \(reply)")
        if let error = test.error {
            guard case .error(let name, let message) = reply else {
                Issue.record("accepted: \(reply)")
                return
            }
            #expect(name == error.name)
            #expect(message.contains(error.says), "\(message)")
            #expect(table.sessions == before.sessions, "a refused call changes nothing")
        } else {
            #expect(!reply.isError)
        }
    }

    @Test func aCallerChangesOnlyItsOwnSessions() {
        var table = Table()
        _ = table.handle(.create(category: "playback", options: [], mode: ""), from: ":1.1", token: "a", now: 0)
        let before = table.sessions
        for call: Table.Call in [.setCategory(path: api.path(of: 1), category: "ambient", options: [], mode: ""),
                                 .deactivate(path: api.path(of: 1), notifyOthers: true), .close(path: api.path(of: 1))] {
            let reply = table.handle(call, from: ":1.2", token: "b", now: 1)
            print("another caller's \(call): \(reply)")
            #expect(reply == .error(name: api.Error.accessDenied,
                                    message: "/org/pwpolicy/AudioSession1/session/1 belongs to another connection; a caller reads and changes only its own sessions"))
        }
        #expect(table.sessions == before)
        #expect(table.owners.keys.sorted() == [":1.1"], "a refused caller is not an owner")
    }

    @Test func sessionsAreBoundedPerCallerAndInAll() {
        var table = Table()
        for index in 0..<api.sessionsPerCaller {
            #expect(!table.handle(.create(category: "playback", options: [], mode: ""), from: ":1.1", token: "t\(index)",
                                  now: Double(index)).isError)
        }
        let refused = table.handle(.create(category: "playback", options: [], mode: ""), from: ":1.1", token: "x", now: 20)
        print("session \(api.sessionsPerCaller + 1) of one caller: \(refused)")
        #expect(refused == .error(name: api.Error.limitsExceeded,
                                  message: "a connection may hold at most 16 sessions; close one first"))
        #expect(!table.handle(.close(path: api.path(of: 3)), from: ":1.1", token: "", now: 21).isError)
        #expect(table.handle(.create(category: "playback", options: [], mode: ""), from: ":1.1", token: "y", now: 22)
                == .created(api.path(of: 17)), "ids are never reused while the agent runs")
        // Across callers: at most sessionsInAll.
        var all = Table()
        var made = 0
        for caller in 0..<40 {
            for _ in 0..<api.sessionsPerCaller where !all.handle(.create(category: "ambient", options: [], mode: ""),
                                                                 from: ":2.\(caller)", token: "t", now: Double(made) * 0.02).isError {
                made += 1
            }
        }
        print("sessions made by 40 callers: \(made)")
        #expect(made == api.sessionsInAll)
    }

    @Test func aCallerThatFloodsIsRefusedForAWhileAndLoggedOnce() {
        var table = Table()
        _ = table.handle(.create(category: "playback", options: [], mode: ""), from: ":1.1", token: "a", now: 0)
        var refused = 0, logged = 0
        // 150 calls within half a second.
        for index in 0..<150 {
            let reply = table.handle(.setCategory(path: api.path(of: 1), category: index % 2 == 0 ? "ambient" : "playback",
                                                  options: [], mode: ""), from: ":1.1", token: "", now: 0.001 + Double(index) * 0.003)
            switch reply {
            case .flooding(let name, _, let log):
                #expect(name == api.Error.limitsExceeded)
                print("flood: \(log)")
                logged += 1
                refused += 1
            case .error(let name, let message):
                #expect(name == api.Error.limitsExceeded && message.hasPrefix("more than 100 calls a second"), "\(message)")
                refused += 1
            default: break
            }
        }
        print("of 150 calls in 0.45 s: \(refused) refused, logged \(logged) time(s)")
        // The create and 99 of them are the first 100 calls of the second.
        #expect(refused == 51 && logged == 1)
        // Another caller is not held back; the flooder is heard again after 10 s.
        #expect(!table.handle(.create(category: "ambient", options: [], mode: ""), from: ":1.2", token: "b", now: 1).isError)
        #expect(table.handle(.close(path: api.path(of: 1)), from: ":1.1", token: "", now: 5).isError)
        #expect(!table.handle(.close(path: api.path(of: 1)), from: ":1.1", token: "", now: 11).isError)
        // A caller with no session that floods is refused too.
        var stranger = Table()
        let replies = (0..<120).map { stranger.handle(.close(path: api.path(of: 5)), from: ":1.9", token: "", now: Double($0) * 0.001) }
        #expect(replies.contains { if case .flooding = $0 { true } else { false } })
    }

    @Test func anOwnerLeavingEndsItsSessionsOnly() {
        var table = Table()
        _ = table.handle(.create(category: "playback", options: [], mode: ""), from: ":1.1", token: "a", now: 0)
        _ = table.handle(.create(category: "ambient", options: [], mode: ""), from: ":1.1", token: "b", now: 0)
        _ = table.handle(.create(category: "record", options: [], mode: ""), from: ":1.2", token: "c", now: 0)
        table.identified(":1.1", pid: 4242, flatpakAppID: nil)
        #expect(table.owners[":1.1"]?.pid == 4242)
        #expect(table.ownerLeft(":1.1") == [api.path(of: 1), api.path(of: 2)])
        #expect(table.sessions.keys.sorted() == [3])
        #expect(table.owners.keys.sorted() == [":1.2"])
    }

    /// A deactivation records what still runs, stays while nothing new
    /// starts, and ends when a stream of the session starts after it.
    @Test func aDeactivationLastsUntilTheSessionPlaysAgain() {
        var table = Table()
        _ = table.handle(.create(category: "play-and-record", options: [], mode: ""), from: ":1.1", token: "a", now: 0)
        _ = table.handle(.deactivate(path: api.path(of: 1), notifyOthers: true), from: ":1.1", token: "", now: 1)
        #expect(table.followDeactivations(running: [1: [40]]) == [1], "its call stream still closing")
        #expect(table.followDeactivations(running: [:]) == [1])
        #expect(table.followDeactivations(running: [:]) == [1])
        #expect(table.followDeactivations(running: [1: [40]]) == [], "a stream that starts again: active again")
        #expect(table.sessions[1]?.deactivation == nil)
        _ = table.handle(.deactivate(path: api.path(of: 1), notifyOthers: false), from: ":1.1", token: "", now: 2)
        #expect(table.followDeactivations(running: [:]) == [], "without notify-others the debounce stands")
        #expect(table.sessions[1]?.deactivation?.notifyOthers == false)
    }

    @Test func pathsAndIDs() {
        #expect(api.path(of: 12) == "/org/pwpolicy/AudioSession1/session/12")
        for (path, id) in [("/org/pwpolicy/AudioSession1/session/12", UInt32(12)), ("/org/pwpolicy/AudioSession1/session/0", nil),
                           ("/org/pwpolicy/AudioSession1/session/", nil), ("/org/pwpolicy/AudioSession1/session/1/x", nil),
                           ("/org/pwpolicy/AudioSession1", nil), ("/org/pwpolicy/AudioSession1/session/99999999999", nil)] {
            #expect(api.id(of: path) == id, "\(path)")
        }
    }
}
