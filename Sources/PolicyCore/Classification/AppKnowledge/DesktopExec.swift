/// The program an `Exec` line runs (Desktop Entry Specification, "The Exec
/// key"): its quoting, its field codes, and the `env VAR=value` prefix that
/// many packages put before the program (Debian's audacity: `env
/// GDK_BACKEND=x11 audacity %F`; dolphin-emu: `env QT_QPA_PLATFORM=xcb dolphin-emu`).
public enum DesktopExec {
    /// The arguments of an `Exec` value (already unescaped as a string):
    /// split on blanks, double quotes group, and inside them `\"`, `` \` ``,
    /// `\$` and `\\` stand for the character. Field codes (`%f %F %u %U %i %c
    /// %k`, the deprecated `%d %D %n %N %v %m`) are removed, `%%` is `%`;
    /// Flatpak's file-forwarding markers `@@`, `@@u` are dropped.
    public static func arguments(_ exec: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        var escaped = false
        for character in exec {
            if escaped {
                current.append(character); escaped = false; continue
            }
            if quoted {
                switch character {
                case "\\": escaped = true
                case "\"": quoted = false
                default: current.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(current); current = ""; inWord = false }
            case "\"":
                quoted = true; inWord = true
            case "\\":
                escaped = true; inWord = true
            default:
                current.append(character); inWord = true
            }
        }
        if inWord { words.append(current) }
        return words.compactMap(expandFieldCodes)
    }

    /// A word without its field codes; nil when nothing is left of it (a
    /// lone `%U`, or Flatpak's `@@u`).
    static func expandFieldCodes(_ word: String) -> String? {
        if word == "@@" || word == "@@u" { return nil }
        var result = ""
        var percent = false
        var removedCode = false
        for character in word {
            if percent {
                if character == "%" { result.append("%") } else { removedCode = true }
                percent = false
            } else if character == "%" {
                percent = true
            } else {
                result.append(character)
            }
        }
        return result.isEmpty && removedCode ? nil : result
    }

    /// The basename of the program an `Exec` value runs, past `env` and its
    /// `VAR=value` assignments and options; nil when there is none.
    public static func program(ofExec exec: String) -> String? {
        var words = arguments(exec)[...]
        guard var first = words.popFirst() else { return nil }
        if basename(first) == "env" {
            while let next = words.first {
                if next == "-u" || next == "--unset" || next == "-C" || next == "--chdir" {
                    words = words.dropFirst(2)
                } else if next.hasPrefix("-") || next.contains("=") {
                    words = words.dropFirst()
                } else {
                    break
                }
            }
            guard let program = words.popFirst() else { return nil }
            first = program
        }
        // `python3 /usr/share/app/app.py`: the script is the program.
        if InterpreterBinary.runsManyApps(basename(first)),
           let script = words.first(where: { !$0.hasPrefix("-") }) {
            first = script
        }
        let name = basename(first)
        return name.isEmpty ? nil : name
    }

    /// `/usr/lib/firefox-esr/firefox-esr` → `firefox-esr`.
    public static func basename<S: StringProtocol>(_ path: S) -> String {
        if let slash = path.lastIndex(of: "/") { return String(path[path.index(after: slash)...]) }
        return String(path)
    }
}
