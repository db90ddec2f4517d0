// pw-policy-test-screencast: a screen cast for integration tests, made the
// way a desktop makes one (docs/POLICY.md, "Presenting"): a compositor's
// video stream and the app that consumes it, two pw_streams built with the
// calls and properties the real programs use.
//
//   source   GNOME's screen cast, as mutter creates it in gnome-shell
//            (src/backends/meta-screen-cast-stream-src.c): a pw_stream named
//            "meta-screen-cast-src" with node.supports-request, connected as
//            an output and driver. Its client is named "gnome-shell", the
//            name libpipewire gives gnome-shell's context (its program
//            name), so that pw_stream names the node after it as there:
//            node.name "gnome-shell", media.name "meta-screen-cast-src",
//            media.class "Stream/Output/Video" (pw_stream's own class for an
//            output of video, mutter sets none).
//   consume ID
//            the app sharing the screen, as libwebrtc consumes a portal's
//            stream in Firefox and Chromium
//            (modules/desktop_capture/linux/wayland/shared_screencast_stream.cc):
//            a pw_stream "webrtc-consume-stream" with pipewire.client.reuse=1,
//            connected as an input to node ID (node.target, which WirePlumber
//            links); media.class "Stream/Input/Video".
//
// Both offer raw BGRx video; the source sends frames while linked. It prints
// "ready node ID" once its node exists and "state STATE" on every change of
// the stream's state; it runs until its stdin closes, "quit" is read, or
// SIGTERM/SIGINT.
//
// usage: pw-policy-test-screencast [-r REMOTE] source | consume ID
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/buffers.h>
#include <spa/pod/builder.h>

#include "pw_policy_helper.h"

#define WIDTH 320
#define HEIGHT 240
#define STRIDE (WIDTH * 4)

struct cast {
    struct pw_main_loop *loop;
    struct pw_stream *stream;
    struct spa_hook listener;
    struct helper_lines input;
    struct spa_source *timer;
    bool is_source;
    bool announced;
    uint32_t frame;
};

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    struct cast *cast = data;
    (void)old;
    uint32_t id = pw_stream_get_node_id(cast->stream);
    if (!cast->announced && id != SPA_ID_INVALID) {
        cast->announced = true;
        helper_say("ready node %u", id);
    }
    helper_say("state %s%s%s", pw_stream_state_as_string(state), error ? " " : "", error ? error : "");
}

/* The format is fixed: say how big the buffers are (the source fills them). */
static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
    struct cast *cast = data;
    if (param == NULL || id != SPA_PARAM_Format)
        return;
    uint8_t buffer[256];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    params[0] = spa_pod_builder_add_object(&builder,
        SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
        SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 8),
        SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
        SPA_PARAM_BUFFERS_size, SPA_POD_Int(STRIDE * HEIGHT),
        SPA_PARAM_BUFFERS_stride, SPA_POD_Int(STRIDE));
    pw_stream_update_params(cast->stream, params, 1);
}

/* The consumer takes what arrives; the source sends a frame per timer tick. */
static void on_process(void *data) {
    struct cast *cast = data;
    struct pw_buffer *buffer = pw_stream_dequeue_buffer(cast->stream);
    if (buffer == NULL)
        return;
    if (cast->is_source) {
        struct spa_data *d = &buffer->buffer->datas[0];
        if (d->data != NULL) {
            memset(d->data, (int)(cast->frame++ & 0xff), STRIDE * HEIGHT);
            d->chunk->offset = 0;
            d->chunk->size = STRIDE * HEIGHT;
            d->chunk->stride = STRIDE;
        }
    }
    pw_stream_queue_buffer(cast->stream, buffer);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .state_changed = on_state_changed,
    .param_changed = on_param_changed,
    .process = on_process,
};

/* A driver stream runs its graph itself, as mutter does on each frame. */
static void on_timer(void *data, uint64_t expirations) {
    struct cast *cast = data;
    (void)expirations;
    if (pw_stream_get_state(cast->stream, NULL) == PW_STREAM_STATE_STREAMING)
        pw_stream_trigger_process(cast->stream);
}

static void on_command(void *data, char *line) {
    struct cast *cast = data;
    if (strstr(line, "quit") != NULL)
        pw_main_loop_quit(cast->loop);
}

static void on_end_of_input(void *data) {
    struct cast *cast = data;
    pw_main_loop_quit(cast->loop);
}

int main(int argc, char *argv[]) {
    const char *remote = NULL;
    struct cast cast = { 0 };
    uint32_t target = PW_ID_ANY;
    int i = 1;
    if (i + 1 < argc && (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--remote") == 0)) {
        remote = argv[i + 1];
        i += 2;
    }
    if (i < argc && strcmp(argv[i], "source") == 0 && i + 1 == argc) {
        cast.is_source = true;
    } else if (i + 1 < argc && strcmp(argv[i], "consume") == 0 && i + 2 == argc) {
        target = (uint32_t)strtoul(argv[i + 1], NULL, 10);
    } else {
        fprintf(stderr, "usage: pw-policy-test-screencast [-r REMOTE] source | consume ID\n");
        return 64;
    }
    pw_init(&argc, &argv);

    cast.loop = pw_main_loop_new(NULL);
    struct pw_loop *loop = pw_main_loop_get_loop(cast.loop);
    helper_quit_on_signals(cast.loop);
    struct pw_context *context = pw_context_new(loop, NULL, 0);
    /* gnome-shell's context is named after its program; a browser's after itself. */
    struct pw_core *core = helper_connect(context, "pw-policy-test-screencast",
                                          cast.is_source ? "gnome-shell" : "pw-policy-test-screencast", remote);
    if (core == NULL)
        return 69;

    struct pw_properties *props;
    if (cast.is_source)
        props = pw_properties_new("node.supports-request", "2", NULL);
    else
        props = pw_properties_new("pipewire.client.reuse", "1", NULL);
    cast.stream = pw_stream_new(core, cast.is_source ? "meta-screen-cast-src" : "webrtc-consume-stream", props);
    if (cast.stream == NULL) {
        fprintf(stderr, "pw-policy-test-screencast: cannot create the stream: %s\n", strerror(errno));
        return 70;
    }
    pw_stream_add_listener(cast.stream, &cast.listener, &stream_events, &cast);

    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    struct spa_rectangle size = SPA_RECTANGLE(WIDTH, HEIGHT);
    struct spa_fraction rate = SPA_FRACTION(30, 1);
    struct spa_fraction any_rate = SPA_FRACTION(0, 1);
    struct spa_fraction max_rate = SPA_FRACTION(1000, 1);
    params[0] = spa_pod_builder_add_object(&builder,
        SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
        SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
        SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
        SPA_FORMAT_VIDEO_format, SPA_POD_Id(SPA_VIDEO_FORMAT_BGRx),
        SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&size),
        SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&any_rate),
        SPA_FORMAT_VIDEO_maxFramerate, SPA_POD_CHOICE_RANGE_Fraction(&rate, &any_rate, &max_rate));

    enum pw_stream_flags flags = PW_STREAM_FLAG_MAP_BUFFERS;
    if (cast.is_source)
        flags |= PW_STREAM_FLAG_DRIVER;
    else
        flags |= PW_STREAM_FLAG_AUTOCONNECT;
    if (pw_stream_connect(cast.stream, cast.is_source ? PW_DIRECTION_OUTPUT : PW_DIRECTION_INPUT,
                          target, flags, params, 1) < 0) {
        fprintf(stderr, "pw-policy-test-screencast: cannot connect the stream\n");
        return 70;
    }
    if (cast.is_source) {
        cast.timer = pw_loop_add_timer(loop, on_timer, &cast);
        struct timespec interval = { .tv_sec = 0, .tv_nsec = 33 * 1000 * 1000 };
        pw_loop_update_timer(loop, cast.timer, &interval, &interval, false);
    }
    helper_read_lines(&cast.input, loop, STDIN_FILENO, "pw-policy-test-screencast", on_command, on_end_of_input, &cast);

    pw_main_loop_run(cast.loop);

    pw_stream_destroy(cast.stream);
    pw_core_disconnect(core);
    pw_context_destroy(context);
    pw_main_loop_destroy(cast.loop);
    pw_deinit();
    return 0;
}
