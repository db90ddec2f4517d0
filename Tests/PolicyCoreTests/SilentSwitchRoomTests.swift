import Testing
@testable import PolicyCore

/// The silent switch, Do Not Disturb, the screen lock and presenting, in
/// their room, without the loop around them.
struct SilentSwitchRoomTests {
    static let dndOn = DoNotDisturb(onIn: ["GNOME"], answering: ["GNOME"])
    static let dndOff = DoNotDisturb(onIn: [], answering: ["GNOME"])

    struct Switch {
        var room = SilentSwitchRoom()
        var choice = SilentChoice.follow
        var seen: Bool?

        mutating func turn(_ requested: SilentChoice?, _ dnd: DoNotDisturb, at now: Double) -> SilentSwitchRoom.Step {
            room.follow(choice: &choice, seen: &seen, requested: requested, doNotDisturb: dnd, following: true,
                        switchIsThere: true, now: now)
        }
    }

    @Test func theUsersChoiceHoldsUntilDoNotDisturbChanges() {
        var silent = Switch()
        #expect(silent.turn(.follow, Self.dndOff, at: 0).event == nil)
        let chosen = silent.turn(.on, Self.dndOff, at: 1)
        #expect(chosen.mode.isOn && chosen.event?.hasSuffix(": the user's choice") == true, "\(String(describing: chosen.event))")
        #expect(chosen.rewrite == nil)
        let ended = silent.turn(.on, Self.dndOn, at: 5)
        #expect(silent.choice == .follow && ended.mode.isOn, "\(silent.choice)")
        #expect(ended.event?.contains("the user's choice (on) ends") == true, "\(String(describing: ended.event))")
        // The switch still reads "on": it is rewritten to the choice in force.
        #expect(ended.rewrite == .follow)
    }

    @Test func theSwitchsOldValueIsNotAChoiceUntilTheWriteComesBack() {
        var silent = Switch()
        _ = silent.turn(.on, Self.dndOff, at: 1)
        _ = silent.turn(.on, Self.dndOn, at: 5)  // rewritten to follow
        // Within a second the switch may still read "on": not a new choice.
        #expect(silent.turn(.on, Self.dndOn, at: 5.5).rewrite == nil)
        #expect(silent.choice == .follow)
        // Once the write came back, "on" again is the user's.
        _ = silent.turn(.follow, Self.dndOn, at: 5.6)
        _ = silent.turn(.on, Self.dndOn, at: 6)
        #expect(silent.choice == .on)
    }

    @Test func aLockIsAnEventOnlyWhenItChanges() {
        var room = SilentSwitchRoom()
        let locked = ScreenLock(lockedIn: ["GNOME"], answering: ["GNOME"])
        let first = room.follow(lock: locked, silences: true)
        #expect(first.lockedBy == "GNOME" && first.event?.reason == "locked")
        #expect(room.follow(lock: locked, silences: true).event == nil)
        #expect(room.follow(lock: locked, silences: false).lockedBy == nil)
        #expect(room.follow(lock: ScreenLock(answering: ["GNOME"]), silences: true).event?.reason == "unlocked")
    }

    @Test func presentingIsAnEventWhenTheCastsChange() {
        var room = SilentSwitchRoom()
        let cast = ScreenCast(node: 42, implementation: "gnome-shell", consumers: [57])
        #expect(room.follow(screenCasts: [], silencesAlerts: true) == nil)
        #expect(room.follow(screenCasts: [cast], silencesAlerts: true)?.text.hasSuffix("alerts silenced") == true)
        #expect(room.follow(screenCasts: [cast], silencesAlerts: true) == nil)
        #expect(room.follow(screenCasts: [], silencesAlerts: true)?.text.hasPrefix("presenting ended") == true)
    }
}
