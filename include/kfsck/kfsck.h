/* kfsck.h: the public API of libkfsck, a reader of Apache Kafka's on-disk data
 * that needs no broker. The library never prints or exits: every function
 * returns a kf_err (common.h says how) and reports findings through
 * callbacks.
 *
 * Include this one header; it pulls in the rest. Link with
 * `pkg-config --cflags --libs kfsck` (shared library) or
 * `pkg-config --static --cflags --libs kfsck` (static).
 *
 * API conventions
 *
 * Options. A function's options come in a struct kf_<name>_opts whose first
 * member is `unsigned version`. Start one from KF_<NAME>_OPTIONS_INIT (or
 * kf_<name>_opts_init(), which fills the same): the version set to
 * KF_<NAME>_OPTIONS_VERSION and every other field zero, and zero is every
 * field's default (a cap of 0 is KF_DEFAULT_MAX_BATCH_BYTES, threads 0 is
 * automatic, a NULL name the usual one; a switch whose default is on is
 * named for turning it off, no_resync). Change what you need, pass it:
 *
 *     kf_verify_opts o = KF_VERIFY_OPTIONS_INIT;
 *     o.problem_fn = print_problem;
 *     int rc = kf_verify_paths(paths, n, &o, &res);
 *
 * Passing NULL instead means all the defaults. A version of 0 (a struct not
 * started from its INIT) or above what the library knows is refused with
 * KF_ERR_UNSUPPORTED (constructors returning a pointer return NULL). An
 * options struct inside another (kf_stats_opts.read) may keep version 0: the
 * outer struct's version covers it.
 *
 * Adding a field to an options struct later appends it at the end and bumps
 * KF_<NAME>_OPTIONS_VERSION: a program built against version 1 keeps passing
 * 1, and the library reads only the fields version 1 has, taking the
 * default for the rest, so the shared library's ABI does not break. E.g. if
 * version 2 of kf_verify_opts added `bool fast;`, a caller built with
 * version 1 passes a shorter struct with version 1 and gets fast = false.
 *
 * Objects. One verb pair per kind of object:
 *  - kf_<x>_open / kf_<x>_close for what reads files (kf_source,
 *    kf_segment_iter, kf_part_reader, kf_part_writer, kf_txns, the indexes);
 *  - kf_<x>_new / kf_<x>_free for plain objects in memory (kf_connect,
 *    kf_replay, kf_sink, kf_txn_coord, kf_pstate), and kf_<x>_free for the
 *    objects a job builds (kf_groups_build, kf_metadata_build);
 *  - a struct the caller owns that a function fills (kf_inputs_collect,
 *    kf_datadir_info_read, kf_leader_epochs_read, kf_outdir_init,
 *    kf_timehist_init) is emptied by the matching kf_<x>_free.
 * Every _close and _free accepts NULL (and a zeroed struct) and then does
 * nothing; a function that makes an object sets its out pointer to NULL
 * when it fails. */
#ifndef KFSCK_KFSCK_H
#define KFSCK_KFSCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The version of these headers; kf_version() is the library's, at run time. */
#define KFSCK_VERSION_MAJOR 0
#define KFSCK_VERSION_MINOR 2
#define KFSCK_VERSION_PATCH 0
#define KFSCK_VERSION "0.2.0"
#define KFSCK_VERSION_NUMBER (KFSCK_VERSION_MAJOR * 10000 + KFSCK_VERSION_MINOR * 100 + KFSCK_VERSION_PATCH)

/* The public headers by layer, bottom up, as src/ is (docs/architecture.md). */
/* bytes (src/bytes/): error codes, the last error and problems, checksums, codecs */
#include "kfsck/common.h"
#include "kfsck/crc.h"
#include "kfsck/codec.h"
#include "kfsck/timestamp.h"

/* format (src/format/): Kafka's files, the streaming and partition readers */
#include "kfsck/file.h"
#include "kfsck/dirs.h"
#include "kfsck/names.h"
#include "kfsck/batch.h"
#include "kfsck/segment.h"
#include "kfsck/index.h"
#include "kfsck/snapshot.h"
#include "kfsck/checkpoint.h"
#include "kfsck/paths.h"
#include "kfsck/quorum_state.h"
#include "kfsck/server_properties.h"
#include "kfsck/clean_shutdown.h"
#include "kfsck/partition.h"

/* records (src/records/): the internal topics' records */
#include "kfsck/coord.h"
#include "kfsck/kraft.h"

/* jobs (src/jobs/): what the commands do */
#include "kfsck/verify.h"
#include "kfsck/scan.h"
#include "kfsck/replay.h"
#include "kfsck/connect.h"
#include "kfsck/outdir.h"
#include "kfsck/repair.h"
#include "kfsck/stats.h"
#include "kfsck/sink.h"
#include "kfsck/txns.h"
#include "kfsck/metadata.h"
#include "kfsck/kraft_check.h"
#include "kfsck/part_feed.h"
#include "kfsck/decoder.h"
#include "kfsck/groups.h"
#include "kfsck/predict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version ("0.2.0") and KFSCK_VERSION_NUMBER, at run time. */
const char *kf_version(void);
int kf_version_number(void);

#ifdef __cplusplus
}
#endif

#endif
