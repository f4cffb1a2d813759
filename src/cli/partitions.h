/* partitions.h: the command line's PATHs as partitions (kf_inputs), the
 * partition reader with the CLI's problem printing, and the jobs that read
 * every partition of one topic together: the __consumer_offsets replay on
 * one time line and Connect source offsets. */
#ifndef KFSCK_CLI_PARTITIONS_H
#define KFSCK_CLI_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/out.h"
#include "kfsck/kfsck.h"
#include "kfsck/partition.h"
#include "kfsck/replay.h"

/* kf_inputs_collect with "kfsck: <path>: <what>" on stderr for each path
 * that cannot be used: EXIT_CLEAN, or EXIT_FAIL when some path could not
 * (what was found is still in in). Out of memory exits. */
int inputs_collect(char *const *paths, int n, kf_inputs *in);

/* A partition reader whose problems go to rep (rep->o prints them); out of
 * memory exits. */
kf_part_reader *part_reader_open(const kf_partition *p, size_t max_batch_bytes, report *rep);

/* Replay every __consumer_offsets partition among in into r: each partition
 * in offset order over the union of its copies, partitions interleaved by
 * batch timestamp (one time line). rep->file (when rep is the replay's
 * problem context) follows the segment being replayed. Returns how many damaged ranges no copy
 * covered; *found = partitions replayed; *unreadable set when a segment
 * could not be read (the command then exits 3). */
uint64_t replay_offsets_topic(const kf_inputs *in, kf_replay *r, report *rep, out *perr, uint64_t *found,
                              bool *unreadable);

/* On stderr: which __consumer_offsets partition holds each group (Java
 * hashCode rule), and a warning when that partition is not in the inputs. */
void note_group_partitions(const kf_inputs *in, const char *const *groups, size_t n, int32_t partitions);

/* `offsets --connect` (connect.c): Connect source offsets from the topic's
 * partitions among the inputs. Returns an exit code. */
int connect_offsets(const kf_inputs *in, const char *topic, uint64_t max_batch_bytes, bool json, out *o, out *perr);

#endif
