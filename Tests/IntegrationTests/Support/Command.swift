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
        /// The write end of its stdin, with `input: true`.
        private var input: Int32 = -1

        /// With `input`, its stdin is a pipe that `send` writes to.
        init(_ arguments: [String], environment: [String: String], input: Bool = false,
             stdout: String = "/dev/null", stderr: String = "/dev/null") throws {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            var ends: [Int32] = [-1, -1]
            if input {
                // Close-on-exec, so other tests' children do not keep it open
                // (we stop the child by signal, never by end of input);
                // dup2 onto stdin clears the flag for this child only.
                guard pipe(&ends) == 0 else { throw CommandError.spawnFailed(arguments, errno: errno) }
                ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
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
            if input { close(ends[0]) }
            guard status == 0 else {
                if input { close(ends[1]) }
                throw CommandError.spawnFailed(arguments, errno: status)
            }
            self.pid = pid
            self.input = ends[1]
        }

        /// Writes lines to its stdin.
        func send(_ lines: [String]) {
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            var offset = 0
            while input >= 0, offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
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

        deinit {
            stop()
            if input >= 0 { close(input) }
        }
    }
}

enum CommandError: Error { case spawnFailed([String], errno: Int32) }
