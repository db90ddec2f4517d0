import PolicyCore

extension ConfigFileSystem {
    /// Files held in memory, by full path.
    static func inMemory(_ files: [String: String]) -> ConfigFileSystem {
        ConfigFileSystem(
            read: { path throws(ConfigError) in
                guard let text = files[path] else { throw ConfigError(file: path, "cannot read: No such file or directory") }
                return Array(text.utf8)
            },
            isFile: { files[$0] != nil },
            listFiles: { directory in
                files.keys.compactMap { path in
                    guard path.hasPrefix(directory + "/") else { return nil }
                    let name = path.dropFirst(directory.count + 1)
                    return name.contains("/") ? nil : String(name)
                }
            })
    }
}
