#if canImport(Glibc)
import Glibc
#endif
import PolicyCore

extension ConfigFileSystem {
    /// The real file system, for the agent and the CLI (PolicyCore reads no
    /// files itself).
    public static let live = ConfigFileSystem(
        read: { path throws(ConfigError) in try readWholeFile(path) },
        isFile: { isRegularFile($0) },
        listFiles: { directory in
            guard let stream = opendir(directory) else { return [] }
            defer { closedir(stream) }
            var names: [String] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != ".", name != "..", isRegularFile(directory + "/" + name) {
                    names.append(name)
                }
            }
            return names
        })
}

private func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
}

private func readWholeFile(_ path: String) throws(ConfigError) -> [UInt8] {
    do {
        return try FileContents.bytes(at: path)
    } catch {
        throw ConfigError(file: path, "cannot read: \(error.reason)")
    }
}
