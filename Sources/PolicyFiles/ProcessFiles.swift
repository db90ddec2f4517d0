#if canImport(Glibc)
import Glibc
#endif
import PolicyCore

/// What /proc says of a process, as the core's plain facts
/// (docs/CLASSIFICATION.md, "App knowledge"). A process that is gone, or
/// whose files cannot be read (another user's), simply reads as less.
public enum ProcessFiles {
    /// Its program, command line, the environment variables the core reads
    /// (only those: an environment holds secrets) and its cgroup; nil when
    /// the process is gone.
    public static func facts(of pid: Int32, proc: String = "/proc") -> ProcessFacts? {
        let directory = "\(proc)/\(pid)"
        guard let cmdline = try? FileContents.bytes(at: directory + "/cmdline") else { return nil }
        let environment = (try? FileContents.bytes(at: directory + "/environ"))
            .map { ProcessText.environment($0, keeping: ProcessFacts.environmentKeys) } ?? [:]
        return ProcessFacts(executable: executable(of: pid, proc: proc), arguments: ProcessText.arguments(cmdline),
                            environment: environment, cgroup: FileContents.text(at: directory + "/cgroup"))
    }

    /// Its parents, nearest first, as far as `levels` (or pid 1).
    public static func ancestors(of pid: Int32, levels: Int = 4, proc: String = "/proc") -> [AncestorFacts] {
        var ancestors: [AncestorFacts] = []
        var current = pid
        while ancestors.count < levels, let parent = parent(of: current, proc: proc), parent > 1 {
            let arguments = (try? FileContents.bytes(at: "\(proc)/\(parent)/cmdline")).map(ProcessText.arguments) ?? []
            ancestors.append(AncestorFacts(executable: executable(of: parent, proc: proc), arguments: arguments))
            current = parent
        }
        return ancestors
    }

    /// The basename of what it runs: `/proc/PID/exe`'s target (" (deleted)"
    /// dropped), else `/proc/PID/comm` (an exe unreadable: not our process).
    static func executable(of pid: Int32, proc: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("\(proc)/\(pid)/exe", &buffer, buffer.count - 1)
        if length > 0 {
            var path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
            return DesktopExec.basename(path)
        }
        return FileContents.text(at: "\(proc)/\(pid)/comm").map { String($0.prefix { $0 != "\n" }) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The parent of `pid`, nil when the process is gone or its stat unreadable.
    public static func parent(of pid: Int32, proc: String = "/proc") -> Int32? {
        FileContents.text(at: "\(proc)/\(pid)/stat").flatMap(parentPID(statLine:))
    }

    /// The ppid field of a /proc/<pid>/stat line: `pid (comm) state ppid …`.
    /// comm may hold spaces and parentheses, so the fields are counted from
    /// its last `)`.
    public static func parentPID(statLine: String) -> Int32? {
        guard let close = statLine.lastIndex(of: ")") else { return nil }
        let fields = statLine[statLine.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2 else { return nil }
        return Int32(fields[1])
    }
}
