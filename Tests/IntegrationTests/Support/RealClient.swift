import Foundation

/// The applications nobody here wrote that the real-client tests drive
///. A missing one fails the test with the Debian package that
/// brings it (scripts/install-deps installs them all), never skips it: a
/// behaviour proven only where the client happens to be installed is not
/// proven in CI.
enum RealClient {
    /// Throws unless `program` is an executable file on PATH (or a path).
    static func require(_ program: String, package: String) throws {
        _ = try path(of: program, package: package)
    }

    /// Where `program` is (on PATH, or the path given); throws when it is not there.
    static func path(of program: String, package: String) throws -> String {
        let candidates = program.contains("/") ? [program]
            : (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
                .split(separator: ":").map { "\($0)/\(program)" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw RealClientError.missing(program, package: package)
        }
        return found
    }
}

enum RealClientError: Error, CustomStringConvertible {
    case missing(String, package: String)
    case notReady(String, details: String)
    var description: String {
        switch self {
        case .missing(let program, let package):
            "'\(program)' is not installed: the test needs the real client (Debian package \(package); scripts/install-deps installs it)"
        case .notReady(let client, let details): "\(client) did not start: \(details)"
        }
    }
}
