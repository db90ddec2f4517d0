import ArgumentParser
import Foundation
import PolicyCLI
import PolicyCore
#if canImport(Glibc)
import Glibc
#endif

/// Options of the commands that read the agent's state: text or JSON, in colour or not.
struct DisplayOptions: ParsableArguments {
    @Flag(help: "Print JSON (an array of objects with id, type and info, like pw-dump; see docs/CLI.md).")
    var json = false

    @OptionGroup var color: ColorOptions

    var style: TextStyle { color.style }
}

/// `-N, --no-color`, which every command that prints takes, also one that
/// prints no colour: a person or script that always passes it must not see
/// one command refuse it (docs/CLI.md, "Conventions").
struct ColorOptions: ParsableArguments {
    @Flag(name: [.customShort("N"), .customLong("no-color")], help: "Never use colours (also: NO_COLOR set, or output not a terminal).")
    var noColor = false

    var style: TextStyle {
        TextStyle.decide(isTerminal: isatty(STDOUT_FILENO) == 1,
                         environment: ProcessInfo.processInfo.environment, noColorFlag: noColor)
    }
}

/// Runs a command body, turning a `CLIFailure` into its one-line message on
/// stderr and its exit code, and anything unexpected into exit 70.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as CLIFailure {
        printError(failure.message)
        throw ExitCode(failure.kind)
    } catch let exit as ExitCode {
        throw exit
    } catch {
        printError("internal error: \(error)")
        throw ExitCode(ExitStatus.software)
    }
}
