#if canImport(Glibc)
import Glibc
#endif
import PolicyCore
import PolicyFiles

/// Process parents read from /proc/<pid>/stat, for matching players to
/// streams played by a child process (docs/PLAYERS.md). A process that is
/// gone (or unreadable) simply ends its line: the table is what could be read.
public enum ProcessAncestry {
    /// The parent of every pid in `pids` and of their ancestors, up to pid 1.
    public static func table(for pids: some Sequence<Int32>, proc: String = "/proc") -> [Int32: Int32] {
        var table: [Int32: Int32] = [:]
        for start in pids {
            var pid = start
            // Bounded: a pid reused mid-walk could in theory loop.
            for _ in 0..<64 where pid > 1 && table[pid] == nil {
                guard let parent = parent(of: pid, proc: proc) else { break }
                table[pid] = parent
                pid = parent
            }
        }
        return table
    }

    /// The parent of `pid`, nil when the process is gone or its stat unreadable.
    public static func parent(of pid: Int32, proc: String = "/proc") -> Int32? {
        ProcessFiles.parent(of: pid, proc: proc)
    }
}
