#if canImport(Glibc)
import Glibc
#endif
import PolicyCore
import PolicyFiles

/// What knowing the app costs (docs/CLASSIFICATION.md, "App knowledge"):
/// reading this machine's desktop entries (at start and when they change),
/// reading one process from /proc (once, when a client first names it),
/// and resolving a client's facts (when its properties change).
struct AppKnowledgeCost {
    var entries: Int
    var directories: Int
    var indexMilliseconds: Double
    var processMicroseconds: Double
    var resolveMicroseconds: Double

    static func measure(environment: [String: String]) -> AppKnowledgeCost {
        let clock = ContinuousClock()
        let directories = DesktopEntryFiles.directories(environment: environment)
        var index = DesktopEntryIndex([])
        let indexTime = best(of: 5) { clock.measure { index = DesktopEntryFiles.index(directories: directories) } }
        let pid = getpid()
        var read: AppProcess.Read?
        let processTime = best(of: 5) {
            clock.measure {
                for _ in 0..<20 {
                    read = ProcessFiles.facts(of: pid).map { AppProcess.Read(process: $0, ancestors: ProcessFiles.ancestors(of: pid)) }
                }
            }
        } / 20
        // A client whose entry is found by its program, the common case.
        let node = ["media.class": "Stream/Output/Audio", "application.name": "Some Game", "node.name": "game"]
        let client = ["pipewire.sec.pid": String(pid), "application.process.binary": "supertuxkart"]
        var process = read?.process ?? ProcessFacts()
        process.executable = "supertuxkart"
        var found: AppFacts?
        let resolveTime = best(of: 5) {
            clock.measure {
                for _ in 0..<200 {
                    found = AppFacts.resolve(nodeProps: node, clientProps: client, process: process,
                                             ancestors: read?.ancestors ?? [], entries: index)
                }
            }
        } / 200
        if found?.executable == "unreachable" { print("unreachable") }
        return AppKnowledgeCost(entries: index.count, directories: directories.count,
                                indexMilliseconds: indexTime * 1000, processMicroseconds: processTime * 1_000_000,
                                resolveMicroseconds: resolveTime * 1_000_000)
    }

    private static func best(of rounds: Int, _ run: () -> Duration) -> Double {
        (0..<rounds).map { _ in
            let duration = run()
            return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }.min() ?? 0
    }
}
