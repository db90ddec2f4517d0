import ArgumentParser
import Foundation
import PolicyCLI
import PolicyCore
import PolicyAgent
import PolicyPipeWire

/// `pw-policy check-config`: validates the configuration and prints the effective one.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration and print the effective merged configuration.",
        discussion: """
        Without FILE, loads what the agent would: pw-policy.conf from the first directory \
        of the search path ($PW_POLICY_CONFIG_DIR alone when set, else \
        $XDG_CONFIG_HOME/pw-policy, /etc/pw-policy, /usr/share/pw-policy, then the \
        share/pw-policy directory of the install prefix) and every \
        pw-policy.conf.d/*.conf drop-in merged in name order. With FILE, checks exactly that \
        file as the whole configuration; with --drop-in, FILE is merged last over the \
        installed configuration instead (to check a fragment before installing it).

        On an error, prints every problem as file:line:col: message and exits 78.
        """)

    @Argument(help: "A configuration file to check instead of the installed configuration.",
              completion: .file(extensions: ["conf"]))
    var file: String?

    @Flag(help: "Check FILE as a drop-in merged over the installed configuration.")
    var dropIn = false

    @Flag(help: "Print JSON: {\"valid\": true, \"files\": […], \"config\": {…}} or {\"valid\": false, \"errors\": [{file, line, column, message}]}.")
    var json = false

    @OptionGroup var color: ColorOptions

    func validate() throws {
        if dropIn && file == nil { throw ValidationError("--drop-in needs a FILE") }
    }

    func run() throws {
        let loader = ConfigLocations.loader()
        let loaded: LoadedConfig
        do {
            if let file {
                loaded = try dropIn ? loader.load(addingFragment: file) : loader.load(file: file)
            } else {
                loaded = try loader.load()
            }
        } catch {
            if json { print(ConfigReport.errorJSON(error), terminator: "") }
            FileHandle.standardError.write(Data((ConfigReport.errorText(error) + "\n").utf8))
            throw ExitCode(ExitStatus.config)
        }
        print(json ? ConfigReport.json(loaded) : ConfigReport.text(loaded), terminator: "")
    }
}
