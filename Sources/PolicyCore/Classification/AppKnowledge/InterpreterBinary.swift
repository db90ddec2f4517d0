/// Binaries that run many different apps — shells, language runtimes,
/// Wine, sandboxes: their name says nothing about the app, so the app is
/// named by what they run (docs/CLASSIFICATION.md, "App knowledge").
enum InterpreterBinary {
    static func runsManyApps(_ binary: String) -> Bool {
        let name = binary.lowercased()
        let exact: Set<String> = ["sh", "bash", "dash", "zsh", "dotnet", "lua", "luajit", "bwrap"]
        if exact.contains(name) { return true }
        // Versioned names too: python3.11, electron25, wine64-preloader.
        let families = ["python", "java", "node", "electron", "wine", "mono", "perl", "ruby", "gjs", "qemu"]
        return families.contains { family in
            guard name.hasPrefix(family) else { return false }
            guard let next = name.dropFirst(family.count).first else { return true }
            return next.isNumber || "-_.".contains(next)
        }
    }
}
