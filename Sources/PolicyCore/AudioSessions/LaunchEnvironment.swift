/// What `pw-policy launch` adds to a command's environment so that its
/// streams are declared, native and PulseAudio clients alike (docs/API.md,
/// "pw-policy launch"): the declaration as the app's own stream properties
/// (`policy.category`, `policy.options`, `policy.mode`) and the session's
/// token (`policy.session`), in `PIPEWIRE_PROPS` (libpipewire adds it to
/// every stream it makes) and `PULSE_PROP` (libpulse adds it to the
/// client's properties, which pipewire-pulse puts on each stream), after
/// whatever the environment already had there.
public enum LaunchEnvironment {
    public static let pipewireProps = "PIPEWIRE_PROPS"
    public static let pulseProps = "PULSE_PROP"

    /// The two variables' new values. `token`: the session's, when one was made.
    public static func variables(for declaration: AudioSessionTable.Declaration, token: String?,
                                 existing: [String: String]) -> [String: String] {
        let options = declaration.options.sorted().map(\.rawValue)
        var pipewire: [String] = ["\(StreamPropertyPolicy.categoryKey)=\(declaration.category.rawValue)",
                                  "\(StreamPropertyPolicy.optionsKey)=" + (options.isEmpty ? "[ ]" : "[ \(options.joined(separator: " ")) ]"),
                                  "\(StreamPropertyPolicy.modeKey)=\(declaration.mode.rawValue)"]
        // libpulse splits on blanks: a list is written with commas (parseOptions takes both).
        var pulse: [String] = ["\(StreamPropertyPolicy.categoryKey)=\(declaration.category.rawValue)",
                               "\(StreamPropertyPolicy.modeKey)=\(declaration.mode.rawValue)"]
        if !options.isEmpty { pulse.insert("\(StreamPropertyPolicy.optionsKey)=\(options.joined(separator: ","))", at: 1) }
        if let token {
            pipewire.append("\(AudioSessionAPI.streamTokenKey)=\(token)")
            pulse.append("\(AudioSessionAPI.streamTokenKey)=\(token)")
        }
        // An object's members, or a bare list of them: libpipewire reads both.
        var before = existing[pipewireProps].map { Substring($0).classifierTrimmed() } ?? ""
        if before.hasPrefix("{"), before.hasSuffix("}") { before = before.dropFirst().dropLast().classifierTrimmed() }
        let pulseBefore = existing[pulseProps].map { Substring($0).classifierTrimmed() } ?? ""
        return [
            pipewireProps: "{ " + ([before].filter { !$0.isEmpty }.map(String.init) + pipewire).joined(separator: " ") + " }",
            pulseProps: ([pulseBefore].filter { !$0.isEmpty }.map(String.init) + pulse).joined(separator: " "),
        ]
    }
}
