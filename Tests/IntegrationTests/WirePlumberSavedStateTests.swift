import Testing

/// The reader of WirePlumber's stored stream state that the real-client
/// tests use, on both generations' files: only one generation is installed
/// at a time, and a reader that misread the other would pass its checks on
/// nothing. The 0.4 lines are as 0.4.13 wrote them here; the 0.5 line as
/// 0.5.8's state-stream.lua and WpSpaJsonBuilder write one (`%.6f`, ", ").
@Suite struct WirePlumberSavedStateTests {
    @Test func readsWirePlumber04RestoreStream() {
        let state = WirePlumberSavedState.parse("""
            [restore-stream]
            Audio/Sink:node.name:speakers:volume=1.0
            Output/Audio:application.name:mpv:channelMap=FL;FR;
            Output/Audio:application.name:mpv:channelVolumes=0.5;0.5;
            Output/Audio:application.name:mpv:mute=false
            Output/Audio:application.name:mpv:volume=0.2
            Output/Audio:application.name:Chromium\\sinput:volume=1.0
            Output/Audio:media.role:Notification:volume=0.0
            """)
        #expect(state["Output/Audio:application.name:mpv"] == .init(volume: 0.2, mute: false, channelVolumes: [0.5, 0.5],
                                                                   channelMap: ["FL", "FR"]))
        #expect(state["Output/Audio:application.name:Chromium input"]?.volume == 1)
        #expect(state["Output/Audio:media.role:Notification"]?.volume == 0)
        #expect(state["Audio/Sink:node.name:speakers"]?.volume == 1)
    }

    @Test func readsWirePlumber05StreamProperties() {
        let state = WirePlumberSavedState.parse("""
            [stream-properties]
            Output/Audio:application.name:mpv={"volume":0.200000, "mute":false, "channelVolumes":[0.500000, 0.500000], "channelMap":["FL", "FR"]}
            Output/Audio:media.role:Notification={"channelMap":["FL", "FR"], "volume":0.000000, "target":"speakers"}
            Output/Audio:application.name:a\\eb\\oc\\c={"volume":1.000000}
            """)
        #expect(state["Output/Audio:application.name:mpv"] == .init(volume: 0.2, mute: false, channelVolumes: [0.5, 0.5],
                                                                   channelMap: ["FL", "FR"]))
        #expect(state["Output/Audio:media.role:Notification"] == .init(volume: 0, channelMap: ["FL", "FR"]))
        #expect(state["Output/Audio:application.name:a=b[c]"]?.volume == 1)
    }
}
