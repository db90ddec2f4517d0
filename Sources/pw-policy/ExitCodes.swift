import ArgumentParser
import Foundation

/// Exit codes, following sysexits(3) as users of the pw-* tools expect.
enum ExitCodes {
    static let notFound = ExitCode(1)
    static let usage = ExitCode(64)
    /// PipeWire or the agent is not reachable.
    static let unavailable = ExitCode(69)
    static let software = ExitCode(70)
    static let config = ExitCode(78)
}

/// Prints `pw-policy: message` to stderr.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("pw-policy: \(message)\n".utf8))
}
