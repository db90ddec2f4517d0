import Foundation
import PolicyTestSupport

/// A systemd unit as a desktop's launcher makes one for an app
/// (docs/TESTING.md, "Apps as they run on a desktop"): a cgroup directory
/// under the user's `app.slice` in the unified hierarchy, which a process
/// joins before it runs the app's program, so that `/proc/PID/cgroup` shows
/// `0::/user.slice/…/app.slice/<unit>` for it and for whatever it starts.
/// Needs root (the tests run as root) and a cgroup2 mount (`/sys/fs/cgroup`,
/// or `/sys/fs/cgroup/unified` on a hybrid system): a test without them fails.
final class LaunchScope {
    let unit: String
    let directory: String

    /// `unit` as the launcher names it, escapes and all
    /// (`app-gnome-0ad-6120.scope`); its RANDOM should be unique per test.
    init(_ unit: String) throws {
        guard let root = Self.unifiedRoot else { throw LaunchScopeError.noCgroup2 }
        self.unit = unit
        directory = root + "/user.slice/user-1000.slice/user@1000.service/app.slice/" + unit
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw LaunchScopeError.cannotCreate(directory, "\(error)")
        }
    }

    /// `arguments` run inside the unit: a shell joins it, then execs them.
    func wrap(_ arguments: [String]) -> [String] {
        ["/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"", directory + "/cgroup.procs"] + arguments
    }

    /// `arguments` run inside the unit by a shell that stays their parent,
    /// with `parentArguments` on the shell's own command line: what a
    /// browser process started for a web app shows its children.
    func wrapUnderParent(_ arguments: [String], parentArguments: [String]) -> [String] {
        // The shell runs its first arguments and keeps the rest on its
        // command line; the trailing `:` keeps it from exec'ing the command.
        let command = (1...max(arguments.count, 1)).map { "\"$\($0)\"" }.joined(separator: " ")
        return ["/bin/sh", "-c", "echo $$ > \"$0\" && \(command); :", directory + "/cgroup.procs"]
            + arguments + parentArguments
    }

    /// The unified hierarchy's line of the process's /proc/PID/cgroup.
    static func cgroup(of pid: Int32) -> String {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("0::") }.map(String.init) ?? ""
    }

    /// Ends what still runs in the unit (what the test started there: a
    /// wrapper script's child outlives the script) and removes its directory.
    func remove() {
        for attempt in 0..<50 {
            if rmdir(directory) == 0 || errno == ENOENT { return }
            let procs = (try? String(contentsOfFile: directory + "/cgroup.procs", encoding: .utf8)) ?? ""
            for pid in procs.split(separator: "\n").compactMap({ Int32($0) }) {
                kill(pid, attempt < 20 ? SIGTERM : SIGKILL)
            }
            usleep(100_000)
        }
    }

    deinit { remove() }

    /// The cgroup2 mount point, from /proc/self/mounts.
    static var unifiedRoot: String? {
        guard let mounts = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count >= 3, fields[2] == "cgroup2" { return String(fields[1]) }
        }
        return nil
    }
}

enum LaunchScopeError: Error, CustomStringConvertible {
    case noCgroup2
    case cannotCreate(String, String)

    var description: String {
        switch self {
        case .noCgroup2: "no cgroup2 hierarchy is mounted: launch units cannot be made"
        case .cannotCreate(let path, let error): "cannot create the unit \(path) (the tests run as root): \(error)"
        }
    }
}
