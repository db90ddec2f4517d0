/// Who a stream belongs to. Two different questions need two different keys:
///
/// * **overrides** (`pw-policy set firefox …`) must survive the app's restart,
///   so they key on what stays the same across runs: the Flatpak app id, the
///   application id, the binary or the application name — never a pid;
/// * **sessions** group the streams of one *running instance* (a call's
///   capture and playback), so they key on the sandbox app id, the process id
///   or the client — plus the category, so a browser's music and its
///   notification pings are separate sessions.
public enum AppIdentity {
    /// The application key used for per-app overrides (same as `overrideKey`).
    public static func key(nodeProps: [String: String], clientProps: [String: String]) -> String {
        overrideKey(nodeProps: nodeProps, clientProps: clientProps)
    }

    /// Stable across runs: sandbox app id, `application.id`, binary (or the
    /// application name when the binary is an interpreter such as `python3`,
    /// which many apps share), `application.name`, `node.name`.
    public static func overrideKey(nodeProps: [String: String], clientProps: [String: String]) -> String {
        let props = StreamProperties(node: nodeProps, client: clientProps)
        if let appID = sandboxAppID(props) { return appID }
        if let appID = props["application.id"] { return appID }
        let name = props["application.name"]
        if let binary = props["application.process.binary"] {
            if InterpreterBinary.runsManyApps(binary), let name { return name }
            return binary
        }
        return name ?? props["node.name"] ?? "unknown"
    }

    /// One running instance of an app, without the category: what "the same
    /// app plays and captures at once" is measured over.
    public static func instanceKey(nodeProps: [String: String], clientProps: [String: String]) -> String {
        let props = StreamProperties(node: nodeProps, client: clientProps)
        // Inside a sandbox the reported pid is the namespace's (often 2 for
        // every Flatpak): the app id tells instances of different apps apart.
        if let appID = sandboxAppID(props) { return "app:\(appID)" }
        if let pid = props["application.process.id"] { return "pid:\(pid)" }
        // pipewire.sec.pid is deliberately not used: for PulseAudio clients it
        // is pipewire-pulse's own pid, which would merge every such app.
        if let client = props["client.id"] { return "client:\(client)" }
        if let serial = props["object.serial"] ?? props["object.id"] { return "node:\(serial)" }
        return "unknown"
    }

    /// The engine's session: one app instance and one category.
    public static func sessionKey(nodeProps: [String: String], clientProps: [String: String],
                                  category: Category) -> SessionKey {
        SessionKey("\(instanceKey(nodeProps: nodeProps, clientProps: clientProps))/\(category.rawValue)")
    }

    /// A name for people: "Firefox", "spotify", "com.spotify.Client".
    public static func displayName(nodeProps: [String: String], clientProps: [String: String]) -> String {
        let props = StreamProperties(node: nodeProps, client: clientProps)
        if let name = props["application.name"] { return name }
        if let binary = props["application.process.binary"] { return binary }
        if let appID = sandboxAppID(props) ?? props["application.id"] { return appID }
        if let name = props["node.name"] ?? props["media.name"] { return name }
        if let client = props["client.id"] { return "client \(client)" }
        return "unknown app"
    }

    /// The Flatpak (or other portal-sandboxed) app id, if the stream comes
    /// from a sandbox. `pipewire.access.portal.app_id` is set by the server,
    /// not the app; an `application.id` counts only inside a Flatpak.
    public static func sandboxAppID(nodeProps: [String: String], clientProps: [String: String]) -> String? {
        sandboxAppID(StreamProperties(node: nodeProps, client: clientProps))
    }

    static func sandboxAppID(_ props: StreamProperties) -> String? {
        if let appID = props["pipewire.access.portal.app_id"] { return appID }
        if props["pipewire.access"] == "flatpak", let appID = props["application.id"] { return appID }
        return nil
    }
}
