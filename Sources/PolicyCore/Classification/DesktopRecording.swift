/// A capture of what the desktop plays (a sink's monitor) is a recording
/// when the app taking it records: alerts must not end up in a screen
/// recording (the seeds' reason for the record category). A meter, a
/// visualiser or an effect takes the same capture to measure or process
/// it, and stays audio-processing (docs/CLASSIFICATION.md, "Recordings of
/// what plays").
///
/// The app records when the desktop knows it as a recorder (its desktop
/// entry's `Recorder`, `AudioVideoEditing`; a known recorder's name), or
/// when the same app instance also captures a microphone or video (Kazam's
/// entry says only `AudioVideo`, but it records the microphone beside the
/// desktop, from one process).
enum DesktopRecording {
    /// What says that a capture takes what a sink plays, nil when nothing
    /// does or when the stream says it is a meter: pipewire-pulse marks a
    /// peak-detect stream `stream.monitor`, meters ask for `resample.peaks`
    /// or run passive.
    static func capturesWhatPlays(_ props: StreamProperties, direction: StreamDirection) -> String? {
        // One half of a virtual device (a loopback from a monitor) is plumbing.
        guard direction == .capture, props["node.link-group"] == nil else { return nil }
        let meterMarks = ["stream.monitor", "resample.peaks", "node.passive"]
        if meterMarks.contains(where: props.isTrue) { return nil }
        if props["media.category"]?.lowercased() == "monitor" { return nil }
        if let name = props["media.name"]?.lowercased(), RoleInference.meterNames.contains(where: name.containsText) { return nil }
        if props.isTrue("stream.capture.sink") {
            return "stream.capture.sink = \"\(props["stream.capture.sink"] ?? "")\" (it captures what a sink plays)"
        }
        for key in ["target.object", "node.target"] {
            if let target = props[key], target.hasSuffix(".monitor") {
                return "\(key) = \"\(target)\" (it captures a sink's monitor)"
            }
        }
        return nil
    }

    /// A recording of what plays, from what the stream's properties and its
    /// app instance say; `recorder` names the desktop entry that says the
    /// app records, when the app-knowledge step found one.
    static func decide(_ props: StreamProperties, direction: StreamDirection, instance: InstanceFacts,
                       recorder: String? = nil) -> InferredCategory? {
        guard let what = capturesWhatPlays(props, direction: direction) else { return nil }
        let known = KnownApps.match(props)
        if let known, known.kind == .audioProcessing || known.kind == .meter { return nil }
        if let recorder {
            return InferredCategory(.record, evidence: "\(what) by \(recorder): a recording of what plays")
        }
        if let known, known.kind == .recorder {
            return InferredCategory(.record, evidence: "\(what) by \(known.evidence): a recording of what plays")
        }
        if let microphone = instance.microphone {
            return InferredCategory(.record, evidence:
                "\(what), and its app also captures \(microphone.description): a recording of what plays")
        }
        if let video = instance.video {
            return InferredCategory(.record, evidence:
                "\(what), and its app also captures video, \(video.description): a recording of what plays")
        }
        return nil
    }
}
