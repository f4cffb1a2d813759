/* stats_sink.h: `kfsck stats --sink-partition-duration`, the storage-sink
 * catch-up simulation's output (stats_sink.c); cmd_stats.c parses the
 * options, the library's kf_sink_run runs it. */
#ifndef KFSCK_CLI_STATS_SINK_H
#define KFSCK_CLI_STATS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sink.h"

/* The simulation's settings from the command line. */
typedef struct stats_sink_args {
    /* the connector's settings, where it resumes (sink.from or from_group),
     * the schedule (schedule_interval_ms: --rotate-schedule-interval, 0 when
     * not given; catch_up_rate: --catch-up-rate or its default), part_size,
     * tasks (>= 1) and heap (0: not given) */
    kf_sink_run_opts run;
    size_t max_batch;
    bool json;
} stats_sink_args;

/* The catch-up rate --rotate-schedule-interval assumes without
 * --catch-up-rate: records per second per topic partition. */
#define STATS_SINK_DEFAULT_CATCH_UP_RATE 1000
/* The most tasks --tasks takes (every task is a row of each topic's summary). */
#define STATS_SINK_MAX_TASKS 65536

/* The defaults: kf_sink_run_opts_init's, with the part size, the catch-up
 * rate and the tasks set to their defaults. */
void stats_sink_args_init(stats_sink_args *a);

/* Simulate a->run over every partition under paths; prints "sink_partition"
 * lines, then one "sink_summary" per topic (or the text form). Returns the
 * exit code. */
int stats_sink(char *const *paths, int npaths, const stats_sink_args *a);

#endif
