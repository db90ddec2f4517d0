import Foundation
import Testing
import PolicyTestSupport

/// A stand-in service of `Tests/StandIns/` on a sandbox's buses, steered by
/// lines on its stdin; started once it printed `ready` (docs/TESTING.md).
final class StandIn {
    let process: ChildProcess
    let name: String

    /// Starts `Tests/StandIns/<script>` with `arguments`; throws when it
    /// did not say it is ready within 10 s (its stderr in the message).
    init(_ script: String, _ arguments: [String] = [], sandbox: Sandbox, extraEnvironment: [String: String] = [:]) throws {
        name = ([script] + arguments).joined(separator: "-")
        let output = sandbox.path("\(name).out"), errors = sandbox.path("\(name).err")
        process = try ChildProcess([Sandbox.repositoryRoot + "/Tests/StandIns/" + script] + arguments,
                                   environment: sandbox.environment.merging(extraEnvironment) { $1 }, input: true,
                                   stdout: output, stderr: errors)
        try #require(sandbox.wait(timeout: 10) {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("ready")
        }, "the stand-in \(name) did not start: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
    }

    func send(_ line: String) { process.send([line]) }
    func stop() { process.stop() }
    deinit { stop() }
}

extension Sandbox {
    /// A private bus at the sandbox's `DBUS_SYSTEM_BUS_ADDRESS` (scripts/pw-sandbox
    /// points it into the sandbox, where nothing listens until this runs),
    /// standing in for the system bus; stopped with the returned process.
    func startSystemBus() throws -> ChildProcess {
        let address = try #require(environment["DBUS_SYSTEM_BUS_ADDRESS"], "the sandbox names no system bus")
        let bus = try spawn(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"],
                            stderr: path("system-bus.err"))
        let socket = String(address.dropFirst("unix:path=".count))
        try #require(wait(timeout: 5) { FileManager.default.fileExists(atPath: socket) },
                     "the private system bus did not start: \((try? String(contentsOfFile: path("system-bus.err"), encoding: .utf8)) ?? "")")
        return bus
    }
}
