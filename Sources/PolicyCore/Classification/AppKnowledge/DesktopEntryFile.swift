/// The key file syntax of the Desktop Entry Specification ("Basic format of the
/// file", "Possible value types"), as far as the agent reads it.
enum DesktopEntryFile {
    /// The unlocalized keys of the `[Desktop Entry]` group, values unescaped
    /// (`\s`, `\n`, `\t`, `\r`, `\\`). Comments, blank lines, other groups
    /// (`[Desktop Action new-window]`) and localized keys (`Name[de]`) are
    /// skipped; the first of a repeated key counts. Nil without the group.
    static func mainGroup(of text: String) -> [String: String]? {
        var values: [String: String] = [:]
        var inMain = false
        var sawMain = false
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.classifierTrimmed()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                // Only the first group may be `[Desktop Entry]`; a second one is not read.
                inMain = line == "[Desktop Entry]" && !sawMain
                sawMain = sawMain || inMain
                continue
            }
            guard inMain, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].classifierTrimmed()
            if key.isEmpty || key.contains("[") { continue }
            let value = line[line.index(after: equals)...].classifierTrimmed()
            if values[String(key)] == nil { values[String(key)] = unescape(value) }
        }
        return sawMain ? values : nil
    }

    /// A `string` value's escapes. `\;` is kept for `list` to split on.
    static func unescape<S: StringProtocol>(_ value: S) -> String {
        var result = ""
        var escaped = false
        for character in value {
            if escaped {
                switch character {
                case "s": result.append(" ")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\\": result.append("\\")
                default: result.append("\\"); result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }

    /// A list value split on `;` (`\;` is a semicolon inside an item); empty
    /// items dropped, so a trailing `;` adds nothing.
    static func list(_ value: String) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                if character != ";" { current.append("\\") }
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ";" {
                items.append(current); current = ""
            } else {
                current.append(character)
            }
        }
        items.append(current)
        return items.map { String($0.classifierTrimmed()) }.filter { !$0.isEmpty }
    }
}
