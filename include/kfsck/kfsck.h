/* kfsck.h: the public API of libkfsck, a reader of Apache Kafka's on-disk data
 * that needs no broker. The library never prints or exits: a function that
 * can fail returns a kf_err (Errors, below, says how) and findings go to
 * callbacks.
 *
 * Include this one header; it pulls in the rest. Link with
 * `pkg-config --cflags --libs kfsck` (shared library) or
 * `pkg-config --static --cflags --libs kfsck` (static).
 *
 * API conventions
 *
 * Errors. A function that can fail returns KF_OK or a kf_err (an iterator:
 * 1 for an item, 0 at the end, a negative kf_err), and where it fails it
 * sets the calling thread's last error, kf_error_last() (common.h): the
 * code, the errno of a failed system call, the path and the reason in
 * words. That is the only place an error's detail is found: no function
 * takes a message buffer or an errno out-parameter for its own failure,
 * and a function that makes an object hands it back through an
 * out-parameter (Objects, below). The parsers of the small files
 * (kf_producer_snapshot_parse, kf_checkpoint_parse,
 * kf_partition_metadata_parse, kf_meta_properties_parse,
 * kf_quorum_state_parse, kf_clean_shutdown_parse), of entries, records and
 * control records (sys/batch.h), kf_decompress, kf_predict_config_read,
 * kf_group_record_decode, kf_classify_path (an unreadable path: KF_ERR_IO,
 * its kind KF_PATH_UNREADABLE), kf_outdir_prepare (a refusal is its
 * verdict; OUTDIR that cannot be made is KF_ERR_IO) follow it like the
 * rest, and so do the small conversions (kf_uuid_from_b64,
 * kf_parse_duration_ms: KF_OK or KF_ERR_CORRUPT) and the table getters
 * (kf_connect_offsets: KF_OK or KF_ERR_NOMEM, the count in an
 * out-parameter). An object that keeps an error a step returning nothing
 * met (kf_replay_lost_range: out of memory) returns it, the last error
 * set, from its next call that returns one (kf_replay_batch).
 *
 * Reports, not errors: what one call meets many of and goes on after goes
 * to the caller as a report, never into the last error:
 *  - damage found in the data: a kf_problem to the caller's problem
 *    callback; the record iterator's -1 (kf_records_next) with its
 *    err_code, the problem code a caller reports the batch with, and
 *    err_msg; a coordinator or KRaft record decoded only in part, the
 *    words in its err beside what did decode (kf_coord_record,
 *    kf_kraft_record);
 *  - the PATHs a walk cannot use: kf_path_error_fn (partition.h), and a
 *    walk entry of kind KF_PATH_UNREADABLE with its err_no;
 *  - the broker's own sanity checks of an index file (kf_index_sanity,
 *    kf_txn_index_sanity): whether the broker would throw, and the reason
 *    it would give, into the caller's buffer: a finding about the file,
 *    not a failure of the call (which cannot fail).
 * Nor are answers errors: predicates and lookups return bool or NULL for
 * "no" or "none known" (kf_inputs_find, kf_topic_names_name,
 * kf_offsets_view_bounds, kf_partition_log_end: false when no segment of
 * the partition could be read, so that no log end is known), the *_name
 * functions NULL for a value they do not know, and a buffer filled with
 * text for the caller (kf_sink_advise, kf_sink_explain, kf_format_bytes)
 * is the result itself.
 *
 * Two deliberate exceptions, each for its reason:
 *  - kf_path_join, kf_path_dir and kf_sibling_path return a malloc'd
 *    string, NULL when out of memory (the last error then says so;
 *    kf_sibling_path also for a path that is no segment's). They build
 *    every path a walk opens, in hundreds of places where the string is
 *    the value and out of memory the only failure: an out-parameter there
 *    would add a variable and a line to every call for no gain.
 *  - kf_source_pread returns the count read, as pread(2) does, or -1 when
 *    a read fails (the last error set as for any failure, and errno kept
 *    as pread's callers expect). It is the streaming reader's inner read:
 *    a count short of what was asked is no error (the end of the file, or
 *    a file that shrank) and every caller compares the count with what it
 *    asked for.
 * kf_codec_load_error is no call's error: it says, for the whole process,
 * that a codec library could not be loaded (sys/codec.h).
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
 * KF_ERR_UNSUPPORTED. An
 * options struct inside another (kf_stats_opts.read) may keep version 0: the
 * outer struct's version covers it.
 *
 * Adding a field to an options struct later appends it at the end and bumps
 * KF_<NAME>_OPTIONS_VERSION: a program built against version 1 keeps passing
 * 1, and the library reads only the fields version 1 has, taking the
 * default for the rest, so the shared library's ABI does not break. E.g.
 * version 2 of kf_verify_opts added schema_fields and schema_tally: a caller
 * built with version 1 passes a shorter struct with version 1 and gets no
 * schema-framing check.
 *
 * Objects. Every function that makes an object has one shape:
 *
 *     int kf_<x>_<verb>(kf_<x> **out, ...);
 *
 * returning KF_OK with *out set, or a kf_err with *out NULL and the last
 * error set (kf_source_open, kf_replay_new, kf_metadata_build...); none
 * returns the object itself. One verb pair per kind of object:
 *  - kf_<x>_open / kf_<x>_close for what reads files (kf_source,
 *    kf_segment_iter, kf_part_reader, kf_txns, the indexes);
 *  - kf_<x>_new / kf_<x>_free for plain objects in memory (kf_connect,
 *    kf_replay, kf_sink, kf_txn_coord), and kf_<x>_free for the objects a
 *    job builds (kf_groups_build, kf_metadata_build);
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

/* Stable headers, the kfsck/ ones: the jobs, what the commands do, each
 * from the PATHs or the inputs a command takes to its results through
 * callbacks (kf_verify_paths, kf_datadir_scan, kf_offsets_job_run, kf_predict_run,
 * kf_dump_paths, ...), with the errors and problems (common.h), the walk
 * over PATHs and the inputs it collects (paths.h, partition.h) and the
 * time parser (timestamp.h). Their functions keep their meaning and their
 * options structs grow only by the version rule above. The result structs
 * they hand to callbacks are read, not made, by a program: before 1.0 they
 * may gain fields and group them into named parts between versions (0.2
 * groups a partition's identity as kf_partition_ref, its checkpoint
 * entries as kf_partition_checkpoints and a written segment's summary as
 * kf_segment_written), so a program is built against the headers of the
 * library it runs with.
 *
 * Lower-level headers, those of kfsck/sys/ (like libgit2's git2/sys/): the
 * readers the jobs are made of: checksums and codecs, the sources, the
 * segment iterator, batches and records, the indexes, the small files'
 * parsers, the partition reader and the record decoders. A program may use
 * them, and the stable headers use their types (a job hands its callback a
 * kf_batch, its options hold the partition reader's), but they follow the
 * library's insides and may change between minor versions. */

/* The stable headers: errors and problems, the inputs, the time parser */
#include "kfsck/common.h"
#include "kfsck/timestamp.h"
#include "kfsck/partition.h"
#include "kfsck/paths.h"

/* ... the jobs */
#include "kfsck/verify.h"
#include "kfsck/scan.h"
#include "kfsck/replay.h"
#include "kfsck/offsets_job.h"
#include "kfsck/offsets_view.h"
#include "kfsck/groups.h"
#include "kfsck/topic_names.h"
#include "kfsck/connect.h"
#include "kfsck/outdir.h"
#include "kfsck/repair.h"
#include "kfsck/stats.h"
#include "kfsck/sink.h"
#include "kfsck/txns.h"
#include "kfsck/metadata.h"
#include "kfsck/kraft_check.h"
/* compaction: why a compacted partition does not shrink, what cleaning frees */
#include "kfsck/compaction.h"
/* replicas: a partition's copies across brokers, before an election by hand */
#include "kfsck/replicas.h"
/* remote: tiered storage, reconciled (KIP-405) */
#include "kfsck/remote.h"
/* dump: what is in the files, ready to print */
#include "kfsck/dump.h"
/* predict: what a broker will do with its log dirs when it starts now */
#include "kfsck/predict.h"
/* report: one HTML page of every job that applies to the inputs */
#include "kfsck/report.h"

/* The lower-level headers: bytes (checksums, codecs) */
#include "kfsck/sys/crc.h"
#include "kfsck/sys/codec.h"
/* ... the JSON-lines writer every command's JSON output is built with */
#include "kfsck/sys/json_lines.h"
/* ... Kafka's files: names, directories, sources, the streaming reader */
#include "kfsck/sys/file.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/batch.h"
#include "kfsck/sys/segment.h"
#include "kfsck/sys/index.h"
#include "kfsck/sys/producer_snapshot.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/quorum_state.h"
#include "kfsck/sys/server_properties.h"
#include "kfsck/sys/clean_shutdown.h"
/* ... the partition reader, the loop over a partition, a range of offsets */
#include "kfsck/sys/part_reader.h"
#include "kfsck/sys/part_feed.h"
#include "kfsck/sys/offset_range.h"
/* ... the records: coordinator and KRaft decoders, which decoder a file
 * takes, the Schema Registry framing */
#include "kfsck/sys/coord.h"
#include "kfsck/sys/kraft.h"
#include "kfsck/sys/decoder.h"
#include "kfsck/sys/schema_ids.h"

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
