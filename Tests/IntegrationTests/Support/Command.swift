import Foundation

/// Runs external commands (pw-play, pw-dump, pw-metadata…) for tests with
/// posix_spawn and waitpid: no run loop, no pipes a leftover daemon could
/// hold open, and a pid we reap ourselves.
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
        let child = try Background(arguments, environment: environment, stdout: outPath, stderr: errPath)
        if !child.waitForExit(timeout: timeout, whileWaiting: whileWaiting) { child.stop(signal: SIGKILL) }
        return Result(status: child.exitStatus ?? -1,
                      stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    /// A command left running in the background; killed on `stop()` or deinit.
    final class Background: @unchecked Sendable {
        let pid: pid_t
        private(set) var exitStatus: Int32?

        init(_ arguments: [String], environment: [String: String],
             stdout: String = "/dev/null", stderr: String = "/dev/null") throws {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            // Signals as a shell leaves them: none blocked, none ignored. The
            // test runner blocks nearly every signal in its threads and a
            // child would inherit that mask, so a command that lets PipeWire's
            // data-loop thread take SIGINT or SIGTERM would pass here and
            // die by the signal for its users.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t(), stoppingSignals = sigset_t()
            sigemptyset(&noSignals)
            sigemptyset(&stoppingSignals)
            for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&stoppingSignals, signal) }
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &stoppingSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv = (["/usr/bin/env"] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, envp)
            guard status == 0 else { throw CommandError.spawnFailed(arguments, errno: status) }
            self.pid = pid
        }

        var isRunning: Bool { !reap(blocking: false) }

        /// Reaps the child if it exited; true when it has.
        private func reap(blocking: Bool) -> Bool {
            if exitStatus != nil { return true }
            var status: Int32 = 0
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            guard result == pid else { return result < 0 }
            let signalled = status & 0x7f
            exitStatus = signalled == 0 ? (status >> 8) & 0xff : 128 + signalled
            return true
        }

        /// Sends `signal` and waits for the process to end (SIGKILL after 3 s).
        func stop(signal: Int32 = SIGTERM) {
            guard isRunning else { return }
            kill(pid, signal)
            if !waitForExit(timeout: 3) {
                kill(pid, SIGKILL)
                _ = reap(blocking: true)
            }
        }

        /// Waits until it exits by itself; false on timeout.
        func waitForExit(timeout: Double, whileWaiting: (() -> Void)? = nil) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while isRunning {
                if Date() >= deadline { return false }
                if let whileWaiting { whileWaiting() } else { usleep(5_000) }
            }
            return true
        }

        deinit { stop() }
    }
}

enum CommandError: Error { case spawnFailed([String], errno: Int32) }
