#if canImport(Glibc)
import Glibc
#endif
import PolicyCore

/// The installed desktop entries (Desktop Entry Specification, "File
/// naming"; docs/CLASSIFICATION.md, "App knowledge"): every `*.desktop` under
/// the `applications` directory of each XDG data directory, most important
/// first, and of Flatpak's and Snap's exports where the data directories do
/// not name them already. The first entry of a desktop id wins.
public enum DesktopEntryFiles {
    public static func directories(environment: [String: String]) -> [String] {
        func absolute(_ path: String?) -> String? { path.flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let home = absolute(environment["HOME"])
        let dataHome = absolute(environment["XDG_DATA_HOME"]) ?? home.map { $0 + "/.local/share" }
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").compactMap { absolute(String($0)) }
        var directories: [String] = []
        for data in [dataHome].compactMap({ $0 }) + dataDirs + [home.map { $0 + "/.local/share/flatpak/exports/share" },
                                                              "/var/lib/flatpak/exports/share"].compactMap({ $0 }) {
            let applications = (data.hasSuffix("/") ? String(data.dropLast()) : data) + "/applications"
            if !directories.contains(applications) { directories.append(applications) }
        }
        if !directories.contains("/var/lib/snapd/desktop/applications") { directories.append("/var/lib/snapd/desktop/applications") }
        return directories
    }

    /// Every entry found, in the directories' order (subdirectories name
    /// the id: `kde4/foo.desktop` is `kde4-foo`). At most `limit` files are
    /// read: a runaway directory cannot stall the agent.
    public static func index(directories: [String], limit: Int = 5000) -> DesktopEntryIndex {
        var entries: [DesktopEntry] = []
        var read = 0
        for directory in directories {
            for relative in files(under: directory, suffix: ".desktop", depth: 3) {
                guard read < limit else { break }
                read += 1
                guard let text = FileContents.text(at: directory + "/" + relative),
                      let entry = DesktopEntry.parse(text, id: DesktopEntry.desktopID(relativePath: relative)) else { continue }
                entries.append(entry)
            }
        }
        return DesktopEntryIndex(entries)
    }

    /// The paths below `directory`, relative to it, of the regular files
    /// whose names end in `suffix`, sorted; absent directories have none.
    static func files(under directory: String, suffix: String, depth: Int) -> [String] {
        guard depth > 0, let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var found: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            guard name != ".", name != ".." else { continue }
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                found += files(under: path, suffix: suffix, depth: depth - 1).map { name + "/" + $0 }
            } else if name.hasSuffix(suffix) {
                found.append(name)
            }
        }
        return found.sorted()
    }
}
