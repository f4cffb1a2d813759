/* scan.c: whole data dirs (include/kfsck/scan.h). The data dir's entries
 * come from the walk of paths.h; each partition dir is
 * verified by kf_verify_partition in a pool of threads (and, when the data
 * dir also holds the KRaft metadata log, checked against it:
 * kf_kraft_check_partition); its problems are
 * kept with it and the partitions handed back in (topic, partition) order.
 * The data dir's four offset checkpoints and each partition's
 * leader-epoch-checkpoint are compared with the segments
 * (checkpoint_ahead_of_log, cleaner_offset_out_of_range,
 * leader_epoch_ahead_of_log, checkpoint_orphan_entry,
 * checkpoint_missing_entry). A checkpoint can be far bigger than memory
 * should hold: each is streamed once the partitions are listed, its entries
 * kept only with the partitions present, so memory follows the partitions
 * whatever the file's size. */
#include "bytes/grow.h"
#include "bytes/report.h"
#include "bytes/satmath.h"
#include "bytes/opts.h"
#include "kfsck/scan.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bytes/error.h"
#include "bytes/pool.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/kraft_check.h"
#include "kfsck/metadata.h"
#include "kfsck/sys/names.h"
#include "format/paths.h"
#include "kfsck/predict.h"

void kf_datadir_scan_opts_init(kf_datadir_scan_opts *o)
{
    *o = (kf_datadir_scan_opts)KF_DATADIR_SCAN_OPTIONS_INIT;
}

/* ---- checkpoint files ------------------------------------------------------- */

enum { CK_RECOVERY, CK_HW, CK_LOG_START, CK_CLEANER, CK_N };
static const char *const CK_NAMES[CK_N] = {
    "recovery-point-offset-checkpoint",
    "replication-offset-checkpoint",
    "log-start-offset-checkpoint",
    "cleaner-offset-checkpoint",
};
static const char *const CK_WHAT[CK_N] = {"recovery point", "high watermark", "log start offset", "cleaner offset"};

/* What one checkpoint file records for a partition: the entry the broker
 * would use (the last one in the file for a duplicated key: Kafka reads the
 * list into a map). */
typedef struct ck_value {
    bool has;
    int64_t offset;
    uint64_t position;     /* of its line */
} ck_value;

static int cmp_tp(const char *ta, int32_t pa, const char *tb, int32_t pb)
{
    int c = strcmp(ta, tb);
    if (c)
        return c;
    return pa < pb ? -1 : pa > pb;
}

/* Orphan entries listed one by one per checkpoint file; the rest are one
 * summary problem (a checkpoint of another broker can name millions). */
#define ORPHANS_LISTED 100

/* ---- one partition ----------------------------------------------------------- */

typedef struct task {
    /* in */
    char *name, *topic, *dir;
    char *why;             /* the dir cannot be read: the walk's words (paths.h), else NULL */
    int32_t partition;
    /* out */
    kf_datadir_partition part;
    kf_problem *probs;
    char **files;          /* the problems' files, owned (nprobs of them) */
    size_t nprobs, capprobs, capfiles;
    /* at most KF_PROBLEMS_LISTED_MAX problems kept of a file in a row, the
     * rest counted (memory stays bounded whatever the damage) */
    char *cap_file;
    kf_problem_cap cap;
    kf_leader_epochs epochs;   /* its leader-epoch-checkpoint, with the entries' positions */
    ck_value ck[CK_N];         /* its entries in the data dir's offset checkpoints */
    kf_recovery_segment *segs; /* its plain segments that could be read, in offset order */
    size_t nsegs, capsegs;
    int rc;
} task;

typedef struct datadir_ctx {
    const char *datadir;
    const kf_datadir_scan_opts *o;
    unsigned reader_threads;
    struct dir_sink *ds;   /* its own problems */
    char *ck_path[CK_N];   /* the offset checkpoints there are, as the user would open them */
    bool any_checkpoint;
    int joining;           /* the checkpoint being read (CK_*) */
    uint64_t orphans;      /* its entries for partitions not here, */
    uint64_t first_unlisted_pos; /* and where the first one not listed is */
    kf_metadata *meta;     /* the data dir's KRaft metadata image, when it holds one and other partitions */
    task *tasks;
    size_t ntasks;
    /* its meta.properties (from the walk): node.id, else broker.id; cluster.id */
    bool has_broker, has_cluster_id;
    int32_t broker;
    char cluster_id[sizeof ((kf_meta_properties *)0)->cluster_id];
} datadir_ctx;

/* The problem callback of one partition: kept with it. */
/* p kept with its partition's problems (its file copied). */
static void store_problem(task *t, const kf_problem *p)
{
    if (t->rc != KF_OK)
        return;
    if (!KF_GROW(t->probs, t->nprobs, t->capprobs, 16) || !KF_GROW(t->files, t->nprobs, t->capfiles, 16)) {
        t->rc = KF_ERR_NOMEM;
        return;
    }
    char *f = p->file ? strdup(p->file) : NULL;
    if (p->file && !f) {
        t->rc = KF_ERR_NOMEM;
        return;
    }
    t->probs[t->nprobs] = *p;
    t->probs[t->nprobs].file = f;
    t->files[t->nprobs++] = f;
}

/* The problems of cap_file that were counted, not kept: one
 * problems_not_listed problem. */
static void flush_hidden(task *t)
{
    kf_problem q;
    if (kf_problem_cap_flush(&t->cap, t->cap_file, &q))
        store_problem(t, &q);
}

static void keep_problem(void *ctx, const kf_problem *p)
{
    task *t = ctx;
    if (p->severity == KF_SEV_ERROR)
        t->part.errors++;
    else
        t->part.warnings++;
    if (!strcmp(p->code, KF_P_UNREADABLE)) {
        t->part.unreadable = true;
        t->part.unreadable_paths++;
    }
    if (t->rc != KF_OK)
        return;
    const char *file = p->file ? p->file : "";
    if (!t->cap_file || strcmp(t->cap_file, file)) {
        flush_hidden(t);
        free(t->cap_file);
        t->cap.listed = 0;
        if (!(t->cap_file = strdup(file))) {
            t->rc = KF_ERR_NOMEM;
            return;
        }
    }
    if (kf_problem_cap_take(&t->cap, p))
        store_problem(t, p);
}

/* The segment callback of one partition's verify: its plain segments kept
 * to forecast recovery (recovery_end). */
static void keep_segment(void *ctx, const char *path, const kf_segment_summary *s)
{
    task *t = ctx;
    kf_name_info ni = kf_classify_name(kf_path_base(path));
    if (ni.kind != KF_FILE_LOG || ni.suffix[0] || ni.base_offset < 0 || t->rc != KF_OK)
        return;
    size_t cap = t->nsegs < t->capsegs ? t->capsegs : (t->capsegs ? t->capsegs * 2 : 8);
    kf_recovery_segment *segs = cap == t->capsegs ? t->segs : realloc(t->segs, cap * sizeof *segs);
    if (!segs) {
        t->rc = KF_ERR_NOMEM; /* t->segs stays as it was, freed with the task */
        return;
    }
    t->segs = segs;
    t->capsegs = cap;
    segs[t->nsegs++] = (kf_recovery_segment){ni.base_offset, s->size, s->valid_bytes, s->has_recovered_offsets,
                                      s->recovered_last_offset};
}

static int cmp_seg(const void *a, const void *b)
{
    const kf_recovery_segment *x = a, *y = b;
    return x->base_offset < y->base_offset ? -1 : x->base_offset > y->base_offset;
}

/* Where the broker's recovery after an unclean shutdown would leave the
 * log end: kf_recovery_end (predict.h, the rule predict's
 * log_end_offset_after follows), over the segments sorted. Unknown when a
 * segment could not be read. */
static void recovery_end(task *t)
{
    kf_datadir_partition *part = &t->part;
    const kf_partition_summary *lg = &part->log;
    if (!lg->listed || t->nsegs != lg->segments)
        return;
    const kf_partition_checkpoints *ck = &part->checkpoints;
    int64_t log_start = ck->log_start_offset.has ? ck->log_start_offset.offset : 0;
    int64_t rp = ck->recovery_point.has ? ck->recovery_point.offset : 0;
    int64_t end = lg->has_log_end ? lg->log_end_offset : log_start;
    if (t->nsegs > 1)
        qsort(t->segs, t->nsegs, sizeof *t->segs, cmp_seg);
    part->has_recovery_end = true;
    part->recovery_end_offset = kf_recovery_end(t->segs, t->nsegs, rp, log_start, end, NULL);
}

static bool read_topic_id(const char *dir, char id[23])
{
    char *p = kf_path_join(dir, "partition.metadata");
    kf_partition_metadata pm;
    bool ok = p && kf_partition_metadata_read(p, &pm) == KF_OK;
    if (ok)
        memcpy(id, pm.topic_id_b64, 23);
    free(p);
    return ok;
}

static void scan_partition(datadir_ctx *d, task *t)
{
    kf_datadir_partition *part = &t->part;
    part->id = (kf_partition_ref){d->datadir, t->topic, t->partition, t->dir};
    part->name = t->name;
    if (t->why) {
        kf_report_in(keep_problem, t, t->dir, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "%s", t->why);
        return;
    }

    kf_verify_opts vo;
    kf_verify_opts_init(&vo);
    vo.max_batch_bytes = d->o->max_batch_bytes;
    vo.threads = d->reader_threads;
    vo.problem_fn = keep_problem;
    vo.problem_ctx = t;
    vo.segment_fn = keep_segment;
    vo.segment_ctx = t;
    kf_verify_result vr = {0};
    int rc = kf_verify_partition(t->dir, &vo, &vr, &part->log);
    if (rc == KF_OK)
        rc = t->rc;
    if (rc != KF_OK) {
        t->rc = rc;
        return;
    }
    part->has_topic_id = part->log.listed && read_topic_id(t->dir, part->topic_id);
    /* against the KRaft metadata log of the same data dir */
    if (d->meta && part->log.listed)
        kf_kraft_check_partition(d->meta, t->topic, t->partition, t->dir, keep_problem, t);

    const ck_value *ce[CK_N];
    bool any_entry = false;
    for (int k = 0; k < CK_N; k++) {
        ce[k] = t->ck[k].has ? &t->ck[k] : NULL;
        any_entry |= ce[k] != NULL;
    }
    kf_partition_checkpoints *ck = &part->checkpoints;
    kf_checkpoint_offset *vals[CK_N] = {&ck->recovery_point, &ck->high_watermark, &ck->log_start_offset,
                                        &ck->cleaner_offset};
    for (int k = 0; k < CK_N; k++)
        *vals[k] = (kf_checkpoint_offset){ce[k] != NULL, ce[k] ? ce[k]->offset : 0};

    /* Checkpoints against the log. A partition with no segment is loaded
     * by the broker as an empty log at its log start offset. */
    bool has_leo = part->log.has_log_end;
    int64_t end = has_leo ? part->log.log_end_offset : (ce[CK_LOG_START] ? ce[CK_LOG_START]->offset : 0);
    const char *endwhat = has_leo ? "the log end offset" : "the log start (no segment)";

    /* Leader epochs up to the log end; those past it are the broker's to
     * cut, and only a few of them are kept to name (the file's own
     * problems were reported by the verify). */
    char *epath = kf_path_join(t->dir, "leader-epoch-checkpoint");
    if (!epath ||
        kf_leader_epochs_read(epath, part->log.listed ? end : INT64_MAX, true, &t->epochs, NULL, NULL) != KF_OK) {
        free(epath);
        t->rc = KF_ERR_NOMEM;
        return;
    }
    part->leader_epochs = t->epochs.entries;
    part->n_leader_epochs = t->epochs.n;

    if (part->log.listed) {
        static const int ahead[] = {CK_HW, CK_RECOVERY, CK_LOG_START};
        for (size_t i = 0; i < sizeof ahead / sizeof ahead[0]; i++) {
            int k = ahead[i];
            if (!ce[k] || ce[k]->offset <= end || (k == CK_LOG_START && !has_leo))
                continue;
            kf_report_in(keep_problem, t, d->ck_path[k], KF_P_CHECKPOINT_AHEAD_OF_LOG, KF_SEV_ERROR, ce[k]->position,
                         true, ce[k]->offset,
                         "%s of %s-%" PRId32 " is %" PRId64 ", beyond %s %" PRId64
                         ": the log has lost %" PRId64 " offsets the broker had%s",
                         CK_WHAT[k], t->topic, t->partition, ce[k]->offset, endwhat, end, kf_offsets_between(end, ce[k]->offset),
                         k == CK_HW ? " committed" : (k == CK_RECOVERY ? " flushed" : ""));
        }
        if (ce[CK_CLEANER] && ce[CK_CLEANER]->offset > end)
            kf_report_in(keep_problem, t, d->ck_path[CK_CLEANER], KF_P_CLEANER_OFFSET_OUT_OF_RANGE, KF_SEV_WARNING,
                         ce[CK_CLEANER]->position, true, ce[CK_CLEANER]->offset,
                         "cleaner offset of %s-%" PRId32 " is %" PRId64 ", beyond %s %" PRId64
                         " (the cleaner resets it to the log start)",
                         t->topic, t->partition, ce[CK_CLEANER]->offset, endwhat, end);
        uint64_t named = t->epochs.n_beyond < KF_EPOCHS_BEYOND_KEPT ? t->epochs.n_beyond : KF_EPOCHS_BEYOND_KEPT;
        for (uint64_t i = 0; i < named; i++) {
            const kf_epoch_entry_at *b = &t->epochs.beyond[i];
            kf_report_in(keep_problem, t, epath, KF_P_LEADER_EPOCH_AHEAD_OF_LOG, KF_SEV_WARNING, b->position, true,
                         b->e.start_offset,
                         "leader epoch %" PRId32 " starts at offset %" PRId64 ", beyond %s %" PRId64
                         " (the broker truncates the epoch cache at load)",
                         b->e.epoch, b->e.start_offset, endwhat, end);
        }
        if (t->epochs.n_beyond > named)
            kf_report_in(keep_problem, t, epath, KF_P_LEADER_EPOCH_AHEAD_OF_LOG, KF_SEV_WARNING,
                         t->epochs.beyond_unlisted_position, false, 0,
                         "%" PRIu64 " further leader epochs start beyond %s %" PRId64 " (not listed one by one)",
                         t->epochs.n_beyond - named, endwhat, end);
        /* The KRaft metadata log is kept by the raft layer, never in these files. */
        if (!any_entry && d->any_checkpoint && strcmp(t->topic, "__cluster_metadata") != 0)
            kf_report_in(keep_problem, t, t->dir, KF_P_CHECKPOINT_MISSING_ENTRY, KF_SEV_WARNING, 0, false, 0,
                         "%s-%" PRId32 " is in none of the data dir's offset checkpoints (a partition created "
                         "since the last checkpoint, or checkpoints from another broker)",
                         t->topic, t->partition);
    }
    free(epath);
}


static void task_free(task *t)
{
    for (size_t i = 0; i < t->nprobs; i++)
        free(t->files[i]);
    free(t->probs);
    free(t->files);
    free(t->cap_file);
    kf_leader_epochs_free(&t->epochs);
    free(t->segs);
    free(t->name);
    free(t->topic);
    free(t->dir);
    free(t->why);
}

/* ---- one data dir ------------------------------------------------------------- */

static int cmp_task(const void *a, const void *b)
{
    const task *x = a, *y = b;
    return cmp_tp(x->topic, x->partition, y->topic, y->partition);
}

/* The partition's task (d->tasks sorted), or NULL when it has no dir here. */
static task *find_task(datadir_ctx *d, const char *topic, int32_t partition)
{
    size_t lo = 0, hi = d->ntasks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_tp(d->tasks[mid].topic, d->tasks[mid].partition, topic, partition);
        if (c == 0)
            return &d->tasks[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The data dir's own problems: straight to the caller, counted. */
typedef struct dir_sink {
    const kf_datadir_scan_opts *o;
    kf_datadir_totals *tot;
    const char *file;
} dir_sink;

static void dir_problem(void *ctx, const kf_problem *p)
{
    dir_sink *s = ctx;
    if (!strcmp(p->code, KF_P_UNREADABLE)) {
        s->tot->unreadable = true;
        s->tot->unreadable_paths++;
    }
    kf_problem_pass(s->o->problem_fn, s->o->ctx, p, s->file, &s->tot->errors, &s->tot->warnings);
}

/* The KRaft metadata image of a data dir holding __cluster_metadata-0 and
 * other partitions, to check them against (built silently: the metadata
 * partition's own problems are its verify's); NULL otherwise. */
static int kraft_image(datadir_ctx *d)
{
    bool meta = false, others = false;
    for (size_t i = 0; i < d->ntasks; i++) {
        if (!strcmp(d->tasks[i].topic, "__cluster_metadata"))
            meta = true;
        else
            others = true;
    }
    if (!meta || !others)
        return KF_OK;
    kf_kraft_inputs ki;
    char *paths[1] = {(char *)d->datadir};
    int rc = kf_kraft_inputs_collect(&ki, paths, 1, NULL, NULL);
    if (rc != KF_ERR_NOMEM && kf_kraft_inputs_found(&ki)) {
        kf_metadata_opts mo;
        kf_metadata_opts_init(&mo);
        mo.max_batch_bytes = d->o->max_batch_bytes;
        rc = kf_metadata_build(&d->meta, &ki, &mo);
    }
    kf_kraft_inputs_free(&ki);
    return rc == KF_ERR_NOMEM ? rc : KF_OK;
}

/* ---- the data dir's entries, from the walk (paths.h) ------------------------------- */

typedef struct entries_walk {
    datadir_ctx *d;
    dir_sink *ds;
    size_t cap;        /* of d->tasks */
} entries_walk;

/* Each entry of the checkpoint d->joining goes to its partition's task, or
 * is an orphan (an entry naming a partition that is not here), reported as
 * it comes. */
static void ck_join_entry(void *ctx, const kf_checkpoint_entry *e)
{
    datadir_ctx *d = ctx;
    if (!e->topic)
        return;
    task *t = find_task(d, e->topic, e->partition);
    if (t) {
        t->ck[d->joining] = (ck_value){true, e->offset, e->position};
        return;
    }
    if (d->orphans++ == ORPHANS_LISTED)
        d->first_unlisted_pos = e->position;
    if (d->orphans > ORPHANS_LISTED)
        return;
    kf_report(dir_problem, d->ds, KF_P_CHECKPOINT_ORPHAN_ENTRY, KF_SEV_WARNING, e->position, true, e->offset,
              "entry for %s-%" PRId32 " (offset %" PRId64 "), which has no partition directory in %s", e->topic,
              e->partition, e->offset, d->datadir);
}

/* One of the four offset checkpoints, read in pieces whatever its size:
 * its entries kept with the partitions present, the others reported. */
static int read_checkpoint(datadir_ctx *d, int k, const char *path)
{
    dir_sink *ds = d->ds;
    d->any_checkpoint = true;
    free(d->ck_path[k]);
    if (!(d->ck_path[k] = strdup(path)))
        return kf_error_nomem();
    ds->file = d->ck_path[k];
    d->joining = k;
    d->orphans = 0;
    int32_t version;
    int err_no = 0;
    int rc = kf_error_errno(kf_checkpoint_read(path, KF_CHECKPOINT_OFFSETS, &version, ck_join_entry, d, dir_problem, ds),
                            &err_no);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc == KF_ERR_IO)
        kf_report(dir_problem, ds, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read: %s",
                  kf_path_error_str(err_no));
    if (d->orphans > ORPHANS_LISTED)
        kf_report(dir_problem, ds, KF_P_CHECKPOINT_ORPHAN_ENTRY, KF_SEV_WARNING, d->first_unlisted_pos, false, 0,
                  "%" PRIu64 " further entries name partitions with no directory in %s (not listed one by one)",
                  d->orphans - ORPHANS_LISTED, d->datadir);
    ds->file = d->datadir;
    return KF_OK;
}

/* A file of the data dir (its partitions are known by then): an offset
 * checkpoint joined with them, meta.properties and other checkpoints
 * verified. */
static int datadir_file(void *ctx, const kf_path_entry *e)
{
    entries_walk *w = ctx;
    for (int k = 0; k < CK_N; k++)
        if (!strcmp(e->name, CK_NAMES[k]))
            return read_checkpoint(w->d, k, e->path);
    if (e->file.kind != KF_FILE_META_PROPERTIES && e->file.kind != KF_FILE_OFFSET_CHECKPOINT)
        return KF_OK;
    kf_verify_opts vo;
    kf_verify_opts_init(&vo);
    vo.max_batch_bytes = w->d->o->max_batch_bytes;
    vo.problem_fn = dir_problem;
    vo.problem_ctx = w->ds;
    kf_verify_result vr = {0};
    return kf_verify_file(e->path, e->file.kind, e->file.base_offset, &vo, &vr, NULL);
}

/* The second walk looks at the files only. */
static bool no_partition(void *ctx, const kf_path_entry *e)
{
    (void)ctx;
    (void)e;
    return false;
}

/* Plain <topic>-<n> only: -delete, -future and -stray dirs end otherwise. */
static bool plain_partition_name(void *ctx, const kf_path_entry *e)
{
    (void)ctx;
    size_t len = strlen(e->name);
    return e->partition_named && len && isdigit((unsigned char)e->name[len - 1]);
}

/* A partition dir; one that cannot be read (a dangling or looping symlink,
 * a directory that cannot be listed) is a path that cannot be read, never
 * skipped: a partition whose only problem is that, in the walk's words. */
static int add_task(void *ctx, const kf_path_entry *e)
{
    entries_walk *w = ctx;
    datadir_ctx *d = w->d;
    if (!KF_GROW(d->tasks, d->ntasks, w->cap, 16))
        return kf_error_nomem();
    if (e->datadir && e->datadir->has_meta) {
        const kf_meta_properties *mp = &e->datadir->meta;
        d->has_broker = mp->has_node_id || mp->has_broker_id;
        d->broker = mp->has_node_id ? mp->node_id : mp->broker_id;
        d->has_cluster_id = mp->cluster_id[0] != 0;
        memcpy(d->cluster_id, mp->cluster_id, sizeof d->cluster_id);
    }
    task *t = &d->tasks[d->ntasks++];
    memset(t, 0, sizeof *t);
    t->partition = e->partition;
    t->name = strdup(e->name);
    t->topic = strdup(e->topic);
    t->dir = strdup(e->path);
    t->why = e->kind == KF_PATH_UNREADABLE ? strdup(e->why) : NULL;
    return t->name && t->topic && t->dir && (e->kind != KF_PATH_UNREADABLE || t->why) ? KF_OK : KF_ERR_NOMEM;
}

/* The data dir's partitions made tasks, in (topic, partition) order; then,
 * in a second walk, its checkpoints read against them and its
 * meta.properties verified, in name order. KF_ERR_IO when the data dir
 * cannot be listed (reported). */
static int collect_entries(datadir_ctx *d, dir_sink *ds)
{
    entries_walk w = {d, ds, 0};
    kf_paths_walk_opts wo;
    kf_paths_walk_opts_on(&wo, NULL, add_task, NULL, &w, NULL, NULL);
    wo.want_fn = plain_partition_name;
    wo.unreadable_partitions = true;
    int err_no = 0;
    int rc = kf_error_errno(kf_datadir_walk(d->datadir, &wo), &err_no);
    if (rc == KF_OK) {
        if (d->ntasks > 1)
            qsort(d->tasks, d->ntasks, sizeof *d->tasks, cmp_task);
        kf_paths_walk_opts_init(&wo);
        wo.datadir_file_fn = datadir_file;
        wo.want_fn = no_partition;
        wo.ctx = &w;
        rc = kf_error_errno(kf_datadir_walk(d->datadir, &wo), &err_no);
    }
    if (rc == KF_ERR_IO)
        kf_report(dir_problem, ds, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "cannot read directory: %s",
                  kf_path_error_str(err_no));
    return rc;
}

/* ---- the partitions: N workers, handed back in order --------------------------------- */

static void hand_back(datadir_ctx *d, task *t, kf_datadir_totals *tot)
{
    flush_hidden(t);
    t->part.problems = t->probs;
    t->part.n_problems = t->nprobs;
    t->part.has_broker = d->has_broker;
    t->part.broker = d->broker;
    t->part.cluster_id = d->has_cluster_id ? d->cluster_id : NULL;
    recovery_end(t);
    if (d->o->partition_fn)
        d->o->partition_fn(d->o->ctx, &t->part);
    tot->partitions++;
    tot->segments += t->part.log.segments;
    tot->bytes += t->part.log.bytes;
    tot->errors += t->part.errors;
    tot->warnings += t->part.warnings;
    tot->unreadable |= t->part.unreadable;
    tot->unreadable_paths += t->part.unreadable_paths;
}

typedef struct hand_back_ctx {
    datadir_ctx *d;
    kf_datadir_totals *tot;
} hand_back_ctx;

static int done_partition(void *ctx, size_t i)
{
    hand_back_ctx *h = ctx;
    task *t = &h->d->tasks[i];
    if (t->rc != KF_OK)
        return t->rc;
    hand_back(h->d, t, h->tot);
    return 0;
}

static void work_partition(void *ctx, size_t i)
{
    datadir_ctx *d = ((hand_back_ctx *)ctx)->d;
    scan_partition(d, &d->tasks[i]);
}

static int run_partitions(datadir_ctx *d, unsigned jobs, kf_datadir_totals *tot)
{
    hand_back_ctx h = {d, tot};
    return kf_pool_run(d->ntasks, jobs, work_partition, done_partition, &h);
}

int kf_datadir_scan(const char *dir, const kf_datadir_scan_opts *o, kf_datadir_totals *tot)
{
    kf_datadir_scan_opts own;
    if (kf_opts_take(&own, o, sizeof own, KF_DATADIR_SCAN_OPTIONS_VERSION, &own.max_batch_bytes) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    o = &own;
    dir_sink ds = {o, tot, dir};
    datadir_ctx d;
    memset(&d, 0, sizeof d);
    d.datadir = dir;
    d.o = o;
    d.ds = &ds;
    int rc = collect_entries(&d, &ds);
    unsigned jobs = o->jobs ? o->jobs : kf_cpu_count();
    /* jobs is the number of threads in all: one per partition at a time,
     * and the threads no partition takes go to the segment readers */
    d.reader_threads = jobs <= 1 || d.ntasks >= jobs ? 1 : jobs / (unsigned)(d.ntasks ? d.ntasks : 1);
    if (rc == KF_OK)
        rc = kraft_image(&d);
    if (rc == KF_OK) {
        rc = run_partitions(&d, jobs, tot);
    }
    for (size_t i = 0; i < d.ntasks; i++)
        task_free(&d.tasks[i]);
    free(d.tasks);
    kf_metadata_free(d.meta);
    for (int k = 0; k < CK_N; k++)
        free(d.ck_path[k]);
    return rc == KF_ERR_IO ? KF_OK : rc;
}
