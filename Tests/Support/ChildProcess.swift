#if canImport(Glibc)
import Glibc
#endif
import PolicyFiles

/// A process a test or the bench started (pw-play, pw-dump, the agent, the
/// load generator), with posix_spawn and waitpid: no run loop, no pipes a
/// leftover daemon could hold open, and a pid we reap ourselves. Killed on
/// `stop()` or deinit.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    /// Its exit code, or 128 + the signal that ended it, once reaped.
    public private(set) var exitStatus: Int32?
    /// The write end of its stdin, with `input: true`.
    private var input: Int32 = -1

    /// With `input`, its stdin is a pipe that `send` writes to; otherwise
    /// /dev/null. `environment` nil: this process's. Output files are
    /// replaced, or appended to with `appending`.
    public init(_ arguments: [String], environment: [String: String]? = nil, input: Bool = false,
                stdout: String = "/dev/null", stderr: String = "/dev/null", appending: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ends: [Int32] = [-1, -1]
        if input {
            // Close-on-exec, so other children do not keep it open (we stop
            // the child by signal, never by end of input); dup2 onto stdin
            // clears the flag for this child only.
            guard pipe(&ends) == 0 else { throw SpawnError(arguments: arguments, errno: errno) }
            ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        let mode = O_WRONLY | O_CREAT | (appending ? O_APPEND : O_TRUNC)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, mode, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, mode, 0o644)
        // Signals as a shell leaves them: none blocked, none ignored. The
        // test runner blocks nearly every signal in its threads and a child
        // would inherit that mask, so a command that lets PipeWire's
        // data-loop thread take SIGINT or SIGTERM would pass here and die by
        // the signal for its users.
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
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { argv.forEach { free($0) }; envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let status = envp.map { posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, argv, environ)
        if input { close(ends[0]) }
        guard status == 0 else {
            if input { close(ends[1]) }
            throw SpawnError(arguments: arguments, errno: status)
        }
        self.pid = pid
        self.input = ends[1]
    }

    /// Writes lines to its stdin.
    public func send(_ lines: [String]) {
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        var offset = 0
        while input >= 0, offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Closes its stdin: a helper that reads commands ends at end of input.
    public func closeInput() {
        if input >= 0 { close(input); input = -1 }
    }

    public var isRunning: Bool { !reap(blocking: false) }

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

    /// Sends `signal` and waits for the process to end (SIGKILL after `grace` s).
    public func stop(signal: Int32 = SIGTERM, grace: Double = 3) {
        guard isRunning else { return }
        kill(pid, signal)
        if !waitForExit(timeout: grace) {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
    }

    /// Waits until it exits by itself; false on timeout. `whileWaiting` runs
    /// repeatedly until then (e.g. to turn a PipeWire loop the command needs
    /// answers from); by default it sleeps.
    public func waitForExit(timeout: Double, whileWaiting: (() -> Void)? = nil) -> Bool {
        let deadline = MonotonicClock.now + timeout
        while isRunning {
            if MonotonicClock.now >= deadline { return false }
            if let whileWaiting { whileWaiting() } else { usleep(5_000) }
        }
        return true
    }

    deinit {
        stop()
        closeInput()
    }
}

/// A process that could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    public var arguments: [String]
    public var errno: Int32
    public var description: String { "cannot start \(arguments.joined(separator: " ")): \(String(cString: strerror(errno)))" }
}
