/// The name an ALSA plug-in gives an app's client: PulseAudio's
/// (alsa-plugins, `pulse/pulse.c`) and PipeWire's in its earlier releases
/// name it `ALSA plug-in [<program>]`, PipeWire's in 1.x
/// (`pipewire-alsa/alsa-plugins/pcm_pipewire.c`) `PipeWire ALSA [<program>]`,
/// `<program>` being the binary's name: an app played through ALSA names
/// itself nowhere else. The app itself is the program in
/// brackets (docs/CLASSIFICATION.md, "The ALSA plug-in's name").
enum ALSAPluginName {
    static let prefixes = ["ALSA plug-in [", "PipeWire ALSA ["]

    /// The program in a plug-in's `application.name`, or nil.
    static func program(ofApplicationName name: String) -> String? {
        guard let prefix = prefixes.first(where: name.hasPrefix), name.hasSuffix("]") else { return nil }
        let program = name.dropFirst(prefix.count).dropLast()
        return program.isEmpty || program.contains("[") ? nil : String(program)
    }

    /// The program behind a stream played through an ALSA plug-in, from
    /// its `application.name`.
    static func program(_ props: StreamProperties) -> String? {
        props["application.name"].flatMap(program(ofApplicationName:))
    }
}
