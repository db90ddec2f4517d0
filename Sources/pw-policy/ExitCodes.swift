import ArgumentParser
import Foundation
import PolicyCore

extension ExitCode {
    /// ArgumentParser's exit for one of pw-policy's exit statuses.
    init(_ status: ExitStatus) { self.init(status.rawValue) }
}

/// Prints `pw-policy: message` to stderr.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("pw-policy: \(message)\n".utf8))
}
