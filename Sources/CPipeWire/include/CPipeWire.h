// Functions wrapping the libpipewire/libspa interface *macros* that Swift
// cannot import. Each wrapper is named after the macro it wraps with a `cpw_`
// prefix (pw_node_subscribe_params -> cpw_node_subscribe_params), in the manner of SwiftNIO's
// CNIOLinux, plus a few POD helpers where building or parsing a SPA POD needs
// the builder/parser macros.
#pragma once
#include "pipewire-headers.h"
#include <stdbool.h>

// MARK: - library
const char *cpw_get_headers_version(void);
/// gettid(2), which glibc declares only under _GNU_SOURCE (Swift's Glibc
/// module does not see it): the calling thread's id, for setpriority(2).
int cpw_gettid(void);

// MARK: - loop
int cpw_loop_enter(struct pw_loop *loop);
int cpw_loop_leave(struct pw_loop *loop);
int cpw_loop_iterate(struct pw_loop *loop, int timeout_ms);
struct spa_source *cpw_loop_add_timer(struct pw_loop *loop, spa_source_timer_func_t func, void *data);
/// Arms a one-shot timer `delay_ns` from now; 0 disarms it.
int cpw_loop_update_timer(struct pw_loop *loop, struct spa_source *source, uint64_t delay_ns);
struct spa_source *cpw_loop_add_signal(struct pw_loop *loop, int signal_number, spa_source_signal_func_t func, void *data);
struct spa_source *cpw_loop_add_io(struct pw_loop *loop, int fd, uint32_t mask, bool close, spa_source_io_func_t func, void *data);
int cpw_loop_update_io(struct pw_loop *loop, struct spa_source *source, uint32_t mask);
void cpw_loop_destroy_source(struct pw_loop *loop, struct spa_source *source);

// MARK: - core and registry
int cpw_core_add_listener(struct pw_core *core, struct spa_hook *hook, const struct pw_core_events *events, void *data);
int cpw_core_sync(struct pw_core *core, uint32_t id, int seq);
struct pw_registry *cpw_core_get_registry(struct pw_core *core);
void *cpw_core_create_object(struct pw_core *core, const char *factory, const char *type, uint32_t version, const struct spa_dict *props);
int cpw_registry_add_listener(struct pw_registry *registry, struct spa_hook *hook, const struct pw_registry_events *events, void *data);
void *cpw_registry_bind(struct pw_registry *registry, uint32_t id, const char *type, uint32_t version);
int cpw_registry_destroy(struct pw_registry *registry, uint32_t id);

// MARK: - objects
int cpw_client_add_listener(struct pw_client *client, struct spa_hook *hook, const struct pw_client_events *events, void *data);
int cpw_link_add_listener(struct pw_link *link, struct spa_hook *hook, const struct pw_link_events *events, void *data);
int cpw_node_add_listener(struct pw_node *node, struct spa_hook *hook, const struct pw_node_events *events, void *data);
int cpw_node_subscribe_params(struct pw_node *node, uint32_t *ids, uint32_t n_ids);
/// pw_node_send_command with the command SPA_NODE_COMMAND_INIT(command_id)
/// builds (SPA_NODE_COMMAND_Suspend, _Pause, _Start, …): the macro that
/// makes the command cannot be imported either.
int cpw_node_send_command(struct pw_node *node, uint32_t command_id);
int cpw_device_add_listener(struct pw_device *device, struct spa_hook *hook, const struct pw_device_events *events, void *data);
int cpw_device_subscribe_params(struct pw_device *device, uint32_t *ids, uint32_t n_ids);
/// Returns the seq the param events of this enumeration carry (an async result), or a negative errno.
int cpw_device_enum_params(struct pw_device *device, int seq, uint32_t id, uint32_t index, uint32_t num, const struct spa_pod *filter);
int cpw_metadata_add_listener(struct pw_metadata *metadata, struct spa_hook *hook, const struct pw_metadata_events *events, void *data);
int cpw_metadata_set_property(struct pw_metadata *metadata, uint32_t subject, const char *key, const char *type, const char *value);

// MARK: - properties
struct pw_properties *cpw_properties_new_empty(void);

// MARK: - POD helpers
/// Sets Props `volume` (only that field) on a node.
int cpw_node_set_props_volume(struct pw_node *node, float volume);
/// Sets Props `volume`, `mute` and `channelVolumes` at once: only ever on a
/// node of the agent's own (a stand-in stream), never on a user's stream.
int cpw_node_set_props_volumes(struct pw_node *node, float volume, bool mute, const float *channel_volumes,
                               uint32_t n_channel_volumes);
/// Sets Props `volume` as a native ramp: the client's audioconvert moves to
/// it over `milliseconds` (`volumeRampTime`) in steps of `step_frames`
/// (`volumeRampStepSamples`). PipeWire >= 0.3.68 clients only.
int cpw_node_set_props_volume_ramp(struct pw_node *node, float volume, int32_t milliseconds, int32_t step_frames);

// MARK: - peak meter (peak_meter.c: not a macro wrapper, the data thread's code)
/// What a peak meter measured on its current stream (since the last
/// `cpw_peak_meter_restart`).
struct cpw_peak_reading {
    /// At least one block came.
    bool measured;
    /// The latest block's peak was at or above the meter's level.
    bool loud;
    /// Some block was loud; then `last_loud_usec` is when the latest loud
    /// one was measured and `first_loud_usec` when the first was
    /// (CLOCK_MONOTONIC, microseconds).
    bool has_loud;
    uint64_t last_loud_usec;
    uint64_t first_loud_usec;
};
struct cpw_peak_meter;
/// Makes a meter node on `core`, a connection of `thread`'s (a pw_filter
/// with properties `props` and one DSP input port, "input", processed on
/// the data thread) and connects it; called on `loop`'s thread, not
/// `thread`'s. `changed` is called on `loop` when its filter's state
/// changes and when what it measured changes (the first block, the latest
/// block turning loud or quiet); not for every block.
struct cpw_peak_meter *cpw_peak_meter_new(struct pw_thread_loop *thread, struct pw_core *core, struct pw_loop *loop,
                                          const struct spa_dict *props, float level, void (*changed)(void *data),
                                          void *data);
void cpw_peak_meter_destroy(struct cpw_peak_meter *meter);
/// Its node's global id; SPA_ID_INVALID until the daemon has it.
uint32_t cpw_peak_meter_node_id(struct cpw_peak_meter *meter);
/// Whether its filter went into the error state.
bool cpw_peak_meter_failed(struct cpw_peak_meter *meter);
/// Forgets what it measured: it meters another stream from now on.
void cpw_peak_meter_restart(struct cpw_peak_meter *meter);
struct cpw_peak_reading cpw_peak_meter_read(struct cpw_peak_meter *meter);

#define CPW_MAX_CHANNELS 64
struct cpw_props {
    bool has_volume;
    float volume;
    bool has_mute;
    bool mute;
    uint32_t n_channel_volumes;
    float channel_volumes[CPW_MAX_CHANNELS];
};
/// Reads the policy-relevant fields of a Props object; returns 0 or -EINVAL.
int cpw_parse_props(const struct spa_pod *pod, struct cpw_props *out);

struct cpw_route {
    int32_t index;
    uint32_t direction;   // SPA_DIRECTION_INPUT / _OUTPUT
    int32_t device;
    uint32_t available;   // enum spa_param_availability
    int32_t priority;
    char name[256];
    char description[256];
    char port_type[64];   // "headphones", "speaker", … from the route info dict, or ""
    int32_t devices[8];   // EnumRoute: the card profile devices the port belongs to
    int32_t n_devices;
};
/// Reads a Route or EnumRoute object; returns 0 or -EINVAL.
int cpw_parse_route(const struct spa_pod *pod, struct cpw_route *out);
