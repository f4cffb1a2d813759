/* paths.c: the walk over the PATHs given to a command (include/kfsck/paths.h):
 * each PATH classified once, data dirs listed in name order, unusable paths
 * reported through one callback. */
#include "bytes/opts.h"
#include "kfsck/paths.h"
#include "format/paths.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/error.h"
#include "kfsck/common.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"

void kf_paths_walk_opts_init(kf_paths_walk_opts *o)
{
    *o = (kf_paths_walk_opts)KF_PATHS_WALK_OPTIONS_INIT;
}

void kf_paths_walk_opts_on(kf_paths_walk_opts *o, kf_path_entry_fn file_fn, kf_path_entry_fn partition_fn,
                           kf_path_entry_fn datadir_fn, void *ctx, kf_path_error_fn error_fn, void *error_ctx)
{
    *o = (kf_paths_walk_opts){.version = KF_PATHS_WALK_OPTIONS_VERSION,
                              .file_fn = file_fn,
                              .partition_fn = partition_fn,
                              .datadir_fn = datadir_fn,
                              .ctx = ctx,
                              .error_fn = error_fn,
                              .error_ctx = error_ctx};
}

/* o as the walk reads it (bytes/opts.h): NULL or a zero field is the
 * default; a version 1 caller's struct ends before mixed_clusters. */
static int paths_opts_take(kf_paths_walk_opts *own, const kf_paths_walk_opts *o)
{
    size_t size = o && o->version == 1 ? offsetof(kf_paths_walk_opts, mixed_clusters) : sizeof *own;
    int rc = kf_opts_take_grown(own, sizeof *own, o, size, KF_PATHS_WALK_OPTIONS_VERSION, NULL);
    if (!own->special_what)
        own->special_what = "not a regular file or directory";
    if (!own->other_dir_what)
        own->other_dir_what = "neither a partition directory nor a broker data directory";
    return rc;
}

/* ---- data dirs' meta.properties --------------------------------------------------- */

int kf_datadir_info_read(kf_datadir_info *info, const char *dir)
{
    memset(info, 0, sizeof *info);
    info->path = dir;
    info->cluster_id = "";
    char *p = kf_path_join(dir, "meta.properties");
    if (!p)
        return kf_error_nomem();
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(p);
        return KF_OK;
    }
    info->meta_path = p;
    int rc = kf_meta_properties_read(p, &info->meta);
    if (rc == KF_ERR_NOMEM)
        return rc;
    info->has_meta = rc == KF_OK;
    info->cluster_id = info->meta.cluster_id; /* named even by a file the broker would refuse */
    return KF_OK;
}

void kf_datadir_info_free(kf_datadir_info *info)
{
    if (!info)
        return;
    free((char *)info->meta_path);
    memset(info, 0, sizeof *info);
}

/* ---- one cluster (paths.h) -------------------------------------------------------- */

int kf_one_cluster_add(kf_one_cluster *c, const char *path, const char *what, const char *cluster_id,
                       kf_path_error_fn fn, void *ctx)
{
    if (!cluster_id || !*cluster_id)
        return KF_OK;
    if (!c->cluster_id) {
        c->cluster_id = strdup(cluster_id);
        c->path = strdup(path);
        return c->cluster_id && c->path ? KF_OK : kf_error_nomem();
    }
    if (!strcmp(c->cluster_id, cluster_id))
        return KF_OK;
#define OTHER_CLUSTER "%s cluster.id %s, but %s names %s: data dirs of different clusters are never read as copies " \
                      "of one another"
    int len = snprintf(NULL, 0, OTHER_CLUSTER, what, cluster_id, c->path, c->cluster_id);
    char *msg = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!msg)
        return kf_error_nomem();
    snprintf(msg, (size_t)len + 1, OTHER_CLUSTER, what, cluster_id, c->path, c->cluster_id);
#undef OTHER_CLUSTER
    if (fn)
        fn(ctx, path, 0, msg);
    free(msg);
    return KF_ERR_IO;
}

void kf_one_cluster_free(kf_one_cluster *c)
{
    free(c->cluster_id);
    free(c->path);
    memset(c, 0, sizeof *c);
}

/* The data dir a PATH belongs to, malloc'd: a data dir itself, a partition
 * dir's parent, the parent of a file's partition dir. NULL with *nomem
 * false when there is none (a loose file, an unusable path). */
static char *datadir_of_path(const char *path, bool *nomem)
{
    char *dir = NULL;
    kf_path_kind kind;
    kf_classify_path(path, &kind);
    switch (kind) {
    case KF_PATH_DATADIR: dir = strdup(path); break;
    case KF_PATH_PARTITION: dir = kf_path_dir(path); break;
    case KF_PATH_FILE: {
        char *pdir = kf_path_dir(path), topic[256];
        int32_t partition;
        if (pdir && !kf_parse_partition_dir(kf_path_base(pdir), topic, sizeof topic, &partition)) {
            free(pdir);
            return NULL;
        }
        dir = pdir ? kf_path_dir(pdir) : NULL;
        free(pdir);
        break;
    }
    default: return NULL;
    }
    *nomem = !dir;
    return dir;
}

int kf_paths_one_cluster(char *const *paths, size_t n, kf_path_error_fn fn, void *ctx)
{
    kf_one_cluster c = {0};
    int rc = KF_OK;
    for (size_t i = 0; i < n && rc == KF_OK; i++) {
        bool nomem = false;
        char *dir = datadir_of_path(paths[i], &nomem);
        if (nomem) {
            rc = kf_error_nomem();
            break;
        }
        if (!dir)
            continue;
        kf_datadir_info dd;
        rc = kf_datadir_info_read(&dd, dir);
        if (rc == KF_OK)
            rc = kf_one_cluster_add(&c, dir, "its meta.properties names", dd.cluster_id, fn, ctx);
        kf_datadir_info_free(&dd);
        free(dir);
    }
    kf_one_cluster_free(&c);
    return rc;
}

/* ---- entries ------------------------------------------------------------------------ */

static void entry_init(kf_path_entry *e, const char *path, const char *name)
{
    memset(e, 0, sizeof *e);
    e->path = path;
    e->name = name;
    e->file = kf_classify_name(name);
    e->partition_named = kf_parse_partition_dir(name, e->topic, sizeof e->topic, &e->partition);
    if (!e->partition_named) {
        e->topic[0] = 0;
        e->partition = -1;
    }
}

static int call(kf_path_entry_fn fn, void *ctx, const kf_path_entry *e)
{
    return fn ? fn(ctx, e) : KF_OK;
}

static int report(const kf_paths_walk_opts *o, const char *path, int err_no, const char *what)
{
    if (o->error_fn)
        o->error_fn(o->error_ctx, path, err_no, what);
    return KF_ERR_IO;
}

/* Folds one step's result into the walk's: KF_ERR_IO is remembered, any
 * other error ends the walk. Returns true to go on. */
static bool fold(int *status, int rc)
{
    if (rc == KF_OK)
        return true;
    if (rc == KF_ERR_IO) {
        if (*status == KF_OK)
            *status = rc;
        return true;
    }
    *status = rc;
    return false;
}

/* A data dir's own files: what the broker keeps beside its partition dirs. */
static bool is_datadir_file(kf_file_kind k)
{
    return k == KF_FILE_META_PROPERTIES || k == KF_FILE_OFFSET_CHECKPOINT || k == KF_FILE_BOOTSTRAP_CHECKPOINT;
}

/* One entry of a data dir. */
static int datadir_entry(const kf_paths_walk_opts *o, const kf_datadir_info *dd, const char *name)
{
    char *sub = kf_path_join(dd->path, name);
    if (!sub)
        return KF_ERR_NOMEM;
    kf_path_entry e;
    entry_init(&e, sub, name);
    e.in_datadir = true;
    e.datadir = dd;
    int rc = KF_OK;
    struct stat st;
    int stat_rc = stat(sub, &st), stat_errno = errno;
    char why[4200];
    if (is_datadir_file(e.file.kind) && !(stat_rc == 0 && S_ISDIR(st.st_mode))) {
        e.kind = stat_rc != 0 ? KF_PATH_UNREADABLE : S_ISREG(st.st_mode) ? KF_PATH_FILE : KF_PATH_SPECIAL;
        e.err_no = stat_rc != 0 ? stat_errno : 0;
        if (e.kind == KF_PATH_UNREADABLE)
            e.why = kf_path_why(sub, e.err_no, why, sizeof why);
        rc = call(o->datadir_file_fn, o->ctx, &e);
    } else if (!o->want_fn || o->want_fn(o->ctx, &e)) {
        kf_classify_path(sub, &e.kind);
        e.err_no = e.kind == KF_PATH_UNREADABLE ? kf_error_last()->err_no : 0;
        if (e.kind == KF_PATH_UNREADABLE)
            e.why = kf_path_why(sub, e.err_no, why, sizeof why);
        if (e.kind == KF_PATH_PARTITION || (e.partition_named && e.kind == KF_PATH_DATADIR))
            rc = call(o->partition_fn, o->ctx, &e);
        else if (e.partition_named && e.kind == KF_PATH_UNREADABLE) /* never silently skipped */
            rc = o->unreadable_partitions ? call(o->partition_fn, o->ctx, &e) : report(o, sub, e.err_no, e.why);
        else
            rc = call(o->other_entry_fn, o->ctx, &e);
    }
    free(sub);
    return rc;
}

static int walk_datadir(const kf_paths_walk_opts *o, const kf_datadir_info *dd, int *err_no)
{
    kf_name_list l;
    int rc = kf_error_errno(kf_list_dir(dd->path, &l), err_no);
    if (rc != KF_OK)
        return rc;
    int status = KF_OK;
    for (size_t i = 0; i < l.n && fold(&status, datadir_entry(o, dd, l.names[i])); i++)
        ;
    kf_name_list_free(&l);
    return status;
}

int kf_datadir_walk(const char *dir, const kf_paths_walk_opts *o)
{
    kf_paths_walk_opts own;
    if (paths_opts_take(&own, o) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    o = &own;
    kf_datadir_info dd;
    int rc = kf_datadir_info_read(&dd, dir);
    int e = 0;
    if (rc == KF_OK)
        rc = walk_datadir(o, &dd, &e);
    kf_datadir_info_free(&dd);
    /* the listing's own error is kf_list_dir's; keep it as the last error
     * (a callback's error is the callback's) */
    return rc;
}

/* ---- PATHs ------------------------------------------------------------------------- */

static bool dir_is_empty(const char *dir)
{
    kf_name_list l;
    if (kf_list_dir(dir, &l) != KF_OK)
        return false;
    bool empty = l.n == 0;
    kf_name_list_free(&l);
    return empty;
}

static int datadir_path(const kf_paths_walk_opts *o, kf_path_entry *e)
{
    kf_datadir_info dd;
    int rc = kf_datadir_info_read(&dd, e->path);
    if (rc != KF_OK)
        return rc;
    e->datadir = &dd;
    rc = call(o->datadir_fn, o->ctx, e);
    if (rc == KF_OK && o->descend) {
        int err_no = 0;
        rc = walk_datadir(o, &dd, &err_no);
        if (rc == KF_ERR_IO && err_no) /* listed a moment ago, not now */
            rc = report(o, e->path, err_no, kf_path_error_str(err_no));
    }
    e->datadir = NULL;
    kf_datadir_info_free(&dd);
    return rc;
}

static int partition_path(const kf_paths_walk_opts *o, kf_path_entry *e)
{
    char *parent = kf_path_dir(e->path);
    if (!parent)
        return KF_ERR_NOMEM;
    kf_datadir_info dd;
    int rc = kf_datadir_info_read(&dd, parent);
    if (rc == KF_OK) {
        e->datadir = &dd;
        rc = call(o->partition_fn, o->ctx, e);
        e->datadir = NULL;
    }
    kf_datadir_info_free(&dd);
    free(parent);
    return rc;
}

static int one_path(const kf_paths_walk_opts *o, const char *path)
{
    kf_path_entry e;
    entry_init(&e, path, kf_path_base(path));
    kf_classify_path(path, &e.kind);
    e.err_no = e.kind == KF_PATH_UNREADABLE ? kf_error_last()->err_no : 0;
    char why[4200];
    switch (e.kind) {
    case KF_PATH_UNREADABLE: return report(o, path, e.err_no, kf_path_why(path, e.err_no, why, sizeof why));
    case KF_PATH_SPECIAL: return report(o, path, 0, o->special_what);
    case KF_PATH_FILE:
        e.looks_like_log = o->sniff_logs && kf_looks_like_log(path);
        return call(o->file_fn, o->ctx, &e);
    case KF_PATH_PARTITION: return partition_path(o, &e);
    case KF_PATH_DATADIR: return datadir_path(o, &e);
    case KF_PATH_OTHER_DIR:
        if (o->empty_dir_is_datadir && dir_is_empty(path)) {
            e.kind = KF_PATH_DATADIR;
            return datadir_path(o, &e);
        }
        return o->other_dir_fn ? o->other_dir_fn(o->ctx, &e) : report(o, path, 0, o->other_dir_what);
    }
    return KF_OK;
}

int kf_paths_walk(char *const *paths, size_t n, const kf_paths_walk_opts *o)
{
    kf_paths_walk_opts own;
    if (paths_opts_take(&own, o) != KF_OK)
        return KF_ERR_UNSUPPORTED;
    o = &own;
    if (n > 1 && !o->mixed_clusters) {
        int rc = kf_paths_one_cluster(paths, n, o->error_fn, o->error_ctx);
        if (rc != KF_OK)
            return rc; /* refused whole: nothing walked */
    }
    int status = KF_OK;
    for (size_t i = 0; i < n && fold(&status, one_path(o, paths[i])); i++)
        ;
    return status;
}
