import Foundation
import PolicyCore
import Testing

/// The agent knows which PipeWire and WirePlumber it runs beside,
/// and says exactly what the stack's own tools say: `pw-cli info 0` and
/// `pw-dump` for the daemon, WirePlumber's client in `pw-dump` (and, for a
/// WirePlumber 0.4 that publishes no version, `wireplumber --version`).
@Suite(.serialized)
struct StackTests {
    /// What the real tools report about the sandbox's stack.
    struct RealStack {
        var pipewire: String
        var wirePlumberClient: Int
        var wirePlumberPID: Int32
        var wirePlumber: String
        var versionSource: String

        init(_ sandbox: Sandbox) throws {
            let info = try sandbox.run(["pw-cli", "info", "0"])
            let versionLine = try #require(info.stdout.split(separator: "\n").first {
                $0.trimmingCharacters(in: .whitespaces).hasPrefix("version: \"")
            }, "pw-cli info 0 said: \(info.stdout)")
            pipewire = String(versionLine.split(separator: "\"")[1])
            let dump = try sandbox.dump()
            let core = try #require(dump.first { $0["type"] as? String == "PipeWire:Interface:Core" })
            #expect((core["info"] as? [String: Any])?["version"] as? String == pipewire, "pw-dump and pw-cli disagree")

            // The sandbox's WirePlumber process, and its main client.
            wirePlumberPID = try #require(sandbox.pid(of: "wireplumber"))
            let pid = wirePlumberPID
            let client = try #require(dump.first { object in
                guard object["type"] as? String == "PipeWire:Interface:Client",
                      let props = (object["info"] as? [String: Any])?["props"] as? [String: Any] else { return false }
                return props["application.process.id"].map { "\($0)" } == "\(pid)"
                    && props["application.name"] as? String == "WirePlumber"
            }, "no client of WirePlumber (pid \(pid)) in pw-dump")
            wirePlumberClient = try #require(client["id"] as? Int)
            let props = try #require((client["info"] as? [String: Any])?["props"] as? [String: Any])
            if let version = props["application.version"] as? String {
                wirePlumber = version
                versionSource = "application.version"
            } else {
                // 0.4 publishes none: its binary says which library it runs with.
                let said = try sandbox.run(["wireplumber", "--version"]).stdout
                let linked = try #require(said.split(separator: "\n").first { $0.hasPrefix("Linked with libwireplumber ") },
                                          "wireplumber --version said: \(said)")
                wirePlumber = String(linked.dropFirst("Linked with libwireplumber ".count))
                versionSource = "linked-library"
            }
        }

        /// Native ramps from 0.3.68, compared here without the agent's parser.
        var hasNativeRamps: Bool {
            let numbers = pipewire.split(separator: ".").prefix(3).map { Int($0.prefix { $0.isNumber }) ?? 0 }
            return numbers.lexicographicallyPrecedes([0, 3, 68]) == false
        }

        var summary: String {
            "PipeWire \(pipewire) · WirePlumber \(wirePlumber) · "
                + (hasNativeRamps ? "fades: native ramps (steps for clients older than PipeWire 0.3.68)"
                    : "fades: stepped (no native volume ramps before PipeWire 0.3.68)")
        }
    }

    @Test func statusReportsTheVersionsTheRealToolsReport() throws {
        let scene = try AgentScene()
        let real = try RealStack(scene.sandbox)

        let objects = try CLI.jsonArray(try scene.cli(["status", "--json"]).stdout)
        let agent = try #require(objects.first { $0["type"] as? String == "PwPolicy:Agent" }?["info"] as? [String: Any])
        let stack = try #require(agent["stack"] as? [String: Any], "no stack in: \(agent)")
        #expect((stack["pipewire"] as? [String: Any])?["version"] as? String == real.pipewire)
        let wirePlumber = try #require(stack["wireplumber"] as? [String: Any], "stack: \(stack)")
        #expect(wirePlumber["version"] as? String == real.wirePlumber)
        #expect(wirePlumber["versionSource"] as? String == real.versionSource)
        #expect(wirePlumber["client"] as? Int == real.wirePlumberClient)
        #expect(wirePlumber["pid"] as? Int == Int(real.wirePlumberPID))
        #expect((stack["capabilities"] as? [String: Any])?["nativeVolumeRamps"] as? Bool == real.hasNativeRamps)

        let text = try scene.cli(["status"])
        #expect(text.stdout.split(separator: "\n").contains {
            $0.hasPrefix(" ├─ Stack: ") && $0.dropFirst(" ├─ Stack:".count).trimmingCharacters(in: .whitespaces) == real.summary
        }, "stdout: \(text.stdout)")
        #expect(scene.log.contains("stack: \(real.summary) (WirePlumber pid \(real.wirePlumberPID))"), "log: \(scene.log)")

        // Without the agent the CLI finds the same by itself.
        scene.stopAgent()
        let alone = try scene.cli(["status", "--json"])
        let aloneAgent = try #require(try CLI.jsonArray(alone.stdout).first?["info"] as? [String: Any])
        #expect(aloneAgent["running"] as? Bool == false)
        #expect(((aloneAgent["stack"] as? [String: Any])?["wireplumber"] as? [String: Any])?["version"] as? String == real.wirePlumber)
        #expect(try scene.cli(["status"]).stdout.contains("Stack:    \(real.summary)"))
    }

    @Test func wirePlumberGoingAwayAndComingBackIsFollowed() throws {
        let scene = try AgentScene()
        let before = try RealStack(scene.sandbox)

        // The sandbox's own WirePlumber, killed as a crash would.
        #expect(kill(before.wirePlumberPID, SIGKILL) == 0)
        #expect(scene.sandbox.wait { scene.agentStatus()?.stack.map { $0.wireplumber == nil } == true },
                "the agent still reports \(String(describing: scene.agentStatus()?.stack))")
        let missing = try scene.cli(["status"]).stdout
        #expect(missing.contains("PipeWire \(before.pipewire) · WirePlumber not running · "), "stdout: \(missing)")

        #expect(try scene.sandbox.restartWirePlumber())
        let after = try RealStack(scene.sandbox)
        #expect(after.wirePlumberPID != before.wirePlumberPID)
        #expect(scene.sandbox.wait { scene.agentStatus()?.stack?.wireplumber?.pid == after.wirePlumberPID },
                "the agent reports \(String(describing: scene.agentStatus()?.stack))")
        let stack = try #require(scene.agentStatus()?.stack)
        #expect(stack.wireplumber?.version == after.wirePlumber && stack.wireplumber?.client == UInt32(after.wirePlumberClient))
        let log = scene.log
        #expect(log.contains("stack changed: PipeWire \(before.pipewire) · WirePlumber not running · "), "log: \(log)")
        #expect(log.contains("stack changed: \(after.summary) (WirePlumber pid \(after.wirePlumberPID))"), "log: \(log)")
        #expect(scene.agent?.isRunning == true)
    }
}
