/* kraft_check.c: the KRaft metadata partition checks of kraft_check.h —
 * snapshot header/footer, the log start a snapshot must cover (Kafka's
 * KafkaRaftLog.recoverSnapshots "Inconsistent snapshot state"), quorum-state
 * (FileQuorumStateStore) — plus the snapshot files as a partition for the
 * partition reader (kraft_files.h). metadata.c builds its image on these
 * checks; the check of a topic partition against that image is
 * image_check.c's, above both. */
#include "bytes/report.h"
#include "kfsck/kraft_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kraft/kraft_files.h"
#include "kfsck/sys/batch.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/part_feed.h"
#include "kfsck/sys/quorum_state.h"

/* ---- snapshot files as a partition ------------------------------------------------ */

int kraft_files_init(kraft_files *f, char *const *paths, size_t n)
{
    memset(f, 0, sizeof *f);
    f->copies = calloc(n ? n : 1, sizeof *f->copies);
    if (!f->copies)
        return kf_error_nomem();
    for (size_t i = 0; i < n; i++) {
        f->copies[i].label = paths[i];
        f->copies[i].segments = (char **)&paths[i];
        f->copies[i].bases = &f->zero;
        f->copies[i].nseg = 1;
    }
    f->p.topic = (char *)"__cluster_metadata";
    f->p.partition = 0;
    f->p.copies = f->copies;
    f->p.ncopies = n;
    return KF_OK;
}

void kraft_files_free(kraft_files *f)
{
    free(f->copies);
    memset(f, 0, sizeof *f);
}

bool kraft_snapshot_name(const char *base, int64_t *end_offset, int32_t *epoch)
{
    kf_name_info ni = kf_classify_name(base);
    if (ni.kind != KF_FILE_KRAFT_CHECKPOINT)
        return false;
    const char *dash = strchr(base, '-');
    if (!dash)
        return false;
    long long e = 0;
    for (const char *p = dash + 1; *p >= '0' && *p <= '9'; p++) {
        e = e * 10 + (*p - '0');
        if (e > INT32_MAX)
            return false;
    }
    *end_offset = ni.base_offset;
    *epoch = (int32_t)e;
    return true;
}

/* ---- one snapshot ------------------------------------------------------------------ */

typedef struct count_ctx {
    bool unreadable;
} count_ctx;

static void note_problem(void *ctx, const kf_problem *p)
{
    count_ctx *c = ctx;
    if (!strcmp(p->code, KF_P_UNREADABLE))
        c->unreadable = true;
}

/* A snapshot's batches counted: the status so far, and whether the last
 * record read was its snapshot_footer. */
typedef struct snap_count {
    kf_kraft_snapshot_status *st;
    bool last_is_footer;
} snap_count;

/* One batch of the snapshot (kf_part_batch_fn). */
static int count_batch(void *ctx, kf_part_reader *r, kf_batch *b)
{
    snap_count *F = ctx;
    kf_kraft_snapshot_status *st = F->st;
    bool first = st->batches == 0;
    st->batches++;
    kf_record_iter it;
    if (kf_part_reader_records(r, b, &it) != KF_OK) {
        st->damaged = true;
        F->last_is_footer = false;
        return KF_OK;
    }
    kf_record rec;
    int rr;
    for (uint64_t k = 0; (rr = kf_records_next(&it, &rec)) == 1; k++) {
        st->records++;
        kf_control ctl;
        bool is_ctl = b->control && kf_control_parse(&rec, &ctl) == KF_OK;
        if (first && k == 0) /* the snapshot's first record */
            st->has_header = is_ctl && ctl.type == KF_CONTROL_SNAPSHOT_HEADER;
        F->last_is_footer = is_ctl && ctl.type == KF_CONTROL_SNAPSHOT_FOOTER;
    }
    if (rr < 0) {
        st->damaged = true;
        F->last_is_footer = false;
    }
    return KF_OK;
}

int kf_kraft_check_snapshot(const char *path, size_t max_batch_bytes, kf_problem_fn fn, void *ctx,
                            kf_kraft_snapshot_status *st)
{
    kf_kraft_snapshot_status dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    char *paths[1] = {(char *)path};
    kraft_files f;
    if (kraft_files_init(&f, paths, 1) != KF_OK)
        return kf_error_nomem();
    count_ctx cc = {0};
    kf_part_reader_opts o;
    kf_part_reader_opts_init(&o);
    o.max_batch_bytes = max_batch_bytes ? max_batch_bytes : KF_DEFAULT_MAX_BATCH_BYTES;
    o.problem_fn = note_problem; /* batch damage is verify's to report */
    o.problem_ctx = &cc;
    snap_count F = {st, false};
    kf_part_result res;
    int rc = kf_part_feed(&f.p, &o, count_batch, &F, &res);
    kraft_files_free(&f);
    if (rc != KF_OK)
        return rc;
    st->readable = !cc.unreadable;
    st->damaged |= res.damaged_ranges > 0;
    st->has_footer = F.last_is_footer;
    if (!st->readable) {
        kf_report_in(fn, ctx, path, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read the snapshot");
        return kf_error_set(KF_ERR_IO, 0, path, "cannot read the snapshot");
    }
    if (!st->has_header || !st->has_footer) {
        const char *what = !st->batches ? "holds no batch"
                           : !st->has_header && !st->has_footer ? "has neither its snapshot_header nor its snapshot_footer"
                           : !st->has_header ? "does not start with a snapshot_header control record"
                                             : "does not end with a snapshot_footer control record";
        /* a node reads a snapshot with no footer as far as it goes (RecordsSnapshotReader
         * checks only the header): as its latest snapshot it becomes a partial image */
        kf_report_in(fn, ctx, path, KF_P_SNAPSHOT_INCOMPLETE, KF_SEV_ERROR, 0, false, 0,
                "the KRaft snapshot %s%s: %s", what, st->damaged ? " (its batches are damaged)" : "",
                st->has_header && st->batches ? "it is an incomplete copy (kfsck does not use it; a KRaft node whose "
                                                "latest snapshot it is loads the part that is there as its image)"
                                              : "it is an incomplete copy and cannot be loaded");
    }
    return KF_OK;
}

/* ---- quorum-state --------------------------------------------------------------------- */

int kf_kraft_check_quorum_state(const char *path, kf_problem_fn fn, void *ctx)
{
    kf_quorum_state qs;
    int err_no = 0;
    int rc = kf_error_errno(kf_quorum_state_read(path, &qs), &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_ERR_IO) {
        kf_report_in(fn, ctx, path, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read: %s",
                     kf_read_error_str(rc, err_no));
        return KF_ERR_IO;
    }
    if (rc != KF_OK)
        kf_report_in(fn, ctx, path, KF_P_CHECKPOINT_INVALID, KF_SEV_ERROR, 0, false, 0,
                "quorum-state: %s (the KRaft node refuses to start)", kf_error_last()->message);
    return KF_OK;
}

/* ---- a metadata directory --------------------------------------------------------------- */

int kf_kraft_check_dir(const char *dir, size_t max_batch_bytes, int what, kf_problem_fn fn, void *ctx)
{
    kf_name_list l;
    int err_no = 0;
    int rc = kf_error_errno(kf_list_dir(dir, &l), &err_no);
    if (rc != KF_OK) {
        if (rc != KF_ERR_NOMEM)
            kf_report_in(fn, ctx, dir, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot list: %s",
                    kf_path_error_str(err_no));
        return rc;
    }
    int64_t log_start = -1, latest = -1;
    const char *first_log = NULL;
    rc = KF_OK;
    for (size_t i = 0; i < l.n && rc != KF_ERR_NOMEM; i++) {
        const char *name = l.names[i];
        kf_name_info ni = kf_classify_name(name);
        if (ni.kind == KF_FILE_LOG && ni.suffix[0] == 0 && ni.base_offset >= 0) {
            if (log_start < 0 || ni.base_offset < log_start) {
                log_start = ni.base_offset;
                first_log = name;
            }
        } else if (ni.kind == KF_FILE_KRAFT_CHECKPOINT && ni.suffix[0] == 0) {
            if (ni.base_offset > latest)
                latest = ni.base_offset;
            if (what & KF_KCHECK_SNAPSHOTS) {
                char *p = kf_path_join(dir, name);
                if (!p) {
                    rc = KF_ERR_NOMEM;
                    break;
                }
                int r2 = kf_kraft_check_snapshot(p, max_batch_bytes, fn, ctx, NULL);
                if (r2 == KF_ERR_NOMEM)
                    rc = r2;
                free(p);
            }
        } else if (ni.kind == KF_FILE_QUORUM_STATE && ni.suffix[0] == 0) {
            if (what & KF_KCHECK_QUORUM) {
                char *p = kf_path_join(dir, name);
                if (!p) {
                    rc = KF_ERR_NOMEM;
                    break;
                }
                kf_kraft_check_quorum_state(p, fn, ctx);
                free(p);
            }
        }
    }
    if (rc == KF_OK && (what & KF_KCHECK_LOG_START) && log_start > 0 && latest < log_start) {
        char *p = kf_path_join(dir, first_log);
        if (!p) {
            rc = KF_ERR_NOMEM;
        } else {
            if (latest < 0)
                kf_report_in(fn, ctx, p, KF_P_SNAPSHOT_MISSING, KF_SEV_ERROR, 0, true, log_start,
                        "the metadata log starts at offset %lld and there is no KRaft snapshot: the state before it "
                        "is lost and the node refuses to start (\"Inconsistent snapshot state\")",
                        (long long)log_start);
            else
                kf_report_in(fn, ctx, p, KF_P_SNAPSHOT_MISSING, KF_SEV_ERROR, 0, true, log_start,
                        "the metadata log starts at offset %lld but the newest KRaft snapshot ends at %lld: offsets "
                        "%lld..%lld are lost and the node refuses to start (\"Inconsistent snapshot state\")",
                        (long long)log_start, (long long)latest, (long long)latest, (long long)log_start - 1);
            free(p);
        }
    }
    kf_name_list_free(&l);
    return rc;
}
