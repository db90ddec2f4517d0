/// While the screen is shared, system sounds are silenced as during a
/// recording (docs/POLICY.md, "Presenting"): the same gain 0 on their
/// playback streams, linked as they are, and the same restore when it ends.
/// Like silent mode it silences them playing or not, so an alert cannot blip
/// before its first decision, and a silenced alert takes no part in holds
/// and effects: it is not heard.
extension DecisionRun {
    /// The screen cast that silences (the lowest node id), if presenting
    /// silences alerts and the screen is shared.
    var silencingScreenCast: ScreenCast? {
        guard config.settings.presentingSilencesAlerts else { return nil }
        return input.screenCasts.min { $0.node < $1.node }
    }

    mutating func silenceWhilePresenting() {
        guard silencingScreenCast != nil else { return }
        for index in sessions.indices where sessions[index].takesPart && sessions[index].category == .systemSound {
            sessions[index].silencedWhilePresenting = true
        }
    }
}
