import Foundation
import PolicyCore
import Testing
import PolicyTestSupport

/// The app behind a stream, as the desktop knows it
/// (docs/CLASSIFICATION.md, "App knowledge"), on the real agent: the
/// sandbox's data directories hold real desktop entries copied from Debian
/// packages (Tests/PolicyCoreTests/Corpus/desktop-entries), and the streams
/// are played by copies of pw-cat named like the apps, with no role and no
/// name the properties could go by, some with a game launcher's mark in their
/// environment. The agent reads /proc for them (the daemon's
/// `pipewire.sec.pid` of a native client) and finds the entry by the program.
@Suite(.serialized)
struct AppKnowledgeAgentTests {
    static let entries = Sandbox.repositoryRoot + "/Tests/PolicyCoreTests/Corpus/desktop-entries"

    /// A directory outside the sandbox with `share/applications` holding
    /// `files`, and an empty data home: the agent searches only those.
    final class DesktopData {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pw-policy-desktop-\(UUID().uuidString)").path
        init(_ files: [String]) throws {
            let applications = root + "/share/applications"
            try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true)
            for file in files {
                try FileManager.default.copyItem(atPath: AppKnowledgeAgentTests.entries + "/" + file, toPath: applications + "/" + file)
            }
        }
        var environment: [String: String] { ["XDG_DATA_DIRS": root + "/share", "XDG_DATA_HOME": root + "/home"] }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    /// Plays the scene's tone as `program` (a copy of pw-cat), under the
    /// media.name "<program>.wav", with no media.role.
    static func play(as program: String, in scene: AgentScene, environment: [String: String] = [:]) throws -> ChildProcess {
        let bin = scene.sandbox.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let path = bin + "/" + program
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.copyItem(atPath: try RealClient.path(of: "pw-cat", package: "pipewire-bin"), toPath: path)
        }
        let file = scene.sandbox.path("\(program).wav")
        if !FileManager.default.fileExists(atPath: file) { symlink(scene.tone, file) }
        let stderr = scene.sandbox.path("\(program).stderr")
        let player = try scene.sandbox.spawn([path, "--playback", file],
                                             extraEnvironment: environment.merging(["PIPEWIRE_PROPS": "{ media.role=null }"]) { $1 },
                                             stderr: stderr)
        guard scene.client.wait(until: { _ in scene.stream(program) != nil }) else {
            let said = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
            throw SceneError.streamDidNotAppear(program, player: (player.isRunning ? "still running" : "exited with \(player.exitStatus.map(String.init) ?? "?")")
                                                    + "; its stderr: \(said.isEmpty ? "empty" : said)")
        }
        return player
    }

    @Test(arguments: [
        ("retroarch", "retroarch.desktop", "solo-ambient", "desktop entry retroarch (Categories=Game;Emulator;)"),
        ("linphone", "linphone.desktop", "play-and-record", "desktop entry linphone (Categories=Network;Telephony;)"),
        ("gnome-clocks", "org.gnome.clocks.desktop", "playback", "desktop entry org.gnome.clocks"),
    ])
    func aDesktopEntryDecidesForAStreamThatSaysNothing(program: String, entry: String, category: String, evidence: String) throws {
        let data = try DesktopData([entry, "mpv.desktop", "supertuxkart.desktop"])
        let scene = try AgentScene(agentEnvironment: data.environment)
        let player = try Self.play(as: program, in: scene)
        defer { player.stop() }
        #expect(scene.waitForStatus(program) { $0.category == category }, "\(String(describing: scene.polledStatus(program)))")
        let status = try scene.status(program)
        Self.report("\(program): \(status.category) — \(status.reason)")
        #expect(status.source == "app", "\(status.source): \(status.reason)")
        #expect(status.reason.contains(evidence), "\(status.reason)")
        let explain = try scene.cli(["explain", program])
        #expect(explain.stdout.contains(evidence), "explain: \(explain.stdout)")
    }

    /// An alarm the user set is never silenced (the seeds): a clock's
    /// stream plays on in silent mode; a game's is silenced.
    @Test func silentModeSilencesTheGameNotTheAlarm() throws {
        let data = try DesktopData(["retroarch.desktop", "org.gnome.clocks.desktop"])
        let scene = try AgentScene(agentEnvironment: data.environment)
        let clock = try Self.play(as: "gnome-clocks", in: scene)
        let game = try Self.play(as: "retroarch", in: scene)
        defer { clock.stop(); game.stop() }
        #expect(scene.waitForStatus("retroarch") { $0.source == "app" } && scene.waitForStatus("gnome-clocks") { $0.source == "app" })
        #expect(try scene.cli(["silent", "on"]).status == 0)
        #expect(scene.waitForVolume("retroarch", 0), "\(scene.describe(["retroarch", "gnome-clocks"]))")
        scene.client.pump(0.3)
        #expect(scene.volume("gnome-clocks") == 1, "\(scene.describe(["retroarch", "gnome-clocks"]))")
        #expect(try scene.status("gnome-clocks").silenced == false)
    }

    /// Steam starts every game with its app id in the environment: a game
    /// binary nobody has a desktop entry for is a game.
    @Test func aSteamGameIsAGame() throws {
        let data = try DesktopData(["mpv.desktop"])
        let scene = try AgentScene(agentEnvironment: data.environment)
        let game = try Self.play(as: "Hades.x86_64", in: scene, environment: ["SteamAppId": "1145360", "SteamGameId": "1145360"])
        defer { game.stop() }
        #expect(scene.waitForStatus("Hades.x86_64") { $0.source == "app" }, "\(String(describing: scene.polledStatus("Hades.x86_64")))")
        let status = try scene.status("Hades.x86_64")
        Self.report("Hades.x86_64: \(status.category) — \(status.reason)")
        #expect(status.category == "solo-ambient" && status.reason.contains("Steam game (SteamAppId=1145360)"), "\(status.reason)")
    }

    /// The seeds' game, found by its desktop entry: started while the user's
    /// music plays, it mixes, and the music plays on.
    @Test func aGameFromTheDesktopNeverStopsTheMusic() throws {
        let data = try DesktopData(["supertuxkart.desktop"])
        let scene = try AgentScene(agentEnvironment: data.environment)
        let music = try scene.play("music")
        defer { music.stop() }
        #expect(scene.waitUntilAgentSees("music", runningOn: "speakers"))
        let game = try Self.play(as: "supertuxkart", in: scene)
        defer { game.stop() }
        #expect(scene.waitForStatus("supertuxkart") { $0.category == "solo-ambient" && $0.state == "running" })
        scene.client.pump(0.5)
        #expect(scene.sinks(of: "music") == ["speakers"] && scene.volume("music") == 1, "\(scene.describe(["music", "supertuxkart"]))")
        #expect(try scene.status("music").hold == nil)
    }

    static func report(_ line: String) { print("app knowledge: \(line)") }
}
