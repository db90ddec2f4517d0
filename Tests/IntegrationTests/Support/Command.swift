import Foundation
import PolicyTestSupport

/// Runs external commands (pw-play, pw-dump, pw-metadata…) for tests to
/// their end, as a `ChildProcess`, and reads what they printed.
enum Command {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// `whileWaiting` runs repeatedly until the command exits (e.g. to turn a
    /// PipeWire loop the command needs answers from); by default it sleeps.
    static func run(_ arguments: [String], environment: [String: String], timeout: Double,
                    whileWaiting: (() -> Void)? = nil) throws -> Result {
        let base = NSTemporaryDirectory() + "pw-policy-test-\(UUID().uuidString)"
        let outPath = base + ".out", errPath = base + ".err"
        defer { unlink(outPath); unlink(errPath) }
        let child = try ChildProcess(arguments, environment: environment, stdout: outPath, stderr: errPath)
        if !child.waitForExit(timeout: timeout, whileWaiting: whileWaiting) { child.stop(signal: SIGKILL) }
        return Result(status: child.exitStatus ?? -1,
                      stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}
