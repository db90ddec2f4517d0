/// How `silent` reports the switch.
public enum SilentRenderer {
    public static let type = "PwPolicy:SilentMode"

    public static func text(_ on: Bool, style: TextStyle = .plain) -> String {
        "silent mode: " + (on ? style.magenta("on") : "off")
    }

    public static func json(_ on: Bool) -> String {
        CLIJSON.render([CLIJSON.Entry(id: 0, type: type, info: ["silentMode": on])])
    }
}
