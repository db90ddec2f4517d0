/// A web app a browser installed as an app of its own: a desktop entry the
/// browser wrote that starts the browser on one site, in a window (and
/// often a launch unit) of its own (docs/CLASSIFICATION.md, "Web apps").
/// Its streams come from the browser's processes, which must not make it
/// the browser: Google Meet installed from Chrome is a call app.
///
/// The browsers write the same marks into the entry and onto the command
/// line of the browser process they start, and this is what ties the two:
///
/// * Chromium, Chrome, Edge, Brave, Vivaldi: `Exec=<browser>
///   --profile-directory=Default --app-id=<id>`, `StartupWMClass=crx_<id>`,
///   the entry `chrome-<id>-Default.desktop`
///   (`chrome/browser/shell_integration_linux.cc`, `GetDesktopFileContentsForCommand`);
/// * PWAsForFirefox: `Exec=firefoxpwa site launch <ULID>`,
///   `StartupWMClass=FFPWA-<ULID>`, and it starts Firefox with `--class
///   FFPWA-<ULID>` (`native/src/components/site.rs`);
/// * Linux Mint's Web Apps: `StartupWMClass=WebApp-<name>`, the browser
///   started with `--class WebApp-<name>` (`--class=` for Chromium's);
/// * GNOME Web (Epiphany): the entry `org.gnome.Epiphany.WebApp_<id>`
///   (earlier `epiphany-<name>-<sha1>`), started with `--application-mode
///   --profile=<data dir>/<that id>`.
public enum WebApp {
    /// The keys an entry's web app is known by; empty when the entry is no
    /// web app's.
    public static func keys(of entry: DesktopEntry) -> [String] {
        var found: [String] = []
        func add(_ key: String) { if !key.isEmpty && !found.contains(key) { found.append(key) } }
        if let exec = entry.exec {
            for key in keys(ofCommandLine: DesktopExec.arguments(exec)) { add(key) }
        }
        if let wmClass = entry.startupWMClass, isWebAppClass(wmClass) { add(wmClass) }
        if isEpiphanyWebAppID(entry.id) { add(entry.id) }
        return found
    }

    /// The keys a command line shows a browser runs a web app by: `crx_<id>`
    /// for `--app-id=<id>`, a `--class` that is a web app's, an Epiphany web
    /// app's profile, PWAsForFirefox's `site launch <ULID>`.
    public static func keys(ofCommandLine commandLine: [String]) -> [String] {
        // Chromium rewrites its processes' command lines as one string
        // joined by blanks (`/proc/PID/cmdline` then holds one argument).
        let arguments = commandLine.count == 1 && commandLine[0].contains(" ")
            ? commandLine[0].split(separator: " ").map(String.init) : commandLine
        var keys: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            let next = arguments.index(after: index) < arguments.endIndex ? arguments[arguments.index(after: index)] : nil
            if let id = value(of: "--app-id", in: argument, next: nil), !id.isEmpty {
                keys.append("crx_" + id)
            } else if let wmClass = value(of: "--class", in: argument, next: next), isWebAppClass(wmClass) {
                keys.append(wmClass)
            } else if let profile = value(of: "--profile", in: argument, next: next) {
                let name = DesktopExec.basename(profile.hasSuffix("/") ? String(profile.dropLast()) : profile)
                if isEpiphanyWebAppID(name) { keys.append(name) }
            } else if argument == "site", next == "launch",
                      arguments.index(index, offsetBy: 2) < arguments.endIndex {
                keys.append("FFPWA-" + arguments[arguments.index(index, offsetBy: 2)])
            }
            index = arguments.index(after: index)
        }
        return keys
    }

    /// `--name=value`, or `--name value` when `next` is given.
    static func value(of option: String, in argument: String, next: String?) -> String? {
        if argument.hasPrefix(option + "=") { return String(argument.dropFirst(option.count + 1)) }
        if argument == option { return next }
        return nil
    }

    /// Window classes the browsers give web apps' windows.
    static func isWebAppClass(_ wmClass: String) -> Bool {
        ["crx_", "FFPWA-", "WebApp-"].contains { wmClass.hasPrefix($0) && wmClass.count > $0.count }
    }

    static func isEpiphanyWebAppID(_ id: String) -> Bool {
        id.hasPrefix("org.gnome.Epiphany.WebApp_") || (id.hasPrefix("epiphany-") && id.count > "epiphany-".count + 40)
    }
}
