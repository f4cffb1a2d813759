/* kfsck.h: the public API of libkfsck, a reader of Apache Kafka's on-disk data
 * that needs no broker. The library never prints or exits: every function
 * returns a kf_err (common.h says how) and reports findings through
 * callbacks. Options come in structs with an init function that sets the
 * defaults (kf_segment_scan_opts_init, kf_verify_opts_init, ...): declare one, init
 * it, change what you need, pass it.
 *
 * Include this one header; it pulls in the rest. Link with
 * `pkg-config --cflags --libs kfsck` (shared library) or
 * `pkg-config --static --cflags --libs kfsck` (static). */
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
/* bytes (src/bytes/): error codes and problems, byte cursors, checksums, codecs */
#include "kfsck/common.h"
#include "kfsck/cursor.h"
#include "kfsck/crc.h"
#include "kfsck/codec.h"

/* format (src/format/): Kafka's files, the streaming and partition readers, the writers */
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
#include "kfsck/producer_state.h"
#include "kfsck/intact.h"
#include "kfsck/partition.h"
#include "kfsck/out_file.h"
#include "kfsck/index_builder.h"
#include "kfsck/partwriter.h"

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
