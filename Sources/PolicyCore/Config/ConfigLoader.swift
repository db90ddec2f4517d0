
/// A configuration as loaded: the policy, the files it came from, and the
/// merged document they made (what `check-config` prints).
public struct LoadedConfig: Sendable, Equatable {
    public var config: PolicyConfig
    /// The files read, in the order they were merged: the main file, then the drop-ins.
    public var files: [String]
    public var merged: SPAJSON

    public init(config: PolicyConfig, files: [String], merged: SPAJSON) {
        self.config = config; self.files = files; self.merged = merged
    }
}

/// Finds, reads, merges and validates the configuration, as PipeWire finds
/// its own:
///
/// * directories, highest priority first: `$PW_POLICY_CONFIG_DIR` alone when
///   it is set; otherwise `$XDG_CONFIG_HOME/pw-policy` (`~/.config/pw-policy`
///   when unset), `/etc/pw-policy`, `/usr/share/pw-policy`;
/// * the main file is `pw-policy.conf` from the first directory that has one;
/// * drop-ins are the `*.conf` files of `pw-policy.conf.d/` in every
///   directory; a name in a higher-priority directory hides the same name in
///   lower ones (so a user can mask a system fragment), and all of them are
///   merged over the main file in name order (as WirePlumber 0.5 does).
///
/// Files are read in the SPA-JSON dialect of the PipeWire installed beside
/// the agent (`SPAJSONDialect`), so a file is refused exactly when that
/// PipeWire would read it differently or not at all.
public struct ConfigLoader: Sendable {
    public static let fileName = "pw-policy.conf"
    public static let dropInDirectoryName = "pw-policy.conf.d"
    public static let defaultSystemDirectories = ["/etc/pw-policy", "/usr/share/pw-policy"]

    public var environment: [String: String]
    public var systemDirectories: [String]
    public var fileSystem: ConfigFileSystem
    public var dialect: SPAJSONDialect

    public init(environment: [String: String], systemDirectories: [String] = defaultSystemDirectories,
                fileSystem: ConfigFileSystem, dialect: SPAJSONDialect = .default) {
        self.environment = environment; self.systemDirectories = systemDirectories; self.fileSystem = fileSystem
        self.dialect = dialect
    }

    /// The directories searched, highest priority first.
    public var searchDirectories: [String] {
        if let dir = environment["PW_POLICY_CONFIG_DIR"], !dir.isEmpty {
            return [dir]
        }
        var directories: [String] = []
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            directories.append(config + "/pw-policy")
        } else if let home = environment["HOME"], !home.isEmpty {
            directories.append(home + "/.config/pw-policy")
        }
        return directories + systemDirectories
    }

    /// What a watcher should watch to notice any change that `load()` would
    /// see: each search directory and its drop-in directory (most do not exist).
    public var watchedDirectories: [String] {
        searchDirectories.flatMap { [$0, $0 + "/" + Self.dropInDirectoryName] }
    }

    /// The files `load()` reads, in merge order.
    public func locateFiles() throws(ConfigError) -> [String] {
        let directories = searchDirectories
        guard let main = directories.lazy.map({ $0 + "/" + Self.fileName }).first(where: fileSystem.isFile) else {
            throw ConfigError(file: Self.fileName, "not found in any of: \(directories.joined(separator: ", "))")
        }
        return [main] + dropIns(in: directories)
    }

    /// The configuration from the search path.
    public func load() throws(ConfigError) -> LoadedConfig {
        try load(files: try locateFiles())
    }

    /// Exactly this file, as the whole configuration (no search, no drop-ins):
    /// `pw-policy check-config FILE`.
    public func load(file: String) throws(ConfigError) -> LoadedConfig {
        try load(files: [file])
    }

    /// The configuration from the search path with one more fragment merged
    /// last: to check a fragment before installing it.
    public func load(addingFragment fragment: String) throws(ConfigError) -> LoadedConfig {
        try load(files: try locateFiles() + [fragment])
    }

    /// These files merged in this order and validated.
    public func load(files: [String]) throws(ConfigError) -> LoadedConfig {
        var documents: [SPAJSON] = []
        var errors: [ConfigError] = []
        for file in files {
            do {
                documents.append(try SPAJSONParser.parseDocument(bytes: try fileSystem.read(file), file: file, dialect: dialect))
            } catch {
                errors.append(error)
            }
        }
        if let error = ConfigError(collecting: errors) { throw error }
        guard let merged = ConfigMerge.merge(documents) else {
            throw ConfigError(file: Self.fileName, "no configuration file given")
        }
        let config = try ConfigDecoder().decode(merged)
        return LoadedConfig(config: config, files: files, merged: merged)
    }

    private func dropIns(in directories: [String]) -> [String] {
        var chosen: [String: String] = [:]
        for directory in directories {
            let dropInDirectory = directory + "/" + Self.dropInDirectoryName
            for name in fileSystem.listFiles(dropInDirectory) where name.hasSuffix(".conf") && chosen[name] == nil {
                chosen[name] = dropInDirectory + "/" + name
            }
        }
        // Byte order, as alphasort in the C locale: "10-a" < "9-b" < "a".
        return chosen.keys.sortedByUTF8 { $0 }.compactMap { chosen[$0] }
    }
}

/// The file system as the loader sees it: the real one is an adapter's
/// (`ConfigFileSystem.live`, PolicyPipeWire), tests use files in memory.
public struct ConfigFileSystem: Sendable {
    /// The file's bytes; throws when it cannot be read (missing included).
    public var read: @Sendable (_ path: String) throws(ConfigError) -> [UInt8]
    /// Whether a regular file (or a link to one) exists there.
    public var isFile: @Sendable (_ path: String) -> Bool
    /// The names of the regular files in a directory; empty when it does not exist.
    public var listFiles: @Sendable (_ directory: String) -> [String]

    public init(read: @escaping @Sendable (_ path: String) throws(ConfigError) -> [UInt8],
                isFile: @escaping @Sendable (_ path: String) -> Bool,
                listFiles: @escaping @Sendable (_ directory: String) -> [String]) {
        self.read = read; self.isFile = isFile; self.listFiles = listFiles
    }
}
