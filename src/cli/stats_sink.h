/* stats_sink.h: `kfsck stats --sink-partition-duration`, the storage-sink
 * catch-up simulation's reading loop and output (stats_sink.c); cmd_stats.c
 * parses the options. */
#ifndef KFSCK_CLI_STATS_SINK_H
#define KFSCK_CLI_STATS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sink.h"

/* The simulation's settings from the command line. */
typedef struct stats_sink_args {
    kf_sink_opts so;             /* the connector's settings, where it resumes, schedule_records */
    uint64_t part_size;          /* s3.part.size */
    int64_t schedule_ms;         /* --rotate-schedule-interval; 0: not given */
    uint64_t catch_up_rate;      /* --catch-up-rate: records/s per partition (the default when not given) */
    const char *from_group;      /* --from-group: resume at this group's commits; NULL: so.from */
    uint32_t tasks;              /* --tasks: tasks.max, >= 1 */
    uint64_t heap;               /* --heap: one worker's heap in bytes; 0: not given */
    size_t max_batch;
    bool json;
} stats_sink_args;

/* The catch-up rate --rotate-schedule-interval assumes without
 * --catch-up-rate: records per second per topic partition. */
#define STATS_SINK_DEFAULT_CATCH_UP_RATE 1000
/* The most tasks --tasks takes (every task is a row of each topic's summary). */
#define STATS_SINK_MAX_TASKS 65536

/* Simulate a->so over every partition under paths; prints "sink_partition"
 * lines, then one "sink_summary" per topic (or the text form). Returns the
 * exit code. */
int stats_sink(char *const *paths, int npaths, const stats_sink_args *a);

#endif
