import Glibc
import PolicyCore

/// Reads GSettings keys the way every GNOME app does, through GSettings
/// itself: `gsettings get SCHEMA KEY` runs with the agent's environment,
/// so the schema's default, the system's dconf profile and its locks all
/// count, and no dconf database format is parsed here (docs/POLICY.md,
/// "Do Not Disturb"). Run without blocking the loop: the child's output is
/// read as it comes, and a child that takes longer than `timeout` is
/// killed. Reads of one key never overlap; one asked for meanwhile runs
/// after.
public final class GSettingsReader {
    private let loop: any BusLoop
    private let timeout: Double
    private let executable: String

    private final class Child {
        let pid: pid_t
        let fd: Int32
        var output: [UInt8] = []
        var watch: (any BusLoopWatch)?
        var timer: (any BusLoopTimer)?
        let completion: (DoNotDisturb.Reading) -> Void
        init(pid: pid_t, fd: Int32, completion: @escaping (DoNotDisturb.Reading) -> Void) {
            self.pid = pid; self.fd = fd; self.completion = completion
        }
    }
    /// By "schema key".
    private var running: [String: Child] = [:]
    /// Asked for while a read of the same key ran: read again after it.
    private var again: [String: [(DoNotDisturb.Reading) -> Void]] = [:]

    public init(loop: any BusLoop, executable: String = "gsettings", timeout: Double = 5) {
        self.loop = loop; self.executable = executable; self.timeout = timeout
    }

    deinit {
        for child in running.values { finish(child, killing: true) }
    }

    /// dconf's path of a key of a non-relocatable schema, as GNOME's
    /// schemas lay them out: `org.gnome.desktop.notifications` `show-banners`
    /// → `/org/gnome/desktop/notifications/show-banners`.
    public static func dconfPath(schema: String, key: String) -> String {
        "/" + schema.split(separator: ".").joined(separator: "/") + "/" + key
    }

    public func read(schema: String, key: String, _ completion: @escaping (DoNotDisturb.Reading) -> Void) {
        let id = schema + " " + key
        if running[id] != nil {
            again[id, default: []].append(completion)
            return
        }
        switch spawn([executable, "get", schema, key]) {
        case .failed(let reading):
            completion(reading)
        case .running(let pid, let fd):
            let child = Child(pid: pid, fd: fd, completion: completion)
            running[id] = child
            child.watch = loop.watch(fd: fd, events: UInt32(POLLIN)) { [unowned self, unowned child] _ in
                self.readOutput(child, id: id)
            }
            child.timer = loop.busTimer { [unowned self, unowned child] in
                self.complete(child, id: id, .unusable("gsettings did not answer within \(Int(timeout)) s"), killing: true)
            }
            child.timer?.schedule(after: timeout)
        }
    }

    private func readOutput(_ child: Child, id: String) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(child.fd, $0.baseAddress, $0.count) }
        if count > 0 {
            // A value is a line; more than this is not a value we compare.
            if child.output.count < 65_536 { child.output += buffer[0..<count] }
            return
        }
        if count < 0, errno == EINTR || errno == EAGAIN { return }
        var status: Int32 = 0
        let waited = waitpid(child.pid, &status, 0)
        let output = String(decoding: child.output, as: UTF8.self)
        let exitedCleanly = waited == child.pid && (status & 0x7f) == 0 && ((status >> 8) & 0xff) == 0
        complete(child, id: id, Self.reading(output: output, succeeded: exitedCleanly), killing: false)
    }

    private func complete(_ child: Child, id: String, _ reading: DoNotDisturb.Reading, killing: Bool) {
        guard running[id] === child else { return }
        running[id] = nil
        finish(child, killing: killing)
        child.completion(reading)
        if let waiting = again.removeValue(forKey: id) {
            let parts = id.split(separator: " ", maxSplits: 1).map(String.init)
            read(schema: parts[0], key: parts[1]) { reading in waiting.forEach { $0(reading) } }
        }
    }

    private func finish(_ child: Child, killing: Bool) {
        child.watch = nil
        child.timer = nil
        close(child.fd)
        if killing {
            kill(child.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(child.pid, &status, 0)
        }
    }

    /// What `gsettings get` printed: a GVariant in text form. Booleans and
    /// numbers as they are (`uint32 5` → `5`), strings unquoted; a failure
    /// (no such schema or key, no gsettings) is an absent source.
    static func reading(output: String, succeeded: Bool) -> DoNotDisturb.Reading {
        guard succeeded else { return .absent }
        var text = output.split(separator: "\n").first.map { $0.trimmingWhitespace() } ?? ""
        for prefix in ["byte ", "int16 ", "uint16 ", "int32 ", "uint32 ", "int64 ", "uint64 ", "double "] where text.hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count))
        }
        if text.count >= 2, let first = text.first, first == "'" || first == "\"", text.last == first {
            return .value(String(text.dropFirst().dropLast()))
        }
        return .value(text)
    }

    private enum Spawned {
        case running(pid_t, fd: Int32)
        case failed(DoNotDisturb.Reading)
    }

    /// The child, its stdout and stderr on one pipe; stdin /dev/null.
    private func spawn(_ arguments: [String]) -> Spawned {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return .failed(.unusable("pipe: \(String(cString: strerror(errno)))")) }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        var pid: pid_t = 0
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, cArguments, environ)
        close(fds[1])
        guard result == 0 else {
            close(fds[0])
            // No gsettings: no GNOME here.
            return .failed(result == ENOENT ? .absent : .unusable("\(arguments[0]): \(String(cString: strerror(result)))"))
        }
        return .running(pid, fd: fds[0])
    }
}
