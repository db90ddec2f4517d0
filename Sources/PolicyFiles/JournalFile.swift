#if canImport(Glibc)
import Glibc
#endif
import PolicyCore

/// The agent's journal on disk: read at start, replaced whole on every
/// change. File I/O lives here, beside the other adapters, so that
/// PolicyCore stays pure.
public enum JournalFile {
    /// Nil when there is no journal yet.
    public static func load(from path: String) throws -> AgentJournal? {
        let contents: [UInt8]
        do {
            contents = try FileContents.bytes(at: path)
        } catch {
            // No journal yet (a typed `catch where` crashes the Swift 6.3 compiler).
            guard error.code == ENOENT || error.code == ENOTDIR else { throw error }
            return nil
        }
        return try AgentJournal.decoded(from: contents)
    }

    /// Writes to a temporary file and renames it over the old one, so a crash
    /// leaves either the old or the new journal, never half of one. Synced to
    /// disk only with `sync`: what the agent changed on streams guards against
    /// the agent dying, not the machine (whose streams die with it), and a
    /// sync costs milliseconds between a graph event and the reaction.
    public static func save(_ journal: AgentJournal, to path: String, sync: Bool = true) throws {
        try write(journal.encoded(), to: path, sync: sync)
    }

    /// Replaces the file at `path` with `data` as `save` does; `sticky` sets
    /// the sticky bit, which keeps a file in `$XDG_RUNTIME_DIR` from its
    /// periodic clean-up (the XDG base directory spec).
    public static func write(_ data: [UInt8], to path: String, sync: Bool, sticky: Bool = false) throws(FileError) {
        let temporary = path + ".new"
        var descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if descriptor < 0, errno == ENOENT {
            try makeDirectories(containing: path)
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        }
        func failure(_ code: Int32) -> FileError { FileError(path: path, code: code) }
        guard descriptor >= 0 else { throw failure(errno) }
        if sticky { _ = fchmod(descriptor, 0o1600) }
        var written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if sync, written == data.count, fsync(descriptor) != 0 { written = -1 }
        let writeError = errno
        close(descriptor)
        guard written == data.count else { throw failure(writeError) }
        guard rename(temporary, path) == 0 else { throw failure(errno) }
    }

    /// `mkdir -p` of the directory holding `path`.
    static func makeDirectories(containing path: String) throws(FileError) {
        var directory = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        for component in components {
            directory += (directory.isEmpty && !path.hasPrefix("/") ? "" : "/") + component
            if mkdir(directory, 0o777) != 0, errno != EEXIST { throw FileError(path: directory, code: errno) }
        }
    }
}
