import Foundation
import PolicyAgent
import PolicyPipeWire
import PolicyFiles

/// A process the benchmark started (the agent, the load generator), with an
/// optional pipe to its stdin; reaped by us, stopped by its pid only.
final class ChildProcess {
    let pid: pid_t
    private var input: Int32 = -1
    private(set) var exitStatus: Int32?

    init(_ arguments: [String], stdinPipe: Bool = false, stdout: String = "/dev/null", stderr: String = "/dev/null") throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if stdinPipe {
            guard pipe(&pipeEnds) == 0 else { throw BenchError("pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        if stdinPipe { close(pipeEnds[0]) }
        guard status == 0 else {
            if stdinPipe { close(pipeEnds[1]) }
            throw BenchError("cannot start \(arguments[0]): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        if stdinPipe {
            input = pipeEnds[1]
            _ = fcntl(input, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Writes lines to its stdin.
    func send(_ lines: [String]) {
        guard input >= 0 else { return }
        let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    var isRunning: Bool {
        if exitStatus != nil { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { exitStatus = status; return false }
        return result == 0
    }

    /// Closes its stdin, sends `signal`, waits (SIGKILL after 5 s).
    func stop(signal: Int32 = SIGTERM) {
        if input >= 0 { close(input); input = -1 }
        guard isRunning else { return }
        kill(pid, signal)
        let deadline = MonotonicClock.now + 5
        while isRunning && MonotonicClock.now < deadline { usleep(5_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            exitStatus = status
        }
    }

    deinit { stop() }
}

/// CPU time and memory of a process, from /proc.
struct ProcessSample {
    /// utime + stime, seconds.
    var cpuSeconds: Double
    /// VmRSS, KiB.
    var rssKiB: Int
    /// Voluntary + involuntary context switches: how often it woke up.
    var contextSwitches: Int

    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3; utime and stime are 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        cpuSeconds = (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
        func value(_ key: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") } ?? 0
        }
        rssKiB = value("VmRSS")
        contextSwitches = value("voluntary_ctxt_switches") + value("nonvoluntary_ctxt_switches")
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
