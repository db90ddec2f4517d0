import Foundation
import PolicyTestSupport

/// A real speech-dispatcher in a sandbox, in the foreground (`-s`, never
/// leaving on its own: `-t 0`) with its logs in the sandbox, playing through
/// pipewire-pulse like a desktop's screen reader. What it does
/// there (checked on 0.11.4): at start its dummy module opens a stream
/// (`application.name` speech-dispatcher-dummy, binary sd_dummy) that runs
/// about 5 s; the espeak-ng module's stream (speech-dispatcher-espeak-ng,
/// from the daemon's own process, which plays for its modules) opens at the
/// first utterance and stays `running` about 5 s after its last sample
/// (`pulse.idle.timeout = 5`), then `idle`, and is kept.
final class SpeechDispatcher {
    static let espeakModule = "/usr/lib/speech-dispatcher-modules/sd_espeak-ng"

    let process: ChildProcess
    let sandbox: Sandbox
    let logDirectory: String

    init(sandbox: Sandbox) throws {
        try RealClient.require("speech-dispatcher", package: "speech-dispatcher")
        try RealClient.require("spd-say", package: "speech-dispatcher")
        // Without it the daemon still starts, and its dummy module speaks a
        // "no synthesizer" message instead of the text.
        try RealClient.require(SpeechDispatcher.espeakModule, package: "speech-dispatcher-espeak-ng")
        try RealClient.require("espeak-ng", package: "espeak-ng")
        self.sandbox = sandbox
        logDirectory = sandbox.path("speech-dispatcher")
        try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
        process = try sandbox.spawn(["speech-dispatcher", "-s", "-t", "0", "-L", logDirectory],
                                    stderr: logDirectory + "/stderr")
        // spd-say autospawns a daemon of its own when it finds no socket.
        let socket = sandbox.environment["XDG_RUNTIME_DIR"]! + "/speech-dispatcher/speechd.sock"
        guard sandbox.wait(timeout: 10, { FileManager.default.fileExists(atPath: socket) || !process.isRunning }),
              process.isRunning else {
            throw RealClientError.notReady("speech-dispatcher", details: log)
        }
    }

    /// `spd-say -w TEXT` with the espeak-ng module: it exits when the speech
    /// has ended.
    func say(_ text: String) throws -> ChildProcess {
        try sandbox.spawn(["spd-say", "-w", "-o", "espeak-ng", text], stderr: logDirectory + "/spd-say.stderr")
    }

    var log: String {
        ["stderr", "speech-dispatcher.log"].map {
            (try? String(contentsOfFile: logDirectory + "/" + $0, encoding: .utf8)) ?? ""
        }.joined(separator: "\n")
    }

    func stop() { process.stop() }
    deinit { stop() }
}
