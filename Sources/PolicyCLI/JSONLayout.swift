/// Lays out compact JSON the way pw-dump prints it: two-space indentation,
/// `"key": value`, empty containers as `[]` and `{}`. (Foundation's pretty
/// printer differs between platforms.)
enum JSONLayout {
    static func pretty(_ compact: String) -> String {
        var out = ""
        var depth = 0
        var inString = false
        var escaped = false
        let characters = Array(compact)
        var index = 0
        func newline() { out += "\n" + String(repeating: "  ", count: depth) }
        while index < characters.count {
            let character = characters[index]
            defer { index += 1 }
            if inString {
                out.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"":
                inString = true
                out.append(character)
            case "{", "[":
                let closing: Character = character == "{" ? "}" : "]"
                if index + 1 < characters.count, characters[index + 1] == closing {
                    out.append(character); out.append(closing)
                    index += 1
                } else {
                    out.append(character)
                    depth += 1
                    newline()
                }
            case "}", "]":
                depth -= 1
                newline()
                out.append(character)
            case ",":
                out.append(character)
                newline()
            case ":":
                out += ": "
            case " ", "\n", "\t", "\r":
                continue
            default:
                out.append(character)
            }
        }
        return out
    }
}
