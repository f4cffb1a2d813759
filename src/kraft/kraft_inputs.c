/* kraft_inputs.c: the KRaft metadata files under a set of PATHs
 * (metadata.h, kf_kraft_inputs): the copies of __cluster_metadata-0 (a
 * partition directory named so, or one holding KRaft snapshots or a
 * quorum-state; the one in a data dir), their .log segments as one log for
 * the partition reader, their snapshots and quorum-state files, loose
 * .log / .checkpoint / bootstrap.checkpoint / quorum-state files named on
 * the command line, and the data dirs' meta.properties, from the walk of
 * paths.h (a data dir's __cluster_metadata-N entries only). */
#include "kfsck/metadata.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/error.h"
#include "kraft/kraft_files.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"
#include "format/paths.h"

/* ---- inputs ------------------------------------------------------------------------ */

static int strv_add(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return kf_error_nomem();
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return kf_error_nomem();
    (*n)++;
    return KF_OK;
}

static int snapshot_add(kf_kraft_inputs *ki, const char *path, bool loose)
{
    const char *base = kf_path_base(path);
    kf_name_info ni = kf_classify_name(base);
    kf_kraft_snapshot_file f = {0};
    if (ni.kind == KF_FILE_BOOTSTRAP_CHECKPOINT) {
        f.bootstrap = true;
    } else if (!kraft_snapshot_name(base, &f.end_offset, &f.epoch)) {
        return KF_OK;
    }
    if (f.end_offset == 0 && f.epoch == 0)
        f.bootstrap = true; /* the 0-0 bootstrap snapshot */
    for (size_t i = 0; i < ki->nsnapshots; i++)
        if (!strcmp(ki->snapshots[i].path, path))
            return KF_OK;
    kf_kraft_snapshot_file *nv = realloc(ki->snapshots, (ki->nsnapshots + 1) * sizeof *nv);
    if (!nv)
        return kf_error_nomem();
    ki->snapshots = nv;
    if (!(f.path = strdup(path)))
        return kf_error_nomem();
    f.loose = loose;
    ki->snapshots[ki->nsnapshots++] = f;
    return KF_OK;
}

static bool is_metadata_dir_name(const char *base)
{
    char topic[256];
    int32_t part;
    return kf_parse_partition_dir(base, topic, sizeof topic, &part) && !strcmp(topic, "__cluster_metadata");
}

/* The walk's state: what it found so far. */
typedef struct kraft_walk {
    kf_kraft_inputs *ki;
    char **logp;          /* the metadata log's copies (dirs) and loose segments */
    size_t nlog;
    bool meta_taken;      /* the meta.properties of the data dir PATH being walked was taken */
    kf_path_error_fn fn;
    void *ctx;
} kraft_walk;

static int unusable(kraft_walk *w, const char *path, int err_no, const char *what)
{
    if (w->fn)
        w->fn(w->ctx, path, err_no, what);
    return KF_ERR_IO;
}

/* A partition directory: taken when it is named __cluster_metadata-N or holds
 * KRaft snapshots or a quorum-state. Adds its snapshots and quorum-state. A
 * directory that cannot be listed (it could a moment before, when it was
 * classified) is reported: KF_ERR_IO. */
static int meta_dir(kraft_walk *w, const char *dir, bool *taken)
{
    kf_kraft_inputs *ki = w->ki;
    *taken = false;
    kf_name_list l;
    int err_no = 0;
    int rc = kf_error_errno(kf_list_dir(dir, &l), &err_no);
    if (rc != KF_OK)
        return rc == KF_ERR_NOMEM ? rc : unusable(w, dir, err_no, kf_path_error_str(err_no));
    bool is_meta = is_metadata_dir_name(kf_path_base(dir));
    for (size_t i = 0; i < l.n && !is_meta; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        is_meta = (ni.kind == KF_FILE_KRAFT_CHECKPOINT && ni.suffix[0] == 0) || ni.kind == KF_FILE_QUORUM_STATE;
    }
    for (size_t i = 0; i < l.n && is_meta && rc == KF_OK; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.suffix[0] != 0)
            continue;
        if (ni.kind != KF_FILE_KRAFT_CHECKPOINT && ni.kind != KF_FILE_QUORUM_STATE)
            continue;
        char *p = kf_path_join(dir, l.names[i]);
        if (!p) {
            rc = KF_ERR_NOMEM;
            break;
        }
        rc = ni.kind == KF_FILE_QUORUM_STATE ? strv_add(&ki->quorum_states, &ki->nquorum, p) : snapshot_add(ki, p, false);
        free(p);
    }
    kf_name_list_free(&l);
    if (rc == KF_OK && is_meta) {
        *taken = true;
        if ((rc = strv_add(&ki->dirs, &ki->ndirs, dir)) == KF_OK)
            rc = strv_add(&w->logp, &w->nlog, dir);
    }
    return rc;
}

static int kraft_file(void *ctx, const kf_path_entry *e)
{
    kraft_walk *w = ctx;
    kf_kraft_inputs *ki = w->ki;
    const char *p = e->path;
    switch (e->file.kind) {
    case KF_FILE_KRAFT_CHECKPOINT:
    case KF_FILE_BOOTSTRAP_CHECKPOINT: return snapshot_add(ki, p, true);
    case KF_FILE_QUORUM_STATE: return strv_add(&ki->quorum_states, &ki->nquorum, p);
    case KF_FILE_META_PROPERTIES: return strv_add(&ki->meta_properties, &ki->nmeta, p);
    default:
        if (e->file.kind == KF_FILE_LOG || kf_looks_like_log(p))
            return strv_add(&w->logp, &w->nlog, p);
        return unusable(w, p, 0, "not a file of a KRaft metadata partition");
    }
}

/* A metadata partition dir; the meta.properties of the data dir holding it
 * once per data dir (a data dir PATH's, or a partition dir PATH's parent's). */
static int kraft_partition(void *ctx, const kf_path_entry *e)
{
    kraft_walk *w = ctx;
    if (e->kind != KF_PATH_PARTITION)
        return KF_OK;
    bool taken;
    int rc = meta_dir(w, e->path, &taken);
    if (rc != KF_OK || !taken || !e->datadir->meta_path)
        return rc;
    if (e->in_datadir && w->meta_taken)
        return KF_OK;
    w->meta_taken = e->in_datadir;
    return strv_add(&w->ki->meta_properties, &w->ki->nmeta, e->datadir->meta_path);
}

static int kraft_datadir(void *ctx, const kf_path_entry *e)
{
    (void)e;
    ((kraft_walk *)ctx)->meta_taken = false;
    return KF_OK;
}

static bool metadata_entry(void *ctx, const kf_path_entry *e)
{
    (void)ctx;
    return is_metadata_dir_name(e->name);
}

int kf_kraft_inputs_collect(kf_kraft_inputs *ki, char *const *paths, size_t n, kf_path_error_fn fn, void *ctx)
{
    memset(ki, 0, sizeof *ki);
    kraft_walk w = {ki, NULL, 0, false, fn, ctx};
    kf_paths_walk_opts o;
    kf_paths_walk_opts_on(&o, kraft_file, kraft_partition, kraft_datadir, &w, fn, ctx);
    o.want_fn = metadata_entry;
    o.descend = true;
    int status = kf_paths_walk(paths, n, &o);
    if (status != KF_ERR_NOMEM) {
        int rc = kf_inputs_collect(&ki->all, w.logp, w.nlog, fn, ctx);
        if (rc != KF_OK && status == KF_OK)
            status = rc;
    }
    for (size_t i = 0; i < w.nlog; i++)
        free(w.logp[i]);
    free(w.logp);
    /* every copy found is a copy of the metadata log */
    size_t total = 0;
    for (size_t i = 0; i < ki->all.n; i++)
        total += ki->all.parts[i].ncopies;
    ki->log.topic = (char *)"__cluster_metadata";
    ki->log.partition = 0;
    ki->log.copies = calloc(total ? total : 1, sizeof *ki->log.copies);
    if (!ki->log.copies)
        return kf_error_nomem();
    for (size_t i = 0; i < ki->all.n; i++)
        for (size_t c = 0; c < ki->all.parts[i].ncopies; c++)
            ki->log.copies[ki->log.ncopies++] = ki->all.parts[i].copies[c];
    return status;
}

void kf_kraft_inputs_free(kf_kraft_inputs *ki)
{
    if (!ki)
        return;
    kf_inputs_free(&ki->all);
    free(ki->log.copies);
    for (size_t i = 0; i < ki->nsnapshots; i++)
        free(ki->snapshots[i].path);
    free(ki->snapshots);
    for (size_t i = 0; i < ki->ndirs; i++)
        free(ki->dirs[i]);
    free(ki->dirs);
    for (size_t i = 0; i < ki->nquorum; i++)
        free(ki->quorum_states[i]);
    free(ki->quorum_states);
    for (size_t i = 0; i < ki->nmeta; i++)
        free(ki->meta_properties[i]);
    free(ki->meta_properties);
    memset(ki, 0, sizeof *ki);
}

bool kf_kraft_inputs_found(const kf_kraft_inputs *ki)
{
    size_t segs = 0;
    for (size_t i = 0; i < ki->log.ncopies; i++)
        segs += ki->log.copies[i].nseg;
    return segs > 0 || ki->nsnapshots > 0;
}
