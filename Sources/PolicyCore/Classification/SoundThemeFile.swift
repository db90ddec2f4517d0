/// A file of the desktop's sound themes: the XDG Sound Theme Specification
/// puts a theme's sounds under `$XDG_DATA_DIRS/sounds/<theme>/` (and
/// `$XDG_DATA_HOME/sounds/<theme>/`), e.g.
/// `/usr/share/sounds/freedesktop/stereo/complete.oga`. A program playing
/// one plays an alert or a UI sound, whoever started it
/// (docs/CLASSIFICATION.md, "Sound-theme files").
enum SoundThemeFile {
    /// Whether `path` is a file in a theme directory of a `share/sounds`
    /// directory: `…/share/sounds/<theme>/…/<file>.<extension>`.
    static func isSoundThemeFile(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        guard let sounds = components.indices.dropFirst().first(where: {
            components[$0] == "sounds" && components[$0 - 1] == "share"
        }) else { return false }
        // A theme directory, then the file.
        guard components.count - sounds >= 3, let file = components.last, let dot = file.lastIndex(of: "."),
              dot != file.startIndex, file.index(after: dot) != file.endIndex else { return false }
        return true
    }

    /// The property that names a sound-theme file the stream plays:
    /// `media.filename` (pw-cat, paplay, libcanberra), else a `media.name`
    /// that is a path (pw-cat and paplay name the stream after the file).
    static func played(_ props: StreamProperties) -> (key: String, path: String)? {
        for key in ["media.filename", "media.name"] {
            if let path = props[key], path.hasPrefix("/") || path.hasPrefix("~"), isSoundThemeFile(path) {
                return (key, path)
            }
        }
        return nil
    }
}
