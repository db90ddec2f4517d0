// pw-policy-load: many playback (and capture) streams and null sinks in ONE process, for
// benchmarks and fault tests (hundreds of pw-play processes would measure
// process start-up, not policy). Driven by one command per line on stdin:
//
//   play ID [PROPS]      open a playback stream (silence, F32 stereo 48 kHz);
//                        node.name=pw-policy-load.ID, media.name=ID, and PROPS
//                        (SPA-JSON object content: media.role=Music target.object=x);
//                        with pw-policy-load.level=L a 440 Hz tone of peak L instead:
//                        what the agent's meter on a stream that ducks others hears;
//                        with pw-policy-load.pulse-ms=N too, N ms of tone, N of silence, …
//   record ID [PROPS]    open a capture stream the same way (media.category=Capture),
//                        discarding what it captures: the microphone beside an app's
//                        playback in one process (a call), or a desktop recording
//                        with stream.capture.sink=true
//   stop ID              destroy that stream
//   volume ID V          the stream sets its own Props volume to V (as a client that
//                        writes its own volume does; every update is a Props change
//                        the daemon's other clients see)
//   sink NAME [PROPS]    create a stereo null sink NAME (gone when we exit or unsink)
//   unsink NAME          destroy that sink
//   sync [TAG]           prints "synced TAG" once the daemon processed everything before
//   quit                 (end of input also quits)
//
// Errors go to stderr as one line each; nothing else is printed.
//
// Streams are spread over several connections (clients), at most
// STREAMS_PER_CONNECTION each: the daemon passes a few descriptors per stream
// on its connection, and a burst of hundreds on one connection exceeds the
// 1024 descriptors a PipeWire 0.3.65 connection may have in flight.
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/audio/format-utils.h>
#include <spa/param/props.h>
#include <spa/utils/list.h>
#include <spa/utils/result.h>

#include "pw_policy_helper.h"

#define RATE 48000
#define CHANNELS 2
#define STREAMS_PER_CONNECTION 32

struct load;

struct connection {
    struct spa_list link;
    struct load *load;
    struct pw_core *core;
    struct spa_hook listener;
    int streams;
};

struct stream {
    struct spa_list link;
    struct load *load;
    struct connection *connection;
    char *id;
    struct pw_stream *stream;
    struct spa_hook listener;
    /* Peak of the tone it plays; 0: silence. */
    float level;
    double phase;
    /* Frames of tone, then as many of silence, over and over; 0: tone throughout. */
    uint64_t pulse_frames;
    uint64_t played;
};

struct sink {
    struct spa_list link;
    char *name;
    struct pw_proxy *proxy;
};

struct load {
    struct pw_main_loop *loop;
    struct pw_context *context;
    const char *remote;
    /* application.name: "pw-policy-load", or NULL for a copy named like an
     * app, which then names itself only by its program, as a copy of pw-cat does. */
    const char *app_name;
    /* The first one also holds the sinks and answers sync. */
    struct spa_list connections;
    struct spa_list streams;
    struct spa_list sinks;
    struct helper_syncs syncs;
    struct helper_lines input;
};

static void on_process(void *data) {
    struct stream *s = data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (b == NULL)
        return;
    struct spa_data *d = &b->buffer->datas[0];
    if (d->data != NULL) {
        uint32_t stride = sizeof(float) * CHANNELS;
        uint32_t frames = d->maxsize / stride;
        if (b->requested > 0 && b->requested < frames)
            frames = (uint32_t)b->requested;
        if (s->level > 0) {
            float *samples = d->data;
            for (uint32_t i = 0; i < frames; i++, s->played++) {
                bool quiet = s->pulse_frames > 0 && (s->played / s->pulse_frames) % 2 == 1;
                float value = quiet ? 0.0f : s->level * (float)sin(s->phase);
                s->phase += 2 * M_PI * 440 / RATE;
                samples[2 * i] = samples[2 * i + 1] = value;
            }
            s->phase = fmod(s->phase, 2 * M_PI);
        } else {
            memset(d->data, 0, (size_t)frames * stride);
        }
        d->chunk->offset = 0;
        d->chunk->stride = (int32_t)stride;
        d->chunk->size = frames * stride;
    }
    pw_stream_queue_buffer(s->stream, b);
}

static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS,
    .process = on_process,
};

/* A capture's buffers are handed back unread. */
static void on_capture_process(void *data) {
    struct stream *s = data;
    struct pw_buffer *b = pw_stream_dequeue_buffer(s->stream);
    if (b != NULL)
        pw_stream_queue_buffer(s->stream, b);
}

static const struct pw_stream_events capture_events = {
    PW_VERSION_STREAM_EVENTS,
    .process = on_capture_process,
};

static struct stream *find_stream(struct load *load, const char *id) {
    struct stream *s;
    spa_list_for_each(s, &load->streams, link)
        if (strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

static struct sink *find_sink(struct load *load, const char *name) {
    struct sink *k;
    spa_list_for_each(k, &load->sinks, link)
        if (strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

static void destroy_stream(struct stream *s) {
    spa_list_remove(&s->link);
    s->connection->streams--;
    spa_hook_remove(&s->listener);
    pw_stream_destroy(s->stream);
    free(s->id);
    free(s);
}

static void destroy_sink(struct sink *k) {
    spa_list_remove(&k->link);
    pw_proxy_destroy(k->proxy);
    free(k->name);
    free(k);
}

static struct connection *connect_core(struct load *load);

static struct connection *first_connection(struct load *load) {
    return spa_list_first(&load->connections, struct connection, link);
}

/* A connection with room for one more stream, new if none has. */
static struct connection *connection_for_stream(struct load *load) {
    struct connection *c;
    spa_list_for_each(c, &load->connections, link)
        if (c->streams < STREAMS_PER_CONNECTION)
            return c;
    return connect_core(load);
}

static void open_stream(struct load *load, const char *id, const char *extra, enum pw_direction direction) {
    if (find_stream(load, id) != NULL) {
        fprintf(stderr, "pw-policy-load: stream %s exists\n", id);
        return;
    }
    char node_name[256];
    snprintf(node_name, sizeof(node_name), "pw-policy-load.%s", id);
    struct pw_properties *props = pw_properties_new(
        PW_KEY_MEDIA_TYPE, "Audio", PW_KEY_MEDIA_CATEGORY, direction == PW_DIRECTION_OUTPUT ? "Playback" : "Capture",
        PW_KEY_NODE_NAME, node_name, PW_KEY_MEDIA_NAME, id, NULL);
    if (extra != NULL && *extra != '\0')
        pw_properties_update_string(props, extra, strlen(extra));

    struct connection *connection = connection_for_stream(load);
    if (connection == NULL) {
        pw_properties_free(props);
        return;
    }
    struct stream *s = calloc(1, sizeof(*s));
    s->load = load;
    s->connection = connection;
    s->id = strdup(id);
    const char *level = pw_properties_get(props, "pw-policy-load.level");
    s->level = level != NULL ? strtof(level, NULL) : 0.0f;
    s->pulse_frames = (uint64_t)pw_properties_get_uint32(props, "pw-policy-load.pulse-ms", 0) * RATE / 1000;
    s->stream = pw_stream_new(connection->core, id, props);
    if (s->stream == NULL) {
        fprintf(stderr, "pw-policy-load: cannot create stream %s: %s\n", id, strerror(errno));
        free(s->id);
        free(s);
        return;
    }
    pw_stream_add_listener(s->stream, &s->listener, direction == PW_DIRECTION_OUTPUT ? &stream_events : &capture_events, s);

    uint8_t buffer[1024];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *params[1];
    params[0] = spa_format_audio_raw_build(&builder, SPA_PARAM_EnumFormat,
        &SPA_AUDIO_INFO_RAW_INIT(.format = SPA_AUDIO_FORMAT_F32, .channels = CHANNELS, .rate = RATE,
                                 .position = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR }));
    int res = pw_stream_connect(s->stream, direction, PW_ID_ANY,
                                PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS,
                                params, 1);
    if (res < 0) {
        fprintf(stderr, "pw-policy-load: cannot connect stream %s: %s\n", id, spa_strerror(res));
        spa_hook_remove(&s->listener);
        pw_stream_destroy(s->stream);
        free(s->id);
        free(s);
        return;
    }
    spa_list_append(&load->streams, &s->link);
    connection->streams++;
}

static void make_sink(struct load *load, const char *name, const char *extra) {
    if (find_sink(load, name) != NULL) {
        fprintf(stderr, "pw-policy-load: sink %s exists\n", name);
        return;
    }
    struct pw_properties *props = pw_properties_new(
        "factory.name", "support.null-audio-sink", PW_KEY_NODE_NAME, name, PW_KEY_NODE_DESCRIPTION, name,
        PW_KEY_MEDIA_CLASS, "Audio/Sink", "audio.position", "[ FL FR ]", "audio.rate", "48000",
        "monitor.channel-volumes", "true", "object.linger", "false", NULL);
    if (extra != NULL && *extra != '\0')
        pw_properties_update_string(props, extra, strlen(extra));
    struct pw_proxy *proxy = pw_core_create_object(first_connection(load)->core, "adapter", PW_TYPE_INTERFACE_Node, PW_VERSION_NODE,
                                                   &props->dict, 0);
    pw_properties_free(props);
    if (proxy == NULL) {
        fprintf(stderr, "pw-policy-load: cannot create sink %s: %s\n", name, strerror(errno));
        return;
    }
    struct sink *k = calloc(1, sizeof(*k));
    k->name = strdup(name);
    k->proxy = proxy;
    spa_list_append(&load->sinks, &k->link);
}

static void on_core_done(void *data, uint32_t id, int seq) {
    struct connection *connection = data;
    if (id != PW_ID_CORE)
        return;
    helper_syncs_done(&connection->load->syncs, seq);
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct load *load = ((struct connection *)data)->load;
    helper_report_core_error("pw-policy-load", load->loop, id, res, message);
    (void)seq;
}

static const struct pw_core_events core_events = {
    PW_VERSION_CORE_EVENTS,
    .done = on_core_done,
    .error = on_core_error,
};

static struct connection *connect_core(struct load *load) {
    struct pw_core *core = helper_connect(load->context, "pw-policy-load", load->app_name, load->remote);
    if (core == NULL)
        return NULL;
    struct connection *c = calloc(1, sizeof(*c));
    c->load = load;
    c->core = core;
    pw_core_add_listener(core, &c->listener, &core_events, c);
    spa_list_append(&load->connections, &c->link);
    return c;
}

static void on_command(void *data, char *line) {
    struct load *load = data;
    char *verb = strtok(line, " \t");
    if (verb == NULL)
        return;
    char *name = strtok(NULL, " \t");
    char *rest = strtok(NULL, "");
    if (strcmp(verb, "quit") == 0) {
        pw_main_loop_quit(load->loop);
    } else if (strcmp(verb, "sync") == 0) {
        helper_sync(&load->syncs, first_connection(load)->core, name ? name : "");
    } else if (name == NULL) {
        fprintf(stderr, "pw-policy-load: '%s' needs a name\n", verb);
    } else if (strcmp(verb, "play") == 0) {
        open_stream(load, name, rest, PW_DIRECTION_OUTPUT);
    } else if (strcmp(verb, "record") == 0) {
        open_stream(load, name, rest, PW_DIRECTION_INPUT);
    } else if (strcmp(verb, "stop") == 0) {
        struct stream *s = find_stream(load, name);
        if (s != NULL)
            destroy_stream(s);
        else
            fprintf(stderr, "pw-policy-load: no stream %s\n", name);
    } else if (strcmp(verb, "volume") == 0) {
        struct stream *s = find_stream(load, name);
        char *end = NULL;
        float volume = rest != NULL ? strtof(rest, &end) : 0;
        if (s == NULL)
            fprintf(stderr, "pw-policy-load: no stream %s\n", name);
        else if (rest == NULL || end == rest)
            fprintf(stderr, "pw-policy-load: volume %s needs a number\n", name);
        else
            pw_stream_set_control(s->stream, SPA_PROP_volume, 1, &volume, 0);
    } else if (strcmp(verb, "sink") == 0) {
        make_sink(load, name, rest);
    } else if (strcmp(verb, "unsink") == 0) {
        struct sink *k = find_sink(load, name);
        if (k != NULL)
            destroy_sink(k);
        else
            fprintf(stderr, "pw-policy-load: no sink %s\n", name);
    } else {
        fprintf(stderr, "pw-policy-load: unknown command '%s'\n", verb);
    }
}

static void on_end_of_input(void *data) {
    struct load *load = data;
    pw_main_loop_quit(load->loop);
}

int main(int argc, char *argv[]) {
    const char *remote = NULL;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--remote") == 0) && i + 1 < argc) {
            remote = argv[++i];
        } else {
            fprintf(stderr, "usage: pw-policy-load [-r REMOTE] < commands\n");
            return 64;
        }
    }
    pw_init(&argc, &argv);
    struct load load = { 0 };
    spa_list_init(&load.streams);
    spa_list_init(&load.sinks);
    helper_syncs_init(&load.syncs);
    spa_list_init(&load.connections);
    load.remote = remote;
    const char *slash = strrchr(argv[0], '/');
    load.app_name = strcmp(slash != NULL ? slash + 1 : argv[0], "pw-policy-load") == 0 ? "pw-policy-load" : NULL;
    load.loop = pw_main_loop_new(NULL);
    struct pw_loop *loop = pw_main_loop_get_loop(load.loop);
    /* Before pw_context_new, so that its data-loop thread blocks them too:
     * SIGINT and SIGTERM quit the loop and free the streams. */
    helper_quit_on_signals(load.loop);
    load.context = pw_context_new(loop, NULL, 0);
    if (connect_core(&load) == NULL)
        return 69;
    helper_read_lines(&load.input, loop, STDIN_FILENO, "pw-policy-load", on_command, on_end_of_input, &load);

    pw_main_loop_run(load.loop);

    struct stream *s, *st;
    spa_list_for_each_safe(s, st, &load.streams, link)
        destroy_stream(s);
    struct sink *k, *kt;
    spa_list_for_each_safe(k, kt, &load.sinks, link)
        destroy_sink(k);
    helper_syncs_clear(&load.syncs);
    struct connection *c, *ct;
    spa_list_for_each_safe(c, ct, &load.connections, link) {
        spa_hook_remove(&c->listener);
        pw_core_disconnect(c->core);
        free(c);
    }
    pw_context_destroy(load.context);
    pw_main_loop_destroy(load.loop);
    pw_deinit();
    return 0;
}
