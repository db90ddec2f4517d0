import PolicyModel

/// WirePlumber 0.4 publishes no version of its own (its client has no
/// `application.version`, only `core.version`, which is libpipewire's), but
/// the file name of the libwireplumber its process has loaded carries it:
/// 0.4.13 loads `libwireplumber-0.4.so.0.4.13`; 0.5.8 would load
/// `libwireplumber-0.5.so.0.508.0` (minor = major·1000 + minor·100 + micro).
public enum LinkedWirePlumberLibrary {
    /// The version in a process's memory map (`/proc/PID/maps`), nil when it
    /// has no libwireplumber loaded or the name does not read as one.
    public static func version(inMaps maps: String) -> SemanticVersion? {
        for line in maps.split(separator: "\n") {
            // The path is the first field from "/" on; "(deleted)" may
            // follow it when the package was upgraded under the process.
            guard let path = line.split(separator: " ").first(where: { $0.hasPrefix("/") }),
                  let name = path.split(separator: "/").last, name.hasPrefix("libwireplumber-"),
                  let version = version(fileName: String(name)) else { continue }
            return version
        }
        return nil
    }

    /// `libwireplumber-API.so.LIBVERSION` → the release, checked against its API.
    static func version(fileName: String) -> SemanticVersion? {
        let name = fileName.dropFirst("libwireplumber-".count)
        guard let so = name.firstRange(ofText: ".so."), let api = SemanticVersion(parsing: String(name[..<so.lowerBound])),
              let library = SemanticVersion(parsing: String(name[so.upperBound...])) else { return nil }
        let release: SemanticVersion
        if library.major == api.major && library.minor == api.minor {
            release = library                       // 0.4: the release itself
        } else if library.major == 0 && library.patch == 0 {
            let encoded = library.minor             // 0.5: 0.(M·1000 + m·100 + p).0
            release = SemanticVersion(encoded / 1000, encoded % 1000 / 100, encoded % 100)
        } else {
            return nil
        }
        return release.major == api.major && release.minor == api.minor ? release : nil
    }
}
