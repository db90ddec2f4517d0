#if canImport(Glibc)
import Glibc
#endif
import PolicyCore
import PolicyPipeWire
import PolicyFiles

/// Where the config is searched: PipeWire's order (ConfigLoader), with the
/// system directories extended by the install prefix of this binary
/// (`/usr/local/bin/pw-policy` → `/usr/local/share/pw-policy`) and, when run
/// from a source checkout (`.build/…/pw-policy`), the checkout's `conf/`.
/// Files are read in the SPA-JSON dialect of the linked libpipewire, so
/// `check-config` and the agent accept what that PipeWire accepts.
public enum ConfigLocations {
    public static func loader(environment: [String: String] = currentEnvironment()) -> ConfigLoader {
        ConfigLoader(environment: environment, systemDirectories: systemDirectories(),
                     fileSystem: .live, dialect: PipeWireLibrary.configDialect)
    }

    public static func systemDirectories() -> [String] {
        var directories = ["/etc/pw-policy", "/usr/share/pw-policy"]
        let executable = resolved(CommandLine.arguments[0])
        let prefixShare = joined(parent(parent(executable)), "share/pw-policy")
        if !directories.contains(prefixShare) { directories.append(prefixShare) }
        // .build/<triple>/debug/pw-policy → the checkout's conf/
        var directory = parent(executable)
        for _ in 0..<4 {
            directory = parent(directory)
            let conf = joined(directory, "conf")
            if access(conf + "/pw-policy.conf", F_OK) == 0, access(joined(directory, "Package.swift"), F_OK) == 0 {
                directories.append(conf)
                break
            }
        }
        return directories
    }

    /// The absolute path with symbolic links resolved, or (when it does not
    /// exist) made absolute from the working directory.
    static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return "/" + path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }

    static func joined(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The directory holding `path` ("/" for "/" and top-level entries).
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
