#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PolicyCore
import PolicyFiles

/// Where the config is searched: PipeWire's order (ConfigLoader), with the
/// system directories extended by the install prefix of this binary
/// (`/usr/local/bin/pw-policy` → `/usr/local/share/pw-policy`) and, when run
/// from a source checkout (`.build/…/pw-policy`), the checkout's `conf/`.
/// Files are read in the SPA-JSON dialect of the linked libpipewire, so
/// `check-config` and the agent accept what that PipeWire accepts.
public enum ConfigLocations {
    public static func loader(environment: [String: String] = ProcessInfo.processInfo.environment) -> ConfigLoader {
        ConfigLoader(environment: environment, systemDirectories: systemDirectories(),
                     fileSystem: .live, dialect: PipeWireLibrary.configDialect)
    }

    public static func systemDirectories() -> [String] {
        var directories = ["/etc/pw-policy", "/usr/share/pw-policy"]
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let prefixShare = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/pw-policy").path
        if !directories.contains(prefixShare) { directories.append(prefixShare) }
        // .build/<triple>/debug/pw-policy → the checkout's conf/
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            directory = directory.deletingLastPathComponent()
            let conf = directory.appendingPathComponent("conf")
            if FileManager.default.fileExists(atPath: conf.appendingPathComponent("pw-policy.conf").path),
               FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                directories.append(conf.path)
                break
            }
        }
        return directories
    }
}
