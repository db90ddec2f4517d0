import Foundation
import PolicyTestSupport

extension ChildProcess {
    /// Closes its stdin (the load generator and the test player end there),
    /// then sends `signal` (SIGKILL after 5 s).
    func end(signal: Int32 = SIGTERM) {
        closeInput()
        stop(signal: signal, grace: 5)
    }
}

/// CPU time and memory of a process, from /proc.
struct ProcessSample {
    /// utime + stime, seconds.
    var cpuSeconds: Double
    /// VmRSS, KiB.
    var rssKiB: Int
    /// Voluntary + involuntary context switches of all its threads: how
    /// often it woke up (the agent's meters run on libpipewire's data thread).
    var contextSwitches: Int

    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3; utime and stime are 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        cpuSeconds = (utime + stime) / Double(sysconf(Int32(_SC_CLK_TCK)))
        func value(of status: String, _ key: String) -> Int {
            status.split(separator: "\n").first { $0.hasPrefix(key + ":") }
                .flatMap { Int($0.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") } ?? 0
        }
        rssKiB = value(of: status, "VmRSS")
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        contextSwitches = tasks.reduce(0) { sum, task in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { return sum }
            return sum + value(of: status, "voluntary_ctxt_switches") + value(of: status, "nonvoluntary_ctxt_switches")
        }
    }
}

extension ProcessSample {
    /// Time on a CPU of all the process's threads, in seconds, to the
    /// nanosecond (the scheduler's own count, /proc/PID/task/*/schedstat):
    /// for spans of milliseconds, where `cpuSeconds` moves in 10 ms ticks.
    static func runTime(pid: pid_t) -> Double? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        return tasks.reduce(0.0) { sum, task in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            return sum + (text.split(separator: " ").first.flatMap { Double($0) } ?? 0) / 1e9
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
