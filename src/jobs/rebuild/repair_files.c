/* repair_files.c: the partition files of a repair, decided once the
 * segments are written: leader-epoch-checkpoint (the input's, copied or cut
 * at the repaired log end when every kept batch agrees with it, else the
 * epochs rebuilt from the kept batches), producer snapshots (copied when
 * they name no dropped offset, else replaced by the state replayed over the
 * kept batches at the repaired log end) and partition.metadata (copied when
 * valid). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "jobs/rebuild/rebuild.h"
#include "jobs/rebuild/repair_internal.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/file.h"
#include "format/out_file.h"
#include "kfsck/sys/producer_snapshot.h"

/* ---- leader epochs -------------------------------------------------------------- */

/* The first thing wrong in the input checkpoint: why it is not copied. */
static void le_problem_fn(void *ctx, const kf_problem *p)
{
    repair_ctx *c = ctx;
    if (c->in_le_ok) {
        c->in_le_ok = false;
        snprintf(c->in_le_why, sizeof c->in_le_why, "it does not parse: %.150s", p->message);
    }
}

/* Opens the input's checkpoint at path and reaches its first k entries. */
static int open_epochs(repair_ctx *c, const char *path, size_t k)
{
    if (kf_epoch_stream_open(&c->in_le, path, le_problem_fn, c) != KF_OK)
        return repair_fail(c, path, ENOMEM, "out of memory");
    if (!c->in_le.read)
        c->in_le_ok = false;
    c->in_le_has_next = kf_epoch_stream_next(&c->in_le, &c->in_le_next) == 1;
    for (c->in_le_k = 0; c->in_le_k < k && c->in_le_has_next; c->in_le_k++) {
        c->in_le_cur = c->in_le_next;
        c->in_le_has_next = kf_epoch_stream_next(&c->in_le, &c->in_le_next) == 1;
    }
    return KF_OK;
}

int repair_read_epochs(repair_ctx *c, const char *path)
{
    c->in_le_ok = true;
    if (!(c->in_le_path = strdup(path)))
        return repair_fail(c, path, ENOMEM, "out of memory");
    return open_epochs(c, path, 0);
}

int repair_rewind_epochs(repair_ctx *c, size_t k, bool ok, const char *why)
{
    if (c->in_le_k != k) {
        kf_epoch_stream_close(&c->in_le);
        if (open_epochs(c, c->in_le_path, k) != KF_OK)
            return KF_ERR_NOMEM;
    }
    c->in_le_ok = ok;
    memcpy(c->in_le_why, why, sizeof c->in_le_why);
    return KF_OK;
}

void repair_check_epoch(repair_ctx *c, int64_t base, int32_t epoch)
{
    if (epoch < 0 || !c->in_le_ok)
        return;
    while (c->in_le_has_next && c->in_le_next.start_offset <= base) {
        c->in_le_cur = c->in_le_next;
        c->in_le_k++;
        c->in_le_has_next = kf_epoch_stream_next(&c->in_le, &c->in_le_next) == 1;
    }
    bool covered = c->in_le_k > 0;
    if (!covered || c->in_le_cur.epoch != epoch) {
        c->in_le_ok = false;
        snprintf(c->in_le_why, sizeof c->in_le_why,
                 "the batch at offset %lld has leader epoch %d, the checkpoint says %s%d", (long long)base, epoch,
                 covered ? "epoch " : "no epoch, first entry epoch ",
                 covered ? c->in_le_cur.epoch : c->in_le_has_next ? c->in_le_next.epoch : -1);
    }
}

int repair_write_epochs(repair_ctx *c, const char *in_path, int64_t leo)
{
    bool in_present = c->in_le.present, in_read = c->in_le.read;
    bool consistent = in_present && in_read && c->in_le_ok;
    /* the broker truncates the cache to the log end: entries starting at or past it go */
    kf_leader_epochs kept = {0};
    if (consistent && kf_leader_epochs_read(in_path, leo - 1, false, &kept, NULL, NULL) != KF_OK)
        return repair_fail(c, in_path, ENOMEM, "out of memory");
    consistent = consistent && kept.valid; /* the file as it was checked */
    size_t nle;
    kf_part_writer_epochs(c->w, &nle);
    size_t n = consistent ? kept.n : nle;
    if (!in_present && n == 0) {
        kf_leader_epochs_free(&kept);
        return KF_OK;
    }
    int wrc = kf_part_writer_write_epochs(c->w, consistent ? kept.entries : NULL, n);
    uint64_t cut = kept.n_beyond;
    kf_leader_epochs_free(&kept);
    if (wrc != KF_OK)
        return repair_writer_fail(c);
    char *outp = kf_path_join(c->t.out_dir, "leader-epoch-checkpoint");
    if (!outp)
        return repair_fail(c, in_path, ENOMEM, "out of memory");
    if (consistent && cut == 0)
        repair_emit_file(c, in_path, outp, "copied", "every kept batch's leader epoch agrees with it");
    else if (consistent)
        repair_emit_file(c, in_path, outp, "truncated",
                         "%" PRIu64 " entries start at or past the repaired log end offset %lld (the broker drops them too)",
                         cut, (long long)leo);
    else if (!in_present)
        repair_emit_file(c, NULL, outp, "rebuilt", "missing in the input; rebuilt from the kept batches' leader epochs");
    else if (!in_read)
        repair_emit_file(c, in_path, outp, "rebuilt",
                         "the input cannot be read; rebuilt from the kept batches' leader epochs");
    else
        repair_emit_file(c, in_path, outp, "rebuilt", "%s; rebuilt from the kept batches' leader epochs", c->in_le_why);
    free(outp);
    return KF_OK;
}

/* ---- producer snapshots --------------------------------------------------------- */

/* Write the producer state replayed over the kept batches as
 * <leo>.snapshot, in place of the input snapshot in_path (why: what is wrong
 * with it). A snapshot at the repaired log end that the input holds, or one
 * already rebuilt, takes the place instead. */
static int rebuild_snapshot(repair_ctx *c, const char *in_path, int64_t snap_off, bool leo_in_input, bool have_leo,
                            int64_t leo, const char *why)
{
    char name[64];
    snprintf(name, sizeof name, "%020lld.snapshot", (long long)leo);
    if (!have_leo) {
        repair_emit_file(c, in_path, NULL, "dropped", "%s; no segment is left to rebuild producer state from", why);
        return KF_OK;
    }
    if (c->snap_written || (leo_in_input && snap_off != leo)) {
        repair_emit_file(c, in_path, NULL, "dropped", "%s; the snapshot %s at the repaired log end offset replaces it",
                         why, name);
        return KF_OK;
    }
    const char *outp;
    if (kf_part_writer_write_snapshot(c->w, &outp) != KF_OK)
        return repair_writer_fail(c);
    c->snap_written = true;
    char from[96] = "";
    if (c->ps_seed >= 0)
        snprintf(from, sizeof from, "the snapshot at offset %lld and ", (long long)c->ps_seed);
    repair_emit_file(c, in_path, outp, "rebuilt",
                     "%s; rebuilt at the repaired log end offset %lld from %sthe kept batches (%zu producers)", why,
                     (long long)leo, from, kf_pstate_producers(kf_part_writer_pstate(c->w)));
    return KF_OK;
}

/* Does the snapshot name an offset that was dropped? Then why says which. */
static bool names_dropped(const repair_ctx *c, const kf_producer_snapshot *s, char *why, size_t cap)
{
    for (uint64_t i = 0; i < s->entries; i++) {
        kf_producer_snapshot_entry e;
        kf_producer_snapshot_get(s, i, &e);
        int64_t offs[2] = {e.last_offset, e.current_txn_first_offset};
        for (int k = 0; k < 2; k++) {
            if (offs[k] < 0)
                continue;
            for (size_t r = 0; r < c->nlost; r++)
                if (offs[k] >= c->lost[r].first && offs[k] <= c->lost[r].last) {
                    snprintf(why, cap, "producer %lld's state names offset %lld, which was dropped",
                             (long long)e.producer_id, (long long)offs[k]);
                    return true;
                }
        }
    }
    return false;
}

int repair_snapshot(repair_ctx *c, const char *in_path, const char *name, int64_t snap_off, bool have_leo, int64_t leo,
                    bool leo_in_input)
{
    char wbuf[240];
    int err_no = 0;
    kf_producer_snapshot s; /* read in pieces, whatever its size */
    int read_rc = kf_error_errno(kf_producer_snapshot_open(&s, in_path), &err_no);
    int rc = KF_OK;
    if (read_rc == KF_ERR_NOMEM) {
        rc = repair_fail(c, in_path, ENOMEM, "out of memory");
    } else if (read_rc == KF_ERR_IO) {
        /* an `unreadable` warning; the snapshot is rebuilt from the kept batches */
        rebuild_unreadable(c->o->problem_fn, c->o->ctx, in_path, read_rc, err_no);
        rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, "it cannot be read");
    } else if (read_rc != KF_OK) {
        snprintf(wbuf, sizeof wbuf, "corrupt (%.200s)", kf_error_last()->message);
        rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, wbuf);
    } else if (!have_leo || snap_off > leo) {
        snprintf(wbuf, sizeof wbuf, "it covers offsets up to %lld, past the repaired log end offset %lld",
                 (long long)snap_off, (long long)(have_leo ? leo : 0));
        rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, wbuf);
    } else if (names_dropped(c, &s, wbuf, sizeof wbuf)) {
        rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, wbuf);
    } else if (kf_producer_snapshot_read_status(&s) != KF_OK) {
        rebuild_unreadable(c->o->problem_fn, c->o->ctx, in_path, KF_ERR_IO, kf_error_last()->err_no);
        rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, "it cannot be read");
    } else {
        char *outp = kf_path_join(c->t.out_dir, name);
        bool input_failed;
        if (!outp) {
            rc = repair_fail(c, in_path, ENOMEM, "out of memory");
        } else if (kf_error_errno(kf_out_copy_file(c->t.write_dir, name, in_path, s.size, c->o->force, &input_failed),
                                  &err_no) == KF_OK) {
            repair_emit_file(c, in_path, outp, "copied", "its producer state names no dropped offset");
        } else if (input_failed) { /* it shrank or failed since it was checked */
            rebuild_unreadable(c->o->problem_fn, c->o->ctx, in_path, KF_ERR_IO, err_no);
            rc = rebuild_snapshot(c, in_path, snap_off, leo_in_input, have_leo, leo, "it cannot be read");
        } else {
            rc = repair_fail(c, outp, err_no, "cannot write");
        }
        free(outp);
    }
    kf_producer_snapshot_close(&s);
    return rc;
}

/* ---- partition.metadata --------------------------------------------------------- */

int repair_metadata(repair_ctx *c, const char *in_path)
{
    char *outp = NULL, msg[200];
    int err_no = 0, rc = KF_OK;
    switch (rebuild_copy_metadata(in_path, c->t.out_dir, c->t.write_dir, c->o->force, &outp, msg, sizeof msg, &err_no,
                                  c->o->problem_fn, c->o->ctx)) {
    case REBUILD_MD_COPIED: repair_emit_file(c, in_path, outp, "copied", "valid"); break;
    case REBUILD_MD_UNREADABLE: repair_emit_file(c, in_path, NULL, "dropped", "cannot be read"); break;
    case REBUILD_MD_INVALID:
        repair_emit_file(c, in_path, NULL, "dropped",
                         "invalid (%s); the broker writes it again from the controller's topic id", msg);
        break;
    case REBUILD_MD_NOMEM: rc = repair_fail(c, in_path, ENOMEM, "out of memory"); break;
    case REBUILD_MD_WRITE_FAILED: rc = repair_fail(c, outp, err_no, "cannot write"); break;
    }
    free(outp);
    return rc;
}
