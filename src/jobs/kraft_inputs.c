/* kraft_inputs.c: the KRaft metadata files under a set of PATHs
 * (metadata.h, kf_kraft_inputs): the copies of __cluster_metadata-0 (a
 * partition directory named so, or one holding KRaft snapshots or a
 * quorum-state; the one in a data dir), their .log segments as one log for
 * the partition reader, their snapshots and quorum-state files, loose
 * .log / .checkpoint / bootstrap.checkpoint / quorum-state files named on
 * the command line, and the data dirs' meta.properties. */
#include "kfsck/metadata.h"

#include <stdlib.h>
#include <string.h>

#include "format/partition_internal.h"
#include "jobs/kraft_files.h"
#include "kfsck/dirs.h"
#include "kfsck/file.h"
#include "kfsck/names.h"

/* ---- inputs ------------------------------------------------------------------------ */

static int strv_add(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return KF_ERR_NOMEM;
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return KF_ERR_NOMEM;
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
        return KF_ERR_NOMEM;
    ki->snapshots = nv;
    if (!(f.path = strdup(path)))
        return KF_ERR_NOMEM;
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

/* A partition directory: taken when it is named __cluster_metadata-N or holds
 * KRaft snapshots or a quorum-state. Adds its snapshots and quorum-state. A
 * directory that cannot be listed (it could a moment before, when it was
 * classified) is reported through fn: KF_ERR_IO. */
static int meta_dir(kf_kraft_inputs *ki, const char *dir, char ***logp, size_t *nlog, bool *taken,
                    kf_path_error_fn fn, void *ctx)
{
    *taken = false;
    kf_name_list l;
    int err_no = 0;
    int rc = kf_list_dir(dir, &l, &err_no);
    if (rc != KF_OK)
        return rc == KF_ERR_NOMEM ? rc : kf_path_unusable(dir, KF_PATH_ERROR, err_no, fn, ctx);
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
            rc = strv_add(logp, nlog, dir);
    }
    return rc;
}

static int meta_properties_of(kf_kraft_inputs *ki, const char *datadir)
{
    char *p = kf_path_join(datadir, "meta.properties");
    if (!p)
        return KF_ERR_NOMEM;
    int err_no, rc = KF_OK;
    if (kf_classify_path(p, &err_no) == KF_PATH_FILE)
        rc = strv_add(&ki->meta_properties, &ki->nmeta, p);
    free(p);
    return rc;
}

int kf_kraft_inputs_collect(kf_kraft_inputs *ki, char *const *paths, size_t n, kf_path_error_fn fn, void *ctx)
{
    memset(ki, 0, sizeof *ki);
    char **logp = NULL;
    size_t nlog = 0;
    int status = KF_OK;
    for (size_t i = 0; i < n && status != KF_ERR_NOMEM; i++) {
        const char *p = paths[i];
        int err_no = 0, rc = KF_OK;
        bool taken;
        kf_path_kind kind = kf_classify_path(p, &err_no);
        switch (kind) {
        case KF_PATH_ERROR:
        case KF_PATH_SPECIAL:
            rc = kf_path_unusable(p, kind, err_no, fn, ctx);
            break;
        case KF_PATH_FILE: {
            kf_name_info ni = kf_classify_name(kf_path_base(p));
            if (ni.kind == KF_FILE_KRAFT_CHECKPOINT || ni.kind == KF_FILE_BOOTSTRAP_CHECKPOINT)
                rc = snapshot_add(ki, p, true);
            else if (ni.kind == KF_FILE_QUORUM_STATE)
                rc = strv_add(&ki->quorum_states, &ki->nquorum, p);
            else if (ni.kind == KF_FILE_META_PROPERTIES)
                rc = strv_add(&ki->meta_properties, &ki->nmeta, p);
            else if (ni.kind == KF_FILE_LOG || kf_looks_like_log(p))
                rc = strv_add(&logp, &nlog, p);
            else if (fn) {
                fn(ctx, p, 0, "not a file of a KRaft metadata partition");
                rc = KF_ERR_IO;
            }
            break;
        }
        case KF_PATH_PARTITION: {
            rc = meta_dir(ki, p, &logp, &nlog, &taken, fn, ctx);
            if (rc == KF_OK && taken) {
                char *parent = kf_path_dir(p);
                if (!parent)
                    rc = KF_ERR_NOMEM;
                else
                    rc = meta_properties_of(ki, parent);
                free(parent);
            }
            break;
        }
        case KF_PATH_DATADIR: {
            kf_name_list l;
            if ((rc = kf_list_dir(p, &l, &err_no)) != KF_OK) {
                if (fn && rc != KF_ERR_NOMEM)
                    fn(ctx, p, err_no, kf_path_error_str(err_no));
                break;
            }
            bool any = false;
            for (size_t k = 0; k < l.n && rc != KF_ERR_NOMEM; k++) {
                if (!is_metadata_dir_name(l.names[k]))
                    continue;
                char *sub = kf_path_join(p, l.names[k]);
                if (!sub) {
                    rc = KF_ERR_NOMEM;
                    break;
                }
                int e2 = 0, r2 = KF_OK;
                kf_path_kind sk = kf_classify_path(sub, &e2);
                if (sk == KF_PATH_PARTITION)
                    r2 = meta_dir(ki, sub, &logp, &nlog, &taken, fn, ctx), any |= taken;
                else if (sk == KF_PATH_ERROR) /* a metadata dir that cannot be read is not silently skipped */
                    r2 = kf_path_unusable(sub, sk, e2, fn, ctx);
                if (r2 != KF_OK)
                    rc = r2;
                free(sub);
            }
            kf_name_list_free(&l);
            if (rc != KF_ERR_NOMEM && any) {
                int r3 = meta_properties_of(ki, p);
                if (r3 != KF_OK)
                    rc = r3;
            }
            break;
        }
        case KF_PATH_OTHER_DIR:
            if (fn)
                fn(ctx, p, 0, "neither a partition directory nor a broker data directory");
            rc = KF_ERR_IO;
            break;
        }
        if (rc != KF_OK && status != KF_ERR_NOMEM)
            status = rc;
    }
    if (status != KF_ERR_NOMEM) {
        int rc = kf_inputs_collect(&ki->all, logp, nlog, fn, ctx);
        if (rc != KF_OK && status == KF_OK)
            status = rc;
    }
    for (size_t i = 0; i < nlog; i++)
        free(logp[i]);
    free(logp);
    /* every copy found is a copy of the metadata log */
    size_t total = 0;
    for (size_t i = 0; i < ki->all.n; i++)
        total += ki->all.parts[i].ncopies;
    ki->log.topic = (char *)"__cluster_metadata";
    ki->log.partition = 0;
    ki->log.copies = calloc(total ? total : 1, sizeof *ki->log.copies);
    if (!ki->log.copies)
        return KF_ERR_NOMEM;
    for (size_t i = 0; i < ki->all.n; i++)
        for (size_t c = 0; c < ki->all.parts[i].ncopies; c++)
            ki->log.copies[ki->log.ncopies++] = ki->all.parts[i].copies[c];
    return status;
}

void kf_kraft_inputs_free(kf_kraft_inputs *ki)
{
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
