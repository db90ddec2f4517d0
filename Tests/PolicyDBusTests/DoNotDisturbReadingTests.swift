@testable import PolicyDBus
import PolicyCore
import Testing

/// How a Do Not Disturb source's value is read for comparing
/// (docs/POLICY.md, "Do Not Disturb").
struct DoNotDisturbReadingTests {
    @Test(arguments: [
        (BusValue.variant(.bool(true)), DoNotDisturb.Reading.value("true")),
        (.bool(false), .value("false")),
        (.uint32(2), .value("2")),
        (.int64(-1), .value("-1")),
        (.string("dnd"), .value("dnd")),
    ])
    func busValues(_ value: BusValue, _ reading: DoNotDisturb.Reading) {
        #expect(DoNotDisturbObserver.reading(of: value) == reading)
    }

    @Test func aValueOfAnotherTypeIsUnusable() {
        guard case .unusable = DoNotDisturbObserver.reading(of: .double(1)) else {
            Issue.record("a double was read as a value")
            return
        }
        guard case .unusable = DoNotDisturbObserver.reading(of: .array([.bool(true)])) else {
            Issue.record("an array was read as a value")
            return
        }
    }

    /// What `gsettings get` prints: GVariant text.
    @Test(arguments: [
        ("true\n", true, DoNotDisturb.Reading.value("true")),
        ("false\n", true, .value("false")),
        ("uint32 5\n", true, .value("5")),
        ("'dnd'\n", true, .value("dnd")),
        ("No such schema “org.gnome.desktop.notifications”\n", false, .absent),
    ])
    func gsettingsOutput(_ output: String, _ succeeded: Bool, _ reading: DoNotDisturb.Reading) {
        #expect(GSettingsReader.reading(output: output, succeeded: succeeded) == reading)
    }

    @Test func dconfPathOfAKey() {
        #expect(GSettingsReader.dconfPath(schema: "org.gnome.desktop.notifications", key: "show-banners")
                == "/org/gnome/desktop/notifications/show-banners")
    }

    /// Another desktop's notification server holds the name: not a fault.
    @Test func anUnknownPropertyIsNotThere() {
        #expect(DoNotDisturbObserver.isNotThere(BusCallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "No such property")))
        #expect(!DoNotDisturbObserver.isNotThere(BusCallError(name: "org.freedesktop.DBus.Error.NoReply", message: "")))
    }
}
