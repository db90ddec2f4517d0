#define _GNU_SOURCE
#include "CPipeWire.h"
#include <unistd.h>
#include <errno.h>
#include <string.h>
#include <math.h>

const char *cpw_get_headers_version(void) { return pw_get_headers_version(); }

int cpw_gettid(void) { return (int)gettid(); }

int cpw_loop_enter(struct pw_loop *loop) { pw_loop_enter(loop); return 0; }
int cpw_loop_leave(struct pw_loop *loop) { pw_loop_leave(loop); return 0; }
int cpw_loop_iterate(struct pw_loop *loop, int timeout_ms) { return pw_loop_iterate(loop, timeout_ms); }

struct spa_source *cpw_loop_add_timer(struct pw_loop *loop, spa_source_timer_func_t func, void *data) {
    return pw_loop_add_timer(loop, func, data);
}

int cpw_loop_update_timer(struct pw_loop *loop, struct spa_source *source, uint64_t delay_ns) {
    struct timespec value = {
        .tv_sec = (time_t)(delay_ns / SPA_NSEC_PER_SEC),
        .tv_nsec = (long)(delay_ns % SPA_NSEC_PER_SEC),
    };
    // 0 disarms the timer (no value: a zero itimerspec); LoopTimer.schedule
    // never asks for less than 1 µs, so 0 only ever means cancel.
    if (delay_ns == 0)
        return pw_loop_update_timer(loop, source, NULL, NULL, false);
    return pw_loop_update_timer(loop, source, &value, NULL, false);
}

struct spa_source *cpw_loop_add_signal(struct pw_loop *loop, int signal_number, spa_source_signal_func_t func, void *data) {
    return pw_loop_add_signal(loop, signal_number, func, data);
}
struct spa_source *cpw_loop_add_io(struct pw_loop *loop, int fd, uint32_t mask, bool close, spa_source_io_func_t func, void *data) {
    return pw_loop_add_io(loop, fd, mask, close, func, data);
}
int cpw_loop_update_io(struct pw_loop *loop, struct spa_source *source, uint32_t mask) {
    return pw_loop_update_io(loop, source, mask);
}
void cpw_loop_destroy_source(struct pw_loop *loop, struct spa_source *source) {
    pw_loop_destroy_source(loop, source);
}

int cpw_core_add_listener(struct pw_core *core, struct spa_hook *hook, const struct pw_core_events *events, void *data) {
    return pw_core_add_listener(core, hook, events, data);
}
int cpw_core_sync(struct pw_core *core, uint32_t id, int seq) { return pw_core_sync(core, id, seq); }
struct pw_registry *cpw_core_get_registry(struct pw_core *core) {
    return pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
}
void *cpw_core_create_object(struct pw_core *core, const char *factory, const char *type, uint32_t version, const struct spa_dict *props) {
    return pw_core_create_object(core, factory, type, version, props, 0);
}
int cpw_registry_add_listener(struct pw_registry *registry, struct spa_hook *hook, const struct pw_registry_events *events, void *data) {
    return pw_registry_add_listener(registry, hook, events, data);
}
void *cpw_registry_bind(struct pw_registry *registry, uint32_t id, const char *type, uint32_t version) {
    return pw_registry_bind(registry, id, type, version, 0);
}
int cpw_registry_destroy(struct pw_registry *registry, uint32_t id) { return pw_registry_destroy(registry, id); }

int cpw_client_add_listener(struct pw_client *client, struct spa_hook *hook, const struct pw_client_events *events, void *data) {
    return pw_client_add_listener(client, hook, events, data);
}
int cpw_link_add_listener(struct pw_link *link, struct spa_hook *hook, const struct pw_link_events *events, void *data) {
    return pw_link_add_listener(link, hook, events, data);
}
int cpw_node_add_listener(struct pw_node *node, struct spa_hook *hook, const struct pw_node_events *events, void *data) {
    return pw_node_add_listener(node, hook, events, data);
}
int cpw_node_subscribe_params(struct pw_node *node, uint32_t *ids, uint32_t n_ids) {
    return pw_node_subscribe_params(node, ids, n_ids);
}
int cpw_node_send_command(struct pw_node *node, uint32_t command_id) {
    struct spa_command command = SPA_NODE_COMMAND_INIT(command_id);
    return pw_node_send_command(node, &command);
}
int cpw_device_add_listener(struct pw_device *device, struct spa_hook *hook, const struct pw_device_events *events, void *data) {
    return pw_device_add_listener(device, hook, events, data);
}
int cpw_device_subscribe_params(struct pw_device *device, uint32_t *ids, uint32_t n_ids) {
    return pw_device_subscribe_params(device, ids, n_ids);
}
int cpw_device_enum_params(struct pw_device *device, int seq, uint32_t id, uint32_t index, uint32_t num, const struct spa_pod *filter) {
    return pw_device_enum_params(device, seq, id, index, num, filter);
}
int cpw_metadata_add_listener(struct pw_metadata *metadata, struct spa_hook *hook, const struct pw_metadata_events *events, void *data) {
    return pw_metadata_add_listener(metadata, hook, events, data);
}
int cpw_metadata_set_property(struct pw_metadata *metadata, uint32_t subject, const char *key, const char *type, const char *value) {
    return pw_metadata_set_property(metadata, subject, key, type, value);
}

struct pw_properties *cpw_properties_new_empty(void) { return pw_properties_new(NULL, NULL); }

/* The Props keys of native volume ramps (PipeWire >= 0.3.68), as numbers:
 * the headers of 0.3.65 do not name them, and clients that old never get them. */
#define CPW_PROP_volumeRampStepSamples 0x10013
#define CPW_PROP_volumeRampTime 0x10014

int cpw_node_set_props_volume_ramp(struct pw_node *node, float volume, int32_t milliseconds, int32_t step_frames) {
    uint8_t buffer[256];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *pod = spa_pod_builder_add_object(&b,
        SPA_TYPE_OBJECT_Props, SPA_PARAM_Props,
        SPA_PROP_volume, SPA_POD_Float(volume),
        CPW_PROP_volumeRampTime, SPA_POD_Int(milliseconds),
        CPW_PROP_volumeRampStepSamples, SPA_POD_Int(step_frames));
    if (pod == NULL)
        return -ENOSPC;
    return pw_node_set_param(node, SPA_PARAM_Props, 0, pod);
}

int cpw_node_set_props_volume(struct pw_node *node, float volume) {
    uint8_t buffer[256];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    const struct spa_pod *pod = spa_pod_builder_add_object(&b,
        SPA_TYPE_OBJECT_Props, SPA_PARAM_Props,
        SPA_PROP_volume, SPA_POD_Float(volume));
    if (pod == NULL)
        return -ENOSPC;
    return pw_node_set_param(node, SPA_PARAM_Props, 0, pod);
}

int cpw_node_set_props_volumes(struct pw_node *node, float volume, bool mute, const float *channel_volumes,
                               uint32_t n_channel_volumes) {
    uint8_t buffer[1024];
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, sizeof(buffer));
    if (n_channel_volumes > CPW_MAX_CHANNELS)
        return -EINVAL;
    const struct spa_pod *pod = spa_pod_builder_add_object(&b,
        SPA_TYPE_OBJECT_Props, SPA_PARAM_Props,
        SPA_PROP_volume, SPA_POD_Float(volume),
        SPA_PROP_mute, SPA_POD_Bool(mute),
        SPA_PROP_channelVolumes, SPA_POD_Array(sizeof(float), SPA_TYPE_Float, n_channel_volumes, channel_volumes));
    if (pod == NULL)
        return -ENOSPC;
    return pw_node_set_param(node, SPA_PARAM_Props, 0, pod);
}

int cpw_parse_props(const struct spa_pod *pod, struct cpw_props *out) {
    memset(out, 0, sizeof(*out));
    if (pod == NULL || !spa_pod_is_object_type(pod, SPA_TYPE_OBJECT_Props))
        return -EINVAL;
    const struct spa_pod_object *obj = (const struct spa_pod_object *)pod;
    const struct spa_pod_prop *prop;
    SPA_POD_OBJECT_FOREACH(obj, prop) {
        switch (prop->key) {
        case SPA_PROP_volume:
            if (spa_pod_get_float(&prop->value, &out->volume) == 0)
                out->has_volume = true;
            break;
        case SPA_PROP_mute:
            if (spa_pod_get_bool(&prop->value, &out->mute) == 0)
                out->has_mute = true;
            break;
        case SPA_PROP_channelVolumes:
            out->n_channel_volumes = spa_pod_copy_array(&prop->value, SPA_TYPE_Float,
                out->channel_volumes, CPW_MAX_CHANNELS);
            break;
        default:
            break;
        }
    }
    return 0;
}

static void copy_string(char *dst, size_t size, const char *src) {
    if (src == NULL) { dst[0] = '\0'; return; }
    strncpy(dst, src, size - 1);
    dst[size - 1] = '\0';
}

int cpw_parse_route(const struct spa_pod *pod, struct cpw_route *out) {
    memset(out, 0, sizeof(*out));
    out->index = -1;
    out->device = -1;
    if (pod == NULL || !spa_pod_is_object_type(pod, SPA_TYPE_OBJECT_ParamRoute))
        return -EINVAL;
    const char *name = NULL, *description = NULL;
    struct spa_pod *info = NULL, *devices = NULL;
    int res = spa_pod_parse_object(pod, SPA_TYPE_OBJECT_ParamRoute, NULL,
        SPA_PARAM_ROUTE_index, SPA_POD_Int(&out->index),
        SPA_PARAM_ROUTE_direction, SPA_POD_Id(&out->direction),
        SPA_PARAM_ROUTE_name, SPA_POD_String(&name),
        SPA_PARAM_ROUTE_device, SPA_POD_OPT_Int(&out->device),
        SPA_PARAM_ROUTE_description, SPA_POD_OPT_String(&description),
        SPA_PARAM_ROUTE_priority, SPA_POD_OPT_Int(&out->priority),
        SPA_PARAM_ROUTE_available, SPA_POD_OPT_Id(&out->available),
        SPA_PARAM_ROUTE_info, SPA_POD_OPT_Pod(&info),
        SPA_PARAM_ROUTE_devices, SPA_POD_OPT_Pod(&devices));
    if (res < 0)
        return res;
    if (devices != NULL)
        out->n_devices = (int32_t)spa_pod_copy_array(devices, SPA_TYPE_Int, out->devices, 8);
    copy_string(out->name, sizeof(out->name), name);
    copy_string(out->description, sizeof(out->description), description);
    // The info struct is a count followed by key/value string pairs.
    if (info != NULL && spa_pod_is_struct(info)) {
        struct spa_pod_parser p;
        struct spa_pod_frame f;
        int32_t n = 0;
        spa_pod_parser_pod(&p, info);
        if (spa_pod_parser_push_struct(&p, &f) == 0 && spa_pod_parser_get_int(&p, &n) == 0) {
            for (int32_t i = 0; i < n; i++) {
                const char *key = NULL, *value = NULL;
                if (spa_pod_parser_get_string(&p, &key) < 0 || spa_pod_parser_get_string(&p, &value) < 0)
                    break;
                if (strcmp(key, "port.type") == 0)
                    copy_string(out->port_type, sizeof(out->port_type), value);
            }
        }
    }
    return 0;
}
