// pw-policy-test-card: a laptop sound card for integration tests, exported
// the way WirePlumber's ALSA monitor exports every card it finds: a
// `spa_device` of ours given to the daemon with pw_core_export (media.class
// Audio/Device, EnumProfile/Profile/EnumRoute/Route params as
// spa/plugins/alsa/alsa-acp-device.c builds them), and a sink node that
// belongs to it (device.id, card.profile.device). The sandbox has no sound
// hardware; this is what lets a test pull a headphone jack (docs/TESTING.md,
// "The test card").
//
// The card has one analog output device (card.profile.device 0) with two
// ports, speakers and headphones, and an HDMI device (1) with one port, in
// three profiles: off, output:analog-stereo (the initial one) and
// output:hdmi-stereo. Port availability follows ACP's jack rules for the
// analog-output-speaker and -headphones paths: headphones are `yes` when
// plugged and `no` when not; the speakers are `no` while headphones are
// plugged and `unknown` otherwise. Like a card WirePlumber opens (it sets
// api.acp.auto-port=false), the card never picks a port itself on a jack
// change: it reports the availability and WirePlumber selects the route.
//
// Commands, one per line on stdin; each prints what it did on stdout:
//
//   unplug-headphones   the jack is pulled: availability changes, nothing else
//   plug-headphones     the jack is plugged back in
//   route PORT          the active output port of the analog device becomes
//                       PORT (speaker | headphones), as a user picks it in
//                       pavucontrol (a Route set with save=true)
//   profile NAME        the active profile becomes NAME (off | analog | hdmi),
//                       as a user picks it; the Route list changes with it
//   hold-routes         Route sets from other clients wait (the last one is kept)
//   release-routes      …until this applies the last one held
//   sync TAG            prints "synced TAG" once the daemon processed everything before
//   quit                (end of input also quits)
//
// Routes and profiles set by other clients (WirePlumber's route selection,
// pw-cli set-param) are printed as "client set …". At start it prints
// "ready device ID sink ID" once both globals exist.
//
// usage: pw-policy-test-card [-r REMOTE] [--name NAME] [--unplugged]
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/monitor/device.h>
#include <spa/monitor/utils.h>
#include <spa/param/param.h>
#include <spa/param/profile.h>
#include <spa/param/route.h>
#include <spa/param/props.h>
#include <spa/param/audio/raw.h>
#include <spa/pod/builder.h>
#include <spa/pod/filter.h>
#include <spa/pod/parser.h>
#include <spa/utils/hook.h>
#include <spa/utils/keys.h>
#include <spa/utils/result.h>

#include "pw_policy_helper.h"

enum { DEVICE_ANALOG, DEVICE_HDMI, N_DEVICES };
enum { PORT_SPEAKER, PORT_HEADPHONES, PORT_HDMI, N_PORTS };
enum { PROFILE_OFF, PROFILE_ANALOG, PROFILE_HDMI, N_PROFILES };
enum { IDX_EnumProfile, IDX_Profile, IDX_EnumRoute, IDX_Route, N_PARAMS };

struct port {
    const char *name;
    const char *description;
    const char *type;  /* port.type, as ACP puts it in the route info */
    const char *icon;
    int32_t priority;  /* ACP: the path's priority × 100 */
    uint32_t device;
    uint32_t profile;
    const char *group;  /* port.availability-group */
};

static const struct port ports[N_PORTS] = {
    [PORT_SPEAKER] = { "analog-output-speaker", "Speakers", "speaker", "audio-speakers", 10000,
                       DEVICE_ANALOG, PROFILE_ANALOG, NULL },
    [PORT_HEADPHONES] = { "analog-output-headphones", "Headphones", "headphones", "audio-headphones", 9900,
                          DEVICE_ANALOG, PROFILE_ANALOG, "Legacy 1" },
    [PORT_HDMI] = { "hdmi-output-0", "HDMI / DisplayPort", "hdmi", "video-display", 5900,
                    DEVICE_HDMI, PROFILE_HDMI, "Legacy 2" },
};

struct profile {
    const char *name;
    const char *description;
    int32_t priority;
    int32_t device;  /* the one output device of the profile, or -1 */
};

static const struct profile profiles[N_PROFILES] = {
    [PROFILE_OFF] = { "off", "Off", 0, -1 },
    [PROFILE_ANALOG] = { "output:analog-stereo", "Analog Stereo Output", 6500, DEVICE_ANALOG },
    [PROFILE_HDMI] = { "output:hdmi-stereo", "Digital Stereo (HDMI) Output", 5900, DEVICE_HDMI },
};

struct mixer {
    float volumes[2];
    bool mute;
};

struct card {
    struct spa_device device;
    struct spa_hook_list hooks;
    struct spa_device_info info;
    struct spa_param_info params[N_PARAMS];
    /* Params changed since the last info event (ACP's param info `user`). */
    bool param_changed[N_PARAMS];

    bool headphones_plugged;
    uint32_t active_profile;
    uint32_t active_port[N_DEVICES];
    bool port_saved[N_PORTS];
    bool profile_saved;
    /* Each device's mixer (ACP's real_volume and muted): what a Route's
     * props set and report. */
    struct mixer mixer[N_DEVICES];
    /* hold-routes: Route sets from clients wait for release-routes, so a
     * test sees the moment between a jack change and the route switch. */
    bool holding_routes;
    struct { bool pending; uint32_t port; bool save; struct mixer mixer; } held_route;

    const char *name;
    struct pw_main_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct spa_hook core_listener;
    struct pw_proxy *device_proxy;
    struct spa_hook device_proxy_listener;
    uint32_t device_id;
    struct pw_proxy *sink_proxy;
    struct spa_hook sink_proxy_listener;
    uint32_t sink_id;
    bool ready_printed;
    struct helper_syncs syncs;
    /* Quitting: the seq of the round trip after the sink's destroy. */
    int quit_seq;

    struct helper_lines input;
};

static enum spa_param_availability port_available(const struct card *card, uint32_t port) {
    switch (port) {
    case PORT_HEADPHONES:
        return card->headphones_plugged ? SPA_PARAM_AVAILABILITY_yes : SPA_PARAM_AVAILABILITY_no;
    case PORT_SPEAKER:
        /* analog-output-speaker.conf: [Jack Headphone] state.plugged = no,
         * state.unplugged = unknown. */
        return card->headphones_plugged ? SPA_PARAM_AVAILABILITY_no : SPA_PARAM_AVAILABILITY_unknown;
    default:
        return SPA_PARAM_AVAILABILITY_yes;
    }
}

static const char *availability_name(enum spa_param_availability available) {
    switch (available) {
    case SPA_PARAM_AVAILABILITY_yes: return "yes";
    case SPA_PARAM_AVAILABILITY_no: return "no";
    default: return "unknown";
    }
}

/* Marks params changed; the next emit_info toggles their serial flag, which
 * is how a device tells its clients to enumerate them again. */
static void changed(struct card *card, int index) {
    card->param_changed[index] = true;
    card->info.change_mask |= SPA_DEVICE_CHANGE_MASK_PARAMS;
}

static void fill_props(struct card *card, struct spa_dict_item *items, uint32_t *n) {
#define ADD(key, value) items[(*n)++] = SPA_DICT_ITEM_INIT(key, value)
    ADD(SPA_KEY_OBJECT_PATH, "alsa:pcm:0");
    ADD(SPA_KEY_DEVICE_API, "alsa");
    ADD(SPA_KEY_MEDIA_CLASS, "Audio/Device");
    ADD(SPA_KEY_API_ALSA_PATH, "hw:0");
    ADD(SPA_KEY_API_ALSA_CARD, "0");
    ADD("api.alsa.card.name", "pw-policy test card");
    ADD("api.acp.auto-port", "false");
    ADD("api.acp.auto-profile", "false");
    ADD(SPA_KEY_DEVICE_NAME, card->name);
    ADD(SPA_KEY_DEVICE_NICK, "Test Card");
    ADD(SPA_KEY_DEVICE_DESCRIPTION, "Built-in Audio");
    ADD(SPA_KEY_DEVICE_BUS, "pci");
    ADD(SPA_KEY_DEVICE_FORM_FACTOR, "internal");
    ADD(SPA_KEY_DEVICE_ICON_NAME, "audio-card-analog-pci");
#undef ADD
}

static void emit_info(struct card *card, bool full) {
    uint64_t old = full ? card->info.change_mask : 0;
    if (full)
        card->info.change_mask = SPA_DEVICE_CHANGE_MASK_FLAGS | SPA_DEVICE_CHANGE_MASK_PROPS |
                                 SPA_DEVICE_CHANGE_MASK_PARAMS;
    if (card->info.change_mask == 0)
        return;
    struct spa_dict_item items[16];
    uint32_t n = 0;
    fill_props(card, items, &n);
    card->info.props = &SPA_DICT_INIT(items, n);
    if (card->info.change_mask & SPA_DEVICE_CHANGE_MASK_PARAMS) {
        for (int i = 0; i < N_PARAMS; i++) {
            if (card->param_changed[i]) {
                card->params[i].flags ^= SPA_PARAM_INFO_SERIAL;
                card->param_changed[i] = false;
            }
        }
    }
    spa_device_emit_info(&card->hooks, &card->info);
    card->info.change_mask = old;
}

static struct spa_pod *build_profile(struct spa_pod_builder *b, uint32_t id, uint32_t index, bool current,
                                     const struct card *card) {
    const struct profile *pr = &profiles[index];
    struct spa_pod_frame f[2];
    spa_pod_builder_push_object(b, &f[0], SPA_TYPE_OBJECT_ParamProfile, id);
    spa_pod_builder_add(b,
        SPA_PARAM_PROFILE_index, SPA_POD_Int(index),
        SPA_PARAM_PROFILE_name, SPA_POD_String(pr->name),
        SPA_PARAM_PROFILE_description, SPA_POD_String(pr->description),
        SPA_PARAM_PROFILE_priority, SPA_POD_Int(pr->priority),
        SPA_PARAM_PROFILE_available, SPA_POD_Id(SPA_PARAM_AVAILABILITY_yes),
        0);
    /* classes: Struct(Int n, Struct("Audio/Sink", Int n, "card.profile.devices", Array<Int>)) */
    spa_pod_builder_prop(b, SPA_PARAM_PROFILE_classes, 0);
    spa_pod_builder_push_struct(b, &f[1]);
    if (pr->device >= 0) {
        int32_t devices[1] = { pr->device };
        spa_pod_builder_int(b, 1);
        spa_pod_builder_add_struct(b,
            SPA_POD_String("Audio/Sink"),
            SPA_POD_Int(1),
            SPA_POD_String("card.profile.devices"),
            SPA_POD_Array(sizeof(int32_t), SPA_TYPE_Int, 1, devices));
    } else {
        spa_pod_builder_int(b, 0);
    }
    spa_pod_builder_pop(b, &f[1]);
    if (current) {
        spa_pod_builder_prop(b, SPA_PARAM_PROFILE_save, 0);
        spa_pod_builder_bool(b, card->profile_saved);
    }
    return spa_pod_builder_pop(b, &f[0]);
}

/* An EnumRoute (active = false) or an active Route (with device, props,
 * profile and save), field for field as alsa-acp-device.c's build_route. */
static struct spa_pod *build_route(struct spa_pod_builder *b, uint32_t id, uint32_t index, bool active,
                                   const struct card *card) {
    const struct port *p = &ports[index];
    struct spa_pod_frame f[2];
    spa_pod_builder_push_object(b, &f[0], SPA_TYPE_OBJECT_ParamRoute, id);
    spa_pod_builder_add(b,
        SPA_PARAM_ROUTE_index, SPA_POD_Int(index),
        SPA_PARAM_ROUTE_direction, SPA_POD_Id(SPA_DIRECTION_OUTPUT),
        SPA_PARAM_ROUTE_name, SPA_POD_String(p->name),
        SPA_PARAM_ROUTE_description, SPA_POD_String(p->description),
        SPA_PARAM_ROUTE_priority, SPA_POD_Int(p->priority),
        SPA_PARAM_ROUTE_available, SPA_POD_Id(port_available(card, index)),
        0);
    spa_pod_builder_prop(b, SPA_PARAM_ROUTE_info, SPA_POD_PROP_FLAG_HINT_DICT);
    spa_pod_builder_push_struct(b, &f[1]);
    spa_pod_builder_int(b, (p->group ? 3 : 2) + (active ? 2 : 0));
    spa_pod_builder_add(b, SPA_POD_String("port.type"), SPA_POD_String(p->type), NULL);
    spa_pod_builder_add(b, SPA_POD_String("device.icon_name"), SPA_POD_String(p->icon), NULL);
    if (p->group)
        spa_pod_builder_add(b, SPA_POD_String("port.availability-group"), SPA_POD_String(p->group), NULL);
    if (active) {
        spa_pod_builder_add(b, SPA_POD_String("route.hw-mute"), SPA_POD_String("false"), NULL);
        spa_pod_builder_add(b, SPA_POD_String("route.hw-volume"), SPA_POD_String("false"), NULL);
    }
    spa_pod_builder_pop(b, &f[1]);
    spa_pod_builder_prop(b, SPA_PARAM_ROUTE_profiles, 0);
    spa_pod_builder_push_array(b, &f[1]);
    spa_pod_builder_int(b, (int32_t)p->profile);
    spa_pod_builder_pop(b, &f[1]);
    if (active) {
        const struct mixer *mixer = &card->mixer[p->device];
        uint32_t map[2] = { SPA_AUDIO_CHANNEL_FL, SPA_AUDIO_CHANNEL_FR };
        spa_pod_builder_prop(b, SPA_PARAM_ROUTE_device, 0);
        spa_pod_builder_int(b, (int32_t)p->device);
        /* Route props are a card's mixer settings; the null sink has no
         * mixer, so what WirePlumber restores there changes no sound. */
        spa_pod_builder_prop(b, SPA_PARAM_ROUTE_props, 0);
        spa_pod_builder_add_object(b, SPA_TYPE_OBJECT_Props, id,
            SPA_PROP_mute, SPA_POD_Bool(mixer->mute),
            SPA_PROP_channelVolumes, SPA_POD_Array(sizeof(float), SPA_TYPE_Float, 2, mixer->volumes),
            SPA_PROP_channelMap, SPA_POD_Array(sizeof(uint32_t), SPA_TYPE_Id, 2, map));
    }
    spa_pod_builder_prop(b, SPA_PARAM_ROUTE_devices, 0);
    spa_pod_builder_push_array(b, &f[1]);
    spa_pod_builder_int(b, (int32_t)p->device);
    spa_pod_builder_pop(b, &f[1]);
    if (active) {
        spa_pod_builder_prop(b, SPA_PARAM_ROUTE_profile, 0);
        spa_pod_builder_int(b, (int32_t)card->active_profile);
        spa_pod_builder_prop(b, SPA_PARAM_ROUTE_save, 0);
        spa_pod_builder_bool(b, card->port_saved[index]);
    }
    return spa_pod_builder_pop(b, &f[0]);
}

static int card_add_listener(void *object, struct spa_hook *listener, const struct spa_device_events *events,
                             void *data) {
    struct card *card = object;
    struct spa_hook_list save;
    spa_hook_list_isolate(&card->hooks, &save, listener, events, data);
    if (events->info)
        emit_info(card, true);
    spa_hook_list_join(&card->hooks, &save);
    return 0;
}

static int card_sync(void *object, int seq) {
    struct card *card = object;
    spa_device_emit_result(&card->hooks, seq, 0, 0, NULL);
    return 0;
}

static int card_enum_params(void *object, int seq, uint32_t id, uint32_t start, uint32_t num,
                            const struct spa_pod *filter) {
    struct card *card = object;
    struct spa_result_device_params result = { .id = id, .next = start };
    uint32_t count = 0;
    uint8_t buffer[4096];
    struct spa_pod_builder b;
    struct spa_pod *param;

    if (num == 0)
        return -EINVAL;
next:
    result.index = result.next++;
    spa_pod_builder_init(&b, buffer, sizeof(buffer));
    switch (id) {
    case SPA_PARAM_EnumProfile:
        if (result.index >= N_PROFILES)
            return 0;
        param = build_profile(&b, id, result.index, false, card);
        break;
    case SPA_PARAM_Profile:
        if (result.index > 0)
            return 0;
        param = build_profile(&b, id, card->active_profile, true, card);
        break;
    case SPA_PARAM_EnumRoute:
        if (result.index >= N_PORTS)
            return 0;
        param = build_route(&b, id, result.index, false, card);
        break;
    case SPA_PARAM_Route: {
        /* One Route per device of the active profile: its active port. */
        int32_t device = profiles[card->active_profile].device;
        if (result.index > 0 || device < 0)
            return 0;
        param = build_route(&b, id, card->active_port[device], true, card);
        break;
    }
    default:
        return -ENOENT;
    }
    if (param == NULL)
        return -ENOSPC;
    if (spa_pod_filter(&b, &result.param, param, filter) < 0)
        goto next;
    spa_device_emit_result(&card->hooks, seq, 0, SPA_RESULT_TYPE_DEVICE_PARAMS, &result);
    if (++count != num)
        goto next;
    return 0;
}

/* A Route's props as ACP's apply_device_props reads them: `mute`, and
 * `channelVolumes` (one volume sets every channel). */
static void read_route_props(const struct spa_pod *props, struct mixer *mixer) {
    if (props == NULL || !spa_pod_is_object_type(props, SPA_TYPE_OBJECT_Props))
        return;
    const struct spa_pod_object *object = (const struct spa_pod_object *)props;
    const struct spa_pod_prop *prop;
    SPA_POD_OBJECT_FOREACH(object, prop) {
        if (prop->key == SPA_PROP_mute) {
            spa_pod_get_bool(&prop->value, &mixer->mute);
        } else if (prop->key == SPA_PROP_channelVolumes) {
            float volumes[2];
            uint32_t n = spa_pod_copy_array(&prop->value, SPA_TYPE_Float, volumes, 2);
            if (n > 0) {
                mixer->volumes[0] = volumes[0];
                mixer->volumes[1] = n > 1 ? volumes[1] : volumes[0];
            }
        }
    }
}

/* A Route set: the port, then the mixer settings it carries. Like ACP, the
 * card reports the Route changed when the port or its save flag changed,
 * or when the mixer did (on_volume_changed, on_mute_changed): WirePlumber
 * learns from that report which route is active (docs/TESTING.md, "The
 * test card"). */
static void set_route(struct card *card, uint32_t port, bool save, const struct mixer *mixer) {
    uint32_t device = ports[port].device;
    if (card->active_port[device] != port || card->port_saved[port] != save) {
        card->active_port[device] = port;
        card->port_saved[port] = save;
        changed(card, IDX_Route);
    }
    const struct mixer *now = &card->mixer[device];
    if (mixer != NULL && (mixer->volumes[0] != now->volumes[0] || mixer->volumes[1] != now->volumes[1]
                          || mixer->mute != now->mute)) {
        card->mixer[device] = *mixer;
        changed(card, IDX_Route);
    }
}

static void set_profile(struct card *card, uint32_t profile, bool save) {
    if (card->active_profile == profile && card->profile_saved == save)
        return;
    card->active_profile = profile;
    card->profile_saved = save;
    changed(card, IDX_Profile);
    changed(card, IDX_Route);
    changed(card, IDX_EnumRoute);
}

static int card_set_param(void *object, uint32_t id, uint32_t flags, const struct spa_pod *param) {
    struct card *card = object;
    int res;
    (void)flags;
    switch (id) {
    case SPA_PARAM_Profile: {
        int32_t index;
        bool save = false;
        if (param == NULL)
            return -EINVAL;
        if ((res = spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamProfile, NULL,
                                        SPA_PARAM_PROFILE_index, SPA_POD_Int(&index),
                                        SPA_PARAM_PROFILE_save, SPA_POD_OPT_Bool(&save))) < 0)
            return res;
        if (index < 0 || index >= N_PROFILES)
            return -EINVAL;
        helper_say("client set profile %s%s", profiles[index].name, save ? " (save)" : "");
        set_profile(card, (uint32_t)index, save);
        emit_info(card, false);
        return 0;
    }
    case SPA_PARAM_Route: {
        int32_t index, device;
        bool save = false;
        struct spa_pod *props = NULL;
        if (param == NULL)
            return -EINVAL;
        if ((res = spa_pod_parse_object(param, SPA_TYPE_OBJECT_ParamRoute, NULL,
                                        SPA_PARAM_ROUTE_index, SPA_POD_Int(&index),
                                        SPA_PARAM_ROUTE_device, SPA_POD_Int(&device),
                                        SPA_PARAM_ROUTE_props, SPA_POD_OPT_Pod(&props),
                                        SPA_PARAM_ROUTE_save, SPA_POD_OPT_Bool(&save))) < 0)
            return res;
        if (index < 0 || index >= N_PORTS || device < 0 || (uint32_t)device != ports[index].device)
            return -EINVAL;
        struct mixer mixer = card->mixer[device];
        read_route_props(props, &mixer);
        if (card->holding_routes) {
            card->held_route.pending = true;
            card->held_route.port = (uint32_t)index;
            card->held_route.save = save;
            card->held_route.mixer = mixer;
            helper_say("client set route %s on device %d%s: held", ports[index].name, device, save ? " (save)" : "");
            return 0;
        }
        helper_say("client set route %s on device %d%s", ports[index].name, device, save ? " (save)" : "");
        set_route(card, (uint32_t)index, save, &mixer);
        emit_info(card, false);
        return 0;
    }
    default:
        return -ENOENT;
    }
}

static const struct spa_device_methods card_methods = {
    SPA_VERSION_DEVICE_METHODS,
    .add_listener = card_add_listener,
    .sync = card_sync,
    .enum_params = card_enum_params,
    .set_param = card_set_param,
};

static void print_ready(struct card *card) {
    if (card->ready_printed || card->device_id == SPA_ID_INVALID || card->sink_id == SPA_ID_INVALID)
        return;
    card->ready_printed = true;
    helper_say("ready device %u sink %u", card->device_id, card->sink_id);
}

static void on_sink_bound(void *data, uint32_t global_id) {
    struct card *card = data;
    card->sink_id = global_id;
    print_ready(card);
}

static const struct pw_proxy_events sink_proxy_events = {
    PW_VERSION_PROXY_EVENTS,
    .bound = on_sink_bound,
};

/* The card's analog sink, as WirePlumber creates the node of an ACP device:
 * an adapter that names its device (device.id) and which device of the
 * profile it is (card.profile.device), here around a null sink. */
static void create_sink(struct card *card) {
    char node_name[256], device_id[16];
    snprintf(node_name, sizeof(node_name), "%s.analog-stereo", card->name);
    snprintf(device_id, sizeof(device_id), "%u", card->device_id);
    struct pw_properties *props = pw_properties_new(
        "factory.name", "support.null-audio-sink",
        PW_KEY_NODE_NAME, node_name,
        PW_KEY_NODE_DESCRIPTION, "Built-in Audio Analog Stereo",
        PW_KEY_MEDIA_CLASS, "Audio/Sink",
        "audio.position", "[ FL FR ]", "audio.rate", "48000",
        "monitor.channel-volumes", "true",
        PW_KEY_DEVICE_ID, device_id,
        "card.profile.device", "0",
        "device.profile.name", "analog-stereo",
        "device.profile.description", "Analog Stereo",
        "device.api", "alsa", "api.alsa.card", "0", "api.alsa.path", "front:0",
        "priority.session", "800", "priority.driver", "800",
        /* Like the sandbox's own sinks; destroyed explicitly when we quit. */
        PW_KEY_OBJECT_LINGER, "true",
        NULL);
    card->sink_proxy = pw_core_create_object(card->core, "adapter", PW_TYPE_INTERFACE_Node, PW_VERSION_NODE,
                                             &props->dict, 0);
    pw_properties_free(props);
    if (card->sink_proxy == NULL) {
        fprintf(stderr, "pw-policy-test-card: cannot create the sink: %s\n", strerror(errno));
        pw_main_loop_quit(card->loop);
        return;
    }
    pw_proxy_add_listener(card->sink_proxy, &card->sink_proxy_listener, &sink_proxy_events, card);
}

static void on_device_bound(void *data, uint32_t global_id) {
    struct card *card = data;
    if (card->device_id != SPA_ID_INVALID)
        return;
    card->device_id = global_id;
    create_sink(card);
}

static const struct pw_proxy_events device_proxy_events = {
    PW_VERSION_PROXY_EVENTS,
    .bound = on_device_bound,
};

static void on_core_done(void *data, uint32_t id, int seq) {
    struct card *card = data;
    if (id != PW_ID_CORE)
        return;
    helper_syncs_done(&card->syncs, seq);
    if (card->quit_seq != 0 && seq == card->quit_seq)
        pw_main_loop_quit(card->loop);
}

/* Quits once the daemon has removed the sink: a lingering node outlives its
 * client, so it is destroyed explicitly, and the round trip makes sure the
 * request was handled before we disconnect. */
static void quit(struct card *card) {
    if (card->quit_seq != 0)
        return;
    if (card->sink_proxy == NULL) {
        pw_main_loop_quit(card->loop);
        return;
    }
    if (card->sink_id != SPA_ID_INVALID) {
        /* Destroying the proxy, or its resource, leaves a lingering node:
         * only destroying the global removes it. */
        struct pw_registry *registry = pw_core_get_registry(card->core, PW_VERSION_REGISTRY, 0);
        pw_registry_destroy(registry, card->sink_id);
        pw_proxy_destroy((struct pw_proxy *)registry);
    }
    card->quit_seq = pw_core_sync(card->core, PW_ID_CORE, 0);
    if (card->quit_seq <= 0)
        pw_main_loop_quit(card->loop);
}

static void on_core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    struct card *card = data;
    helper_report_core_error("pw-policy-test-card", card->loop, id, res, message);
    (void)seq;
}

static const struct pw_core_events core_events = {
    PW_VERSION_CORE_EVENTS,
    .done = on_core_done,
    .error = on_core_error,
};

static void print_availability(struct card *card, const char *what) {
    helper_say("%s: headphones available %s, speaker available %s", what,
        availability_name(port_available(card, PORT_HEADPHONES)),
        availability_name(port_available(card, PORT_SPEAKER)));
}

static void on_command(void *data, char *line) {
    struct card *card = data;
    char *verb = strtok(line, " \t");
    char *argument = strtok(NULL, " \t");
    if (verb == NULL)
        return;
    if (strcmp(verb, "quit") == 0) {
        quit(card);
    } else if (strcmp(verb, "sync") == 0) {
        helper_sync(&card->syncs, card->core, argument ? argument : "-");
    } else if (strcmp(verb, "unplug-headphones") == 0 || strcmp(verb, "plug-headphones") == 0) {
        bool plugged = verb[0] == 'p';
        if (card->headphones_plugged != plugged) {
            card->headphones_plugged = plugged;
            /* Both ports' availability changes in one jack event, as ACP
             * reports it: EnumRoute and Route, one info event. */
            changed(card, IDX_EnumRoute);
            changed(card, IDX_Route);
            emit_info(card, false);
        }
        print_availability(card, plugged ? "headphones plugged" : "headphones unplugged");
    } else if (strcmp(verb, "hold-routes") == 0) {
        card->holding_routes = true;
        helper_say("holding routes");
    } else if (strcmp(verb, "release-routes") == 0) {
        card->holding_routes = false;
        if (card->held_route.pending) {
            card->held_route.pending = false;
            set_route(card, card->held_route.port, card->held_route.save, &card->held_route.mixer);
            emit_info(card, false);
            helper_say("released route %s", ports[card->held_route.port].name);
        } else {
            helper_say("released routes (none held)");
        }
    } else if (strcmp(verb, "route") == 0) {
        uint32_t port;
        if (argument != NULL && strcmp(argument, "speaker") == 0)
            port = PORT_SPEAKER;
        else if (argument != NULL && strcmp(argument, "headphones") == 0)
            port = PORT_HEADPHONES;
        else {
            fprintf(stderr, "pw-policy-test-card: route speaker|headphones\n");
            return;
        }
        set_route(card, port, true, NULL);
        emit_info(card, false);
        helper_say("route %s (user)", ports[port].name);
    } else if (strcmp(verb, "profile") == 0) {
        uint32_t profile;
        if (argument != NULL && strcmp(argument, "off") == 0)
            profile = PROFILE_OFF;
        else if (argument != NULL && strcmp(argument, "analog") == 0)
            profile = PROFILE_ANALOG;
        else if (argument != NULL && strcmp(argument, "hdmi") == 0)
            profile = PROFILE_HDMI;
        else {
            fprintf(stderr, "pw-policy-test-card: profile off|analog|hdmi\n");
            return;
        }
        set_profile(card, profile, true);
        emit_info(card, false);
        helper_say("profile %s (user)", profiles[profile].name);
    } else {
        fprintf(stderr, "pw-policy-test-card: unknown command '%s'\n", verb);
    }
}

static void on_end_of_input(void *data) {
    quit(data);
}

static void on_signal(void *data, int signal_number) {
    struct card *card = data;
    quit(card);
    (void)signal_number;
}

int main(int argc, char *argv[]) {
    const char *remote = NULL;
    struct card card = { 0 };
    card.name = "alsa_card.pw-policy-test";
    card.headphones_plugged = true;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--remote") == 0) && i + 1 < argc) {
            remote = argv[++i];
        } else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
            card.name = argv[++i];
        } else if (strcmp(argv[i], "--unplugged") == 0) {
            card.headphones_plugged = false;
        } else {
            fprintf(stderr, "usage: pw-policy-test-card [-r REMOTE] [--name NAME] [--unplugged] < commands\n");
            return 64;
        }
    }
    pw_init(&argc, &argv);

    card.device_id = SPA_ID_INVALID;
    card.sink_id = SPA_ID_INVALID;
    card.active_profile = PROFILE_ANALOG;
    /* The best available port, as ACP chooses when it opens a card. */
    card.active_port[DEVICE_ANALOG] = card.headphones_plugged ? PORT_HEADPHONES : PORT_SPEAKER;
    card.active_port[DEVICE_HDMI] = PORT_HDMI;
    /* A card opens at its hardware volume, which is not what WirePlumber
     * restores on it. */
    for (int d = 0; d < N_DEVICES; d++)
        card.mixer[d] = (struct mixer){ .volumes = { 1.0f, 1.0f }, .mute = false };
    helper_syncs_init(&card.syncs);
    spa_hook_list_init(&card.hooks);
    card.device.iface = SPA_INTERFACE_INIT(SPA_TYPE_INTERFACE_Device, SPA_VERSION_DEVICE, &card_methods, &card);
    card.info = SPA_DEVICE_INFO_INIT();
    card.params[IDX_EnumProfile] = SPA_PARAM_INFO(SPA_PARAM_EnumProfile, SPA_PARAM_INFO_READ);
    card.params[IDX_Profile] = SPA_PARAM_INFO(SPA_PARAM_Profile, SPA_PARAM_INFO_READWRITE);
    card.params[IDX_EnumRoute] = SPA_PARAM_INFO(SPA_PARAM_EnumRoute, SPA_PARAM_INFO_READ);
    card.params[IDX_Route] = SPA_PARAM_INFO(SPA_PARAM_Route, SPA_PARAM_INFO_READWRITE);
    card.info.params = card.params;
    card.info.n_params = N_PARAMS;

    card.loop = pw_main_loop_new(NULL);
    struct pw_loop *loop = pw_main_loop_get_loop(card.loop);
    helper_handle_quit_signals(loop, on_signal, &card);
    card.context = pw_context_new(loop, NULL, 0);
    card.core = helper_connect(card.context, "pw-policy-test-card", "pw-policy-test-card", remote);
    if (card.core == NULL)
        return 69;
    pw_core_add_listener(card.core, &card.core_listener, &core_events, &card);

    /* The global's props: what pw-dump and WirePlumber see before any info. */
    struct spa_dict_item items[16];
    uint32_t n = 0;
    fill_props(&card, items, &n);
    card.device_proxy = pw_core_export(card.core, SPA_TYPE_INTERFACE_Device, &SPA_DICT_INIT(items, n),
                                       &card.device, 0);
    if (card.device_proxy == NULL) {
        fprintf(stderr, "pw-policy-test-card: cannot export the device: %s\n", strerror(errno));
        return 69;
    }
    pw_proxy_add_listener(card.device_proxy, &card.device_proxy_listener, &device_proxy_events, &card);

    helper_read_lines(&card.input, loop, STDIN_FILENO, "pw-policy-test-card", on_command, on_end_of_input, &card);

    pw_main_loop_run(card.loop);

    if (card.sink_proxy != NULL) {
        spa_hook_remove(&card.sink_proxy_listener);
        pw_proxy_destroy(card.sink_proxy);
    }
    spa_hook_remove(&card.device_proxy_listener);
    pw_proxy_destroy(card.device_proxy);
    spa_hook_remove(&card.core_listener);
    pw_core_disconnect(card.core);
    pw_context_destroy(card.context);
    pw_main_loop_destroy(card.loop);
    pw_deinit();
    return 0;
}
