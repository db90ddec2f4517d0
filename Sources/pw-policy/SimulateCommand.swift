import ArgumentParser
import Foundation
import PolicyAgent
import PolicyCLI
import PolicyCore

/// `pw-policy simulate DUMP`: what the agent would do on a pw-dump, without PipeWire.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Show what the policy would do on a graph saved by pw-dump, without PipeWire.",
        discussion: """
        Reads pw-dump's JSON (what a bug report attaches: 'pw-dump > graph.json'), runs the \
        agent on it in memory for its first seconds and prints what 'pw-policy status' would \
        then print, or with --explain what 'pw-policy explain' would. The configuration is the \
        one the agent would load here (as 'check-config' without FILE), or exactly --config \
        FILE (conf/pw-policy.conf of a checkout: the shipped defaults). The PipeWire and \
        WirePlumber versions are read from the dump; WirePlumber 0.4 publishes none, so give \
        it with --wireplumber when the dump does not carry the agent's status. The simulated \
        agent has no session bus (no MPRIS player, Do Not Disturb unknown) and its meters hear \
        every running stream; the text output lists what it assumed.

        Exit status: 65 when DUMP is not pw-dump's JSON, 66 when it cannot be read, \
        78 for an invalid configuration, 1 when --explain names no stream.
        """)

    @Argument(help: "pw-dump's JSON output; '-' for standard input.", completion: .file(extensions: ["json"]))
    var dump: String

    @Option(help: ArgumentHelp("Use exactly this configuration file.", valueName: "FILE"), completion: .file(extensions: ["conf"]))
    var config: String?

    @Option(name: .customLong("wireplumber"),
            help: ArgumentHelp("WirePlumber's version, when the dump does not say it (0.4).", valueName: "VERSION"))
    var wirePlumber: String?

    @Option(help: ArgumentHelp("Explain this stream instead: a node id or a name, as 'pw-policy explain'.", valueName: "ID|NAME"))
    var explain: String?

    @OptionGroup var display: DisplayOptions

    func validate() throws {
        if let wirePlumber, SemanticVersion(parsing: wirePlumber) == nil {
            throw ValidationError("'\(wirePlumber)' is not a version (e.g. 0.4.13)")
        }
    }

    func run() throws {
        try reportingFailures {
            let loaded: LoadedConfig
            do throws(ConfigError) {
                let loader = ConfigLocations.loader()
                if let config { loaded = try loader.load(file: config) } else { loaded = try loader.load() }
            } catch {
                throw CLIFailure(.config, ConfigReport.errorText(error))
            }
            let identity = AgentCore.Identity(pid: 0, version: PolicyVersion.number,
                                              startedAt: ISO8601DateFormatter().string(from: Date()), dryRun: false)
            let report = try SimulationReport(dump: try read(), name: dump == "-" ? "standard input" : dump, config: loaded,
                                              identity: identity, wirePlumberVersion: wirePlumber, explain: explain,
                                              json: display.json, style: display.style)
            for warning in report.warnings { printError("\(dump == "-" ? "standard input" : dump): \(warning)") }
            print(report.output, terminator: "")
        }
    }

    private func read() throws(CLIFailure) -> [UInt8] {
        if dump == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: dump, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIFailure(.noInput, "cannot read \(dump): it is a directory")
        }
        guard let data = FileManager.default.contents(atPath: dump) else {
            throw CLIFailure(.noInput, "cannot read \(dump): \(String(cString: strerror(errno)))")
        }
        return Array(data)
    }
}
