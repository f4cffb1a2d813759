/* dump_internal.h: what the files of the dump room (src/jobs/dump/) share:
 * the state of one kf_dump_paths run. Internal to the library. */
#ifndef KFSCK_DUMP_INTERNAL_H
#define KFSCK_DUMP_INTERNAL_H

#include <stdarg.h>

#include "kfsck/dump.h"
#include "kfsck/paths.h"

typedef struct dump_run {
    kf_dump_opts o;
    kf_dump_result *res;
    int depth;                /* of the directory being listed: 0 for a PATH */
    kf_paths_walk_opts walk;
    bool nomem;               /* out of memory inside a callback of the reader */
    /* the file being dumped */
    const char *file;
    kf_decoder decoder;       /* its records' decoder */
    bool secret_bytes;        /* its records' raw bytes may hold secrets (KRaft metadata) */
    kf_dtree tree;            /* the current record's decoded fields */
} dump_run;

/* A path that cannot be used (skipped: a file of a kind kfsck does not
 * know), to path_error_fn and counted. */
void dump_path_error(dump_run *d, const char *path, int err_no, bool skipped, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A kf_problem_fn (ctx: the dump_run): to problem_fn with file set, counted. */
void dump_problem(void *ctx, const kf_problem *p);

/* The reader's record callback (dump_records.c): the record made ready to
 * show, to record_fn, then the problem its decoding found. */
int dump_on_record(void *ctx, const kf_batch *b, const kf_record *r);

/* With include_damaged and records: the records of the damaged stretch
 * dm's batch (dm->file set), read again from its file, as far as they
 * decode. KF_OK or KF_ERR_NOMEM. */
int dump_damaged_records(dump_run *d, const kf_damaged *dm);

/* A file that is not a segment (dump_entries.c): read in pieces (or, small by
 * nature, whole with a cap), its entries to
 * entry_fn, then the problems verify finds in it. KF_OK or KF_ERR_NOMEM. */
int dump_small_file(dump_run *d, const char *path, kf_name_info ni);

#endif
