/* predict_kraft.c: what a KRaft node checks of its own metadata partition
 * as it starts (docs/formats.md §14.5, §14.6, §20.3; raft/.../
 * FileQuorumStateStore.java: readStateFromFile; KafkaRaftLog /
 * KafkaMetadataLog: recoverSnapshots; KRaftControlRecordStateMachine:
 * maybeLoadSnapshot, which reads the latest snapshot with CRC validation;
 * RecordsSnapshotReader: the snapshot header). A log dir holding
 * __cluster_metadata-0 is a KRaft node's: a quorum-state that does not
 * parse, a log start no snapshot reaches, or a latest snapshot with no
 * header or with a batch that fails its CRC stops the node: each is a fatal
 * action of the log dir, in the node's own words. A latest snapshot cut
 * short (a torn last batch, no footer) is read as far as it goes and is the
 * image the log is replayed onto (a note); the metadata loader
 * (MetadataLoader, MetadataBatchLoader) then fails on the first record
 * that refers to what the lost part held, and on a node with the
 * controller role that fault stops it: a fatal too (docs/formats.md §14.7,
 * §20.9). */
#include "predict_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/kraft_check.h"
#include "kfsck/sys/names.h"
#include "kfsck/sys/quorum_state.h"
#include "kfsck/sys/segment.h"

static int quorum_state(pp_dir *d, const char *path)
{
    kf_quorum_state qs;
    int rc = kf_quorum_state_read(path, &qs);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_OK)
        return KF_OK;
    /* the last error's words stay until the next call that fails */
    const char *why = rc == KF_ERR_IO ? kf_read_error_str(rc, kf_error_last()->err_no) : kf_error_last()->message;
    d->stops = true;
    return pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1,
                      "Error while reading the Quorum status from the file %s (%s): the KRaft node does not start",
                      path, why);
}

typedef struct snap_check {
    pp_dir *d;
    const char *path;
    int rc;
    bool fatal;             /* a batch fails its CRC or framing before the end */
    bool torn;              /* the last batch is cut short */
    char what[512];
} snap_check;

static void snap_problem(void *ctx, const kf_problem *p)
{
    snap_check *c = ctx;
    if (p->severity != KF_SEV_ERROR || c->fatal)
        return;
    if (!strcmp(p->code, KF_P_TRUNCATED)) {
        c->torn = true;
        return;
    }
    c->fatal = true;
    snprintf(c->what, sizeof c->what, "%s at byte %" PRIu64 " (%s)", p->code, p->position, p->message);
}

/* The latest snapshot, as maybeLoadSnapshot reads it. */
static int latest_snapshot(pp_dir *d, const char *path, size_t max_batch_bytes)
{
    kf_kraft_snapshot_status st;
    int rc = kf_kraft_check_snapshot(path, max_batch_bytes, NULL, NULL, &st);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK || !st.readable) {
        d->stops = true;
        return pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1, "Error while loading log dir %s: cannot read %s",
                          d->path, path);
    }
    snap_check c = {d, path, KF_OK, false, false, ""};
    kf_source *src;
    if (kf_source_open(&src, path, 0) == KF_OK) {
        kf_segment_scan_opts so;
        kf_segment_scan_opts_init(&so);
        so.max_batch_bytes = max_batch_bytes;
        so.no_resync = true;
        so.threads = 1;
        so.problem_fn = snap_problem;
        so.problem_ctx = &c;
        kf_segment_summary sum;
        rc = kf_segment_scan(src, &so, &sum);
        kf_source_close(src);
        if (rc == KF_ERR_NOMEM)
            return rc;
    }
    if (c.fatal) {
        d->stops = true;
        return pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1,
                          "the latest KRaft snapshot %s fails the CRC validation the node reads it with: %s "
                          "(org.apache.kafka.common.errors.CorruptRecordException): the KRaft node does not start",
                          path, c.what);
    }
    if (st.batches && !st.has_header) {
        d->stops = true;
        return pp_dir_act(d, KF_ACT_FATAL, path, NULL, -1,
                          "java.lang.IllegalStateException: First batch is not a control batch with at least one "
                          "record (the latest KRaft snapshot %s has no snapshot_header): the KRaft node does not "
                          "start",
                          path);
    }
    d->kraft_snapshot_torn = c.torn || (st.batches && !st.has_footer);
    return KF_OK;
}

typedef struct start_check {
    pp_dir *d;
    const char *latest;     /* the latest snapshot's name, NULL when none */
    int rc;
} start_check;

static void log_start_problem(void *ctx, const kf_problem *p)
{
    start_check *c = ctx;
    if (strcmp(p->code, KF_P_SNAPSHOT_MISSING) != 0 || c->rc != KF_OK)
        return;
    c->d->stops = true;
    c->rc = pp_dir_act(c->d, KF_ACT_FATAL, p->file ? p->file : c->d->path, NULL, -1,
                       "java.lang.IllegalStateException: Inconsistent snapshot state: there must be a snapshot at an "
                       "offset larger then the current log start offset %" PRId64 ", but the latest snapshot is %s: "
                       "the KRaft node does not start",
                       p->offset, c->latest ? c->latest : "Optional.empty");
}

/* The raft layer's checks of d's metadata partition. */
static int check_raft(pp_run *r, pp_dir *d)
{
    char *dir = kf_path_join(d->path, "__cluster_metadata-0");
    if (!dir)
        return KF_ERR_NOMEM;
    kf_name_list l;
    int rc = kf_list_dir(dir, &l);
    if (rc != KF_OK) {
        free(dir);
        if (rc == KF_ERR_NOMEM)
            return rc;
        d->offline = true;
        return pp_dir_act(d, KF_ACT_FATAL, d->path, NULL, -1, "Error while loading log dir %s: %s", d->path,
                          strerror(kf_error_last()->err_no ? kf_error_last()->err_no : EIO));
    }
    const char *latest = NULL; /* names sort as (end offset, epoch): the greatest is the latest */
    bool quorum = false;
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_KRAFT_CHECKPOINT && ni.suffix[0] == 0 && (!latest || strcmp(l.names[i], latest) > 0))
            latest = l.names[i];
        quorum |= ni.kind == KF_FILE_QUORUM_STATE && ni.suffix[0] == 0;
    }
    char *path = quorum ? kf_path_join(dir, "quorum-state") : NULL;
    rc = quorum && !path ? KF_ERR_NOMEM : KF_OK;
    if (rc == KF_OK && path)
        rc = quorum_state(d, path);
    free(path);
    if (rc == KF_OK) {
        start_check c = {d, latest, KF_OK};
        rc = kf_kraft_check_dir(dir, r->o.max_batch_bytes, KF_KCHECK_LOG_START, log_start_problem, &c);
        rc = rc == KF_ERR_NOMEM ? rc : c.rc;
    }
    if (rc == KF_OK && latest) {
        path = kf_path_join(dir, latest);
        rc = path ? latest_snapshot(d, path, r->o.max_batch_bytes) : KF_ERR_NOMEM;
        if (rc == KF_OK && d->kraft_snapshot_torn && !(d->kraft_snapshot = strdup(path)))
            rc = KF_ERR_NOMEM;
        free(path);
    }
    kf_name_list_free(&l);
    free(dir);
    return rc;
}

int pp_check_kraft(pp_run *r, pp_dir *d)
{
    size_t nacts = d->nacts; /* every action here is a fatal of the raft layer */
    int rc = check_raft(r, d);
    d->raft_stops = d->nacts > nacts;
    return rc;
}

/* Whether the node has the controller role (process.roles, which is not on
 * disk), as far as its metadata tells: its node id among the voters or the
 * registered controllers. A node that is neither, where they are known,
 * is a broker only; without its id or them it is taken to be a controller. */
static bool controller_role(const pp_run *r)
{
    const kf_metadata_info *info = kf_metadata_get_info(r->meta);
    const kf_md_controller *const *cs;
    size_t nc = kf_metadata_controllers(r->meta, &cs);
    if (!r->has_broker_id || (!info->nvoters && !nc))
        return true;
    for (size_t i = 0; i < info->nvoters; i++)
        if (info->voters[i] == r->broker_id)
            return true;
    for (size_t i = 0; i < nc; i++)
        if (cs[i]->id == r->broker_id)
            return true;
    return false;
}

int pp_check_kraft_load(pp_run *r)
{
    const kf_metadata_info *info = r->meta ? kf_metadata_get_info(r->meta) : NULL;
    if (!info || !info->load_fault || !controller_role(r))
        return KF_OK; /* a broker-only node logs the fault and goes on without the record */
    pp_dir *d = NULL;
    for (size_t i = 0; i < r->ndirs && !d; i++)
        if (r->dirs[i].has_metadata_log && r->dirs[i].kraft_snapshot_torn)
            d = &r->dirs[i];
    if (!d || d->raft_stops || d->offline)
        return KF_OK; /* the node stops before its metadata loads */
    char *dir = kf_path_join(d->path, "__cluster_metadata-0");
    if (!dir)
        return KF_ERR_NOMEM;
    d->stops = true;
    int rc = pp_dir_act(d, KF_ACT_FATAL, dir, NULL, -1,
                        "%s (the log replayed onto what is left of the latest KRaft snapshot, which is cut short): a "
                        "fatal fault on a node with the controller role, the KRaft node does not start",
                        info->load_fault);
    free(dir);
    return rc;
}
