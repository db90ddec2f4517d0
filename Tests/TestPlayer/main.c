// pw-policy-test-player: an MPRIS player for the player tests
// (docs/PLAYERS.md, "The test player"). It owns
// org.mpris.MediaPlayer2.pwpolicytest.SUFFIX on the session bus
// (DBUS_SESSION_BUS_ADDRESS), implements Player.Pause/Play/PlayPause/Stop
// and the PlaybackStatus/Metadata/CanPause/CanPlay/Identity properties with
// PropertiesChanged, and plays a 440 Hz tone on a pw_stream that is active
// while it says Playing. It covers what mpv cannot:
//
//   --child            the stream is played by a forked child process; the
//                      bus connection stays with the parent (a browser's layout)
//   --ignore-pause     answers Pause but keeps playing and keeps saying Playing
//   --vanish-on-pause  exits, without answering, when told to Pause
//   --paused           starts paused (stream inactive, PlaybackStatus Paused)
//   --flood KIND       floods the bus: every 10 ms, 50 PropertiesChanged of
//                      Metadata (KIND metadata: a new title each time) or of
//                      an unchanged PlaybackStatus (KIND status), as some
//                      players do (docs/PLAYERS.md, "A player that floods
//                      the bus"); "sent N" on stdin's "flood" command
//   --flood-after MS   starts the flood MS after it is ready (default: at once)
//   --name SUFFIX      the bus name's last part (default: the pid)
//   -P PROPS           stream properties, SPA-JSON as pw-play's -P
//   -r REMOTE          the PipeWire remote
//
// Commands, one per line on stdin:
//   position   prints "position N": frames played so far (frozen while paused)
//   flood      prints "sent N": PropertiesChanged flooded so far
//   quit       leaves (so do SIGTERM and SIGINT; end of input does not)
//
// It prints "ready bus NAME pid PID stream-pid PID" once it owns its name,
// and "status S" whenever its PlaybackStatus changes.
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <spa/utils/result.h>
#include <systemd/sd-bus.h>

#include "pw_policy_helper.h"

#define RATE 48000
#define CHANNELS 2

struct options {
    const char *remote;
    const char *suffix;
    const char *props;
    const char *flood;  // NULL, "metadata" or "status"
    long flood_after_ms;
    bool child, ignore_pause, vanish_on_pause, paused;
};

// MARK: - the audio side: a tone whose stream follows "play"/"pause" commands

struct audio {
    struct pw_main_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_stream *stream;
    struct spa_hook listener;
    uint64_t frames;
    double phase;
    struct helper_lines commands;
};

static void on_process(void *data) {
    struct audio *a = data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(a->stream);
    if (b == NULL)
        return;
    struct spa_data *d = &b->buffer->datas[0];
    if (d->data != NULL) {
        uint32_t stride = sizeof(float) * CHANNELS;
        uint32_t frames = d->maxsize / stride;
        if (b->requested > 0 && b->requested < frames)
            frames = (uint32_t)b->requested;
        float *out = d->data;
        for (uint32_t i = 0; i < frames; i++) {
            float value = 0.2f * (float)sin(a->phase);
            a->phase += 2 * M_PI * 440 / RATE;
            if (a->phase > 2 * M_PI)
                a->phase -= 2 * M_PI;
            for (int c = 0; c < CHANNELS; c++)
                *out++ = value;
        }
        a->frames += frames;
        d->chunk->offset = 0;
        d->chunk->stride = (int32_t)stride;
        d->chunk->size = frames * stride;
    }
    pw_stream_queue_buffer(a->stream, b);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .process = on_process,
};

// Commands from the bus side, one per line on a pipe (also in one process).
static void audio_command(void *data, char *command) {
    struct audio *a = data;
    if (strcmp(command, "play") == 0)
        pw_stream_set_active(a->stream, true);
    else if (strcmp(command, "pause") == 0)
        pw_stream_set_active(a->stream, false);
    else if (strcmp(command, "position") == 0)
        helper_say("position %llu", (unsigned long long)a->frames);
    else if (strcmp(command, "quit") == 0)
        pw_main_loop_quit(a->loop);
}

static void on_bus_side_gone(void *data) {
    struct audio *a = data;
    pw_main_loop_quit(a->loop);
}

static int audio_start(struct audio *a, struct pw_main_loop *loop, const struct options *o, int commands) {
    a->loop = loop;
    helper_read_lines(&a->commands, pw_main_loop_get_loop(loop), commands, "pw-policy-test-player", audio_command,
                      on_bus_side_gone, a);
    a->context = pw_context_new(pw_main_loop_get_loop(loop), NULL, 0);
    a->core = helper_connect(a->context, "pw-policy-test-player", NULL, o->remote);
    if (a->core == NULL)
        return -1;
    char name[256];
    snprintf(name, sizeof(name), "pw-policy-test-player.%s", o->suffix);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, "Playback", PW_KEY_MEDIA_ROLE, "Music",
        PW_KEY_NODE_NAME, name, PW_KEY_MEDIA_NAME, name, PW_KEY_APP_NAME, "pw-policy-test-player", NULL);
    if (o->props != NULL)
        pw_properties_update_string(props, o->props, strlen(o->props));
    a->stream = pw_stream_new(a->core, name, props);
    pw_stream_add_listener(a->stream, &a->listener, &stream_events, a);
    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    params[0] = spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat,
        &SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .channels = CHANNELS, .rate = RATE,
                                 .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR }));
    enum pw_stream_flags flags = PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS;
    if (o->paused)
        flags |= PW_STREAM_FLAG_INACTIVE;
    int res = pw_stream_connect(a->stream, PW_DIRECTION_OUTPUT, PW_ID_ANY, flags, params, 1);
    if (res < 0) {
        fprintf(stderr, "pw-policy-test-player: cannot connect the stream: %s\n", spa_strerror(res));
        return -1;
    }
    return 0;
}

// MARK: - the bus side: the MPRIS object and its loop integration

struct player {
    struct pw_main_loop *loop;
    const struct options *options;
    sd_bus *bus;
    struct spa_source *bus_io, *bus_timer, *flood_timer;
    unsigned long flooded;  // PropertiesChanged sent by --flood
    int commands;  // to the audio side
    pid_t child;
    const char *status;
    char bus_name[256];
    struct helper_lines input;
};

static void send_audio(struct player *p, const char *command) {
    dprintf(p->commands, "%s\n", command);
}

static void set_status(struct player *p, const char *status) {
    if (strcmp(p->status, status) == 0)
        return;
    p->status = status;
    send_audio(p, strcmp(status, "Playing") == 0 ? "play" : "pause");
    sd_bus_emit_properties_changed(p->bus, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player",
                                   "PlaybackStatus", NULL);
    helper_say("status %s", status);
}

static void leave(struct player *p, int code) {
    fflush(stdout);
    if (p->child > 0) {
        kill(p->child, SIGTERM);
        waitpid(p->child, NULL, 0);
    }
    _exit(code);
}

static int method_pause(sd_bus_message *m, void *data, sd_bus_error *error) {
    struct player *p = data;
    // Who calls, for the tests that count the pauses (WirePlumber 0.5.11+
    // pauses players too).
    helper_say("called Pause by %s", sd_bus_message_get_sender(m));
    if (p->options->vanish_on_pause) {
        helper_say("vanishing");
        leave(p, 0);
    }
    if (!p->options->ignore_pause)
        set_status(p, "Paused");
    return sd_bus_reply_method_return(m, NULL);
}

static int method_play(sd_bus_message *m, void *data, sd_bus_error *error) {
    helper_say("called Play by %s", sd_bus_message_get_sender(m));
    set_status(data, "Playing");
    return sd_bus_reply_method_return(m, NULL);
}

static int method_play_pause(sd_bus_message *m, void *data, sd_bus_error *error) {
    struct player *p = data;
    if (strcmp(p->status, "Playing") == 0)
        return method_pause(m, data, error);
    return method_play(m, data, error);
}

static int method_stop(sd_bus_message *m, void *data, sd_bus_error *error) {
    set_status(data, "Stopped");
    return sd_bus_reply_method_return(m, NULL);
}

static int property_status(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *data, sd_bus_error *error) {
    struct player *p = data;
    return sd_bus_message_append(reply, "s", p->status);
}

static int property_metadata(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *data, sd_bus_error *error) {
    struct player *p = data;
    char title[64];
    snprintf(title, sizeof(title), p->flooded ? "Test tone %lu" : "Test tone", p->flooded);
    return sd_bus_message_append(reply, "a{sv}", 3,
                                 "mpris:trackid", "o", "/org/pwpolicy/track/1",
                                 "xesam:title", "s", title,
                                 "xesam:url", "s", p->bus_name);
}

static int property_true(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *data, sd_bus_error *error) {
    return sd_bus_message_append(reply, "b", 1);
}

static int property_false(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *data, sd_bus_error *error) {
    return sd_bus_message_append(reply, "b", 0);
}

static int property_identity(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *data, sd_bus_error *error) {
    struct player *p = data;
    char identity[300];
    snprintf(identity, sizeof(identity), "pw-policy test player %s", p->options->suffix);
    return sd_bus_message_append(reply, "s", identity);
}

static int property_no_strings(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *data, sd_bus_error *error) {
    return sd_bus_message_append(reply, "as", 0);
}

static const sd_bus_vtable root_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Identity", "s", property_identity, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanQuit", "b", property_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanRaise", "b", property_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HasTrackList", "b", property_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedUriSchemes", "as", property_no_strings, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("SupportedMimeTypes", "as", property_no_strings, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable player_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Pause", "", "", method_pause, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Play", "", "", method_play, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("PlayPause", "", "", method_play_pause, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("Stop", "", "", method_stop, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_PROPERTY("PlaybackStatus", "s", property_status, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("Metadata", "a{sv}", property_metadata, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CanPause", "b", property_true, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanPlay", "b", property_true, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanControl", "b", property_true, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanGoNext", "b", property_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanGoPrevious", "b", property_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("CanSeek", "b", property_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

// The bus fd on the PipeWire loop: processed until sd-bus has nothing left,
// then watched for what it waits for, with a timer for its timeout.
static void bus_rearm(struct player *p) {
    struct pw_loop *loop = pw_main_loop_get_loop(p->loop);
    int events = sd_bus_get_events(p->bus);
    if (events >= 0)
        pw_loop_update_io(loop, p->bus_io, (uint32_t)events);
    uint64_t deadline = UINT64_MAX;
    sd_bus_get_timeout(p->bus, &deadline);
    if (deadline == UINT64_MAX) {
        pw_loop_update_timer(loop, p->bus_timer, NULL, NULL, false);
        return;
    }
    struct timespec now, value = { 0, 1 };
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t now_usec = (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000;
    if (deadline > now_usec) {
        value.tv_sec = (time_t)((deadline - now_usec) / 1000000);
        value.tv_nsec = (long)((deadline - now_usec) % 1000000) * 1000;
    }
    pw_loop_update_timer(loop, p->bus_timer, &value, NULL, false);
}

static void bus_process(struct player *p) {
    int r;
    while ((r = sd_bus_process(p->bus, NULL)) > 0)
        ;
    if (r < 0) {
        fprintf(stderr, "pw-policy-test-player: bus: %s\n", strerror(-r));
        leave(p, 1);
    }
    bus_rearm(p);
}

// --flood: 50 signals every 10 ms. A queue sd-bus cannot write out fast
// enough refuses more (ENOBUFS): those are not counted.
static void on_flood_timer(void *data, uint64_t expirations) {
    struct player *p = data;
    bool metadata = strcmp(p->options->flood, "metadata") == 0;
    for (int i = 0; i < 50; i++) {
        if (metadata)
            p->flooded++;
        int r = sd_bus_emit_properties_changed(p->bus, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player",
                                               metadata ? "Metadata" : "PlaybackStatus", NULL);
        if (r < 0) {
            if (metadata)
                p->flooded--;
            break;
        }
        if (!metadata)
            p->flooded++;
    }
    bus_process(p);
}

static void on_bus_io(void *data, int fd, uint32_t mask) { bus_process(data); }
static void on_bus_timer(void *data, uint64_t expirations) { bus_process(data); }

static void on_command(void *data, char *line) {
    struct player *p = data;
    if (strcmp(line, "position") == 0)
        send_audio(p, "position");
    else if (strcmp(line, "flood") == 0)
        helper_say("sent %lu", p->flooded);
    else if (strcmp(line, "quit") == 0)
        leave(p, 0);
}

static void on_signal(void *data, int signal_number) { leave(data, 0); }

static int player_start(struct player *p, struct pw_main_loop *loop, const struct options *o, int commands) {
    p->loop = loop;
    p->options = o;
    p->commands = commands;
    p->status = o->paused ? "Paused" : "Playing";
    snprintf(p->bus_name, sizeof(p->bus_name), "org.mpris.MediaPlayer2.pwpolicytest.%s", o->suffix);
    int r = sd_bus_open_user(&p->bus);
    if (r < 0) {
        fprintf(stderr, "pw-policy-test-player: no session bus: %s\n", strerror(-r));
        return -1;
    }
    sd_bus_add_object_vtable(p->bus, NULL, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2", root_vtable, p);
    sd_bus_add_object_vtable(p->bus, NULL, "/org/mpris/MediaPlayer2", "org.mpris.MediaPlayer2.Player",
                             player_vtable, p);
    r = sd_bus_request_name(p->bus, p->bus_name, 0);
    if (r < 0) {
        fprintf(stderr, "pw-policy-test-player: cannot own %s: %s\n", p->bus_name, strerror(-r));
        return -1;
    }
    struct pw_loop *l = pw_main_loop_get_loop(loop);
    p->bus_io = pw_loop_add_io(l, sd_bus_get_fd(p->bus), SPA_IO_IN, false, on_bus_io, p);
    p->bus_timer = pw_loop_add_timer(l, on_bus_timer, p);
    // End of input: no more commands, keep playing.
    helper_read_lines(&p->input, l, STDIN_FILENO, "pw-policy-test-player", on_command, NULL, p);
    // After the audio side's pw_context_new (without --child): its data-loop
    // thread does not block SIGINT and SIGTERM, which then end the player by
    // their default action (exit status 130, 143).
    helper_handle_quit_signals(l, on_signal, p);
    if (o->flood) {
        struct timespec period = { 0, 10 * 1000 * 1000 };
        struct timespec first = period;
        if (o->flood_after_ms > 0) {
            first.tv_sec = o->flood_after_ms / 1000;
            first.tv_nsec = (o->flood_after_ms % 1000) * 1000 * 1000;
        }
        p->flood_timer = pw_loop_add_timer(l, on_flood_timer, p);
        pw_loop_update_timer(l, p->flood_timer, &first, &period, false);
    }
    bus_process(p);
    return 0;
}

// MARK: - main

int main(int argc, char *argv[]) {
    struct options o = { 0 };
    char default_suffix[32];
    snprintf(default_suffix, sizeof(default_suffix), "p%d", (int)getpid());
    o.suffix = default_suffix;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--child") == 0) o.child = true;
        else if (strcmp(argv[i], "--ignore-pause") == 0) o.ignore_pause = true;
        else if (strcmp(argv[i], "--vanish-on-pause") == 0) o.vanish_on_pause = true;
        else if (strcmp(argv[i], "--paused") == 0) o.paused = true;
        else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) o.suffix = argv[++i];
        else if (strcmp(argv[i], "--flood") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "metadata") == 0 || strcmp(argv[i + 1], "status") == 0)) o.flood = argv[++i];
        else if (strcmp(argv[i], "--flood-after") == 0 && i + 1 < argc) o.flood_after_ms = atol(argv[++i]);
        else if (strcmp(argv[i], "-P") == 0 && i + 1 < argc) o.props = argv[++i];
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) o.remote = argv[++i];
        else {
            fprintf(stderr, "usage: pw-policy-test-player [--child] [--ignore-pause] [--vanish-on-pause] [--paused]\n"
                            "                             [--flood metadata|status] [--flood-after MS] [--name SUFFIX]\n"
                            "                             [-P PROPS] [-r REMOTE]\n");
            return 64;
        }
    }
    int commands[2];
    if (pipe(commands) < 0)
        return 1;
    pid_t stream_pid = getpid(), child = 0;
    if (o.child) {
        child = fork();
        if (child < 0)
            return 1;
        if (child == 0) {
            // The child plays; it ends with its parent.
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            close(commands[1]);
            pw_init(&argc, &argv);
            struct pw_main_loop *loop = pw_main_loop_new(NULL);
            struct audio audio = { 0 };
            if (audio_start(&audio, loop, &o, commands[0]) < 0)
                return 1;
            pw_main_loop_run(loop);
            return 0;
        }
        close(commands[0]);
        stream_pid = child;
    }
    pw_init(&argc, &argv);
    struct pw_main_loop *loop = pw_main_loop_new(NULL);
    struct audio audio = { 0 };
    if (!o.child && audio_start(&audio, loop, &o, commands[0]) < 0)
        return 1;
    struct player player = { .child = child };
    if (player_start(&player, loop, &o, commands[1]) < 0)
        leave(&player, 1);
    helper_say("ready bus %s pid %d stream-pid %d", player.bus_name, (int)getpid(), (int)stream_pid);
    pw_main_loop_run(loop);
    leave(&player, 0);
}
