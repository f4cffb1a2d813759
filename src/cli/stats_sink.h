/* stats_sink.h: `kfsck stats --sink-partition-duration`, the storage-sink
 * catch-up simulation's reading loop and output (stats_sink.c); cmd_stats.c
 * parses the options. */
#ifndef KFSCK_CLI_STATS_SINK_H
#define KFSCK_CLI_STATS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sink.h"

/* Simulate o over every partition under paths; prints "sink_partition"
 * lines, then one "sink_summary" per topic (or the text form). Returns the
 * exit code. */
int stats_sink(char *const *paths, int npaths, const kf_sink_opts *o, uint64_t part_size, size_t max_batch_bytes,
               bool json);

#endif
