/* partition.c: the partitions and their copies under the PATHs
 * (include/kfsck/partition.h), made from the walk of paths.c, and a
 * partition's log end offset. The partition reader is partreader.c. */
#include "kfsck/partition.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes/grow.h"
#include "format/order.h"
#include "bytes/error.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"
#include "format/paths.h"
#include "kfsck/sys/segment.h"

/* ---- inputs --------------------------------------------------------------- */

static void *grow(void *p, size_t n, size_t size)
{
    return realloc(p, (n ? n : 1) * size);
}

/* One element more at the end of the array whose pointer is at parr (n
 * elements of size bytes, any element type): the array reallocated, the new
 * last element zeroed and returned, not yet counted (the caller counts it
 * once it is filled). NULL when out of memory, the array as it was. */
static void *append_zeroed(void *parr, size_t n, size_t size)
{
    void *arr;
    memcpy(&arr, parr, sizeof arr); /* the caller's pointer, whatever its type (as kf_grow_) */
    char *na = grow(arr, n + 1, size);
    if (!na)
        return NULL;
    memcpy(parr, &na, sizeof na);
    memset(na + n * size, 0, size);
    return na + n * size;
}

static kf_partition *part_for(kf_inputs *in, const char *topic, int32_t partition)
{
    /* a partition we cannot name (a loose file) is never a copy of another */
    for (size_t i = 0; i < in->n && partition >= 0; i++)
        if (in->parts[i].partition == partition && !strcmp(in->parts[i].topic, topic))
            return &in->parts[i];
    kf_partition *p = append_zeroed(&in->parts, in->n, sizeof *p);
    if (!p || !(p->topic = strdup(topic)))
        return NULL;
    p->partition = partition;
    in->n++;
    return p;
}

static kf_partition_copy *new_copy(kf_partition *p, const char *label)
{
    if (!p)
        return NULL;
    kf_partition_copy *c = append_zeroed(&p->copies, p->ncopies, sizeof *c);
    if (!c || !(c->label = strdup(label)))
        return NULL;
    p->ncopies++;
    return c;
}

static int add_segment(kf_partition_copy *c, const char *path, int64_t base)
{
    char **s = grow(c->segments, c->nseg + 1, sizeof *s);
    if (s)
        c->segments = s;
    int64_t *b = grow(c->bases, c->nseg + 1, sizeof *b);
    if (b)
        c->bases = b;
    if (!s || !b || !(c->segments[c->nseg] = strdup(path)))
        return kf_error_nomem();
    c->bases[c->nseg++] = base;
    return KF_OK;
}

static void partition_of_dir(const char *dir, char *topic, size_t cap, int32_t *partition)
{
    if (!kf_parse_partition_dir(kf_path_base(dir), topic, cap, partition)) {
        topic[0] = 0;
        *partition = -1;
    }
}

/* The segments of dir as a new copy of p. */
static int add_copy_dir(kf_partition *p, const char *dir, kf_path_error_fn fn, void *ctx)
{
    kf_name_list l;
    int err_no = 0;
    int rc = kf_error_errno(kf_list_dir(dir, &l), &err_no);
    if (rc != KF_OK) {
        if (fn && rc != KF_ERR_NOMEM)
            fn(ctx, dir, err_no, kf_path_error_str(err_no));
        return rc;
    }
    kf_partition_copy *c = new_copy(p, dir);
    rc = c ? KF_OK : KF_ERR_NOMEM;
    for (size_t i = 0; i < l.n && rc == KF_OK; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_LOG && ni.suffix[0] == 0) {
            char *path = kf_path_join(dir, l.names[i]);
            rc = path ? add_segment(c, path, ni.base_offset) : KF_ERR_NOMEM;
            free(path);
        }
    }
    kf_name_list_free(&l);
    return rc;
}

static int add_file(kf_inputs *in, const char *path)
{
    char *dir = kf_path_dir(path);
    if (!dir)
        return KF_ERR_NOMEM;
    char topic[256];
    int32_t partition;
    partition_of_dir(dir, topic, sizeof topic, &partition);
    free(dir);
    kf_name_info ni = kf_classify_name(kf_path_base(path));
    kf_partition_copy *c = new_copy(part_for(in, topic, partition), path);
    if (!c)
        return kf_error_nomem();
    return add_segment(c, path, ni.kind == KF_FILE_LOG ? ni.base_offset : -1);
}

static int cmp_parts(const void *a, const void *b)
{
    const kf_partition *x = a, *y = b;
    return kf_cmp_topic_partition(x->topic, x->partition, y->topic, y->partition);
}

/* ---- kf_inputs_collect: the walk's partitions and loose files as copies ---------- */

typedef struct collect {
    kf_inputs *in;
    kf_path_error_fn fn;
    void *ctx;
} collect;

static int collect_partition(void *ctx, const kf_path_entry *e)
{
    collect *c = ctx;
    if (e->kind != KF_PATH_PARTITION)
        return KF_OK; /* a data dir's <topic>-<n> entry holding partition dirs: not one */
    char topic[256];
    int32_t partition;
    partition_of_dir(e->path, topic, sizeof topic, &partition);
    kf_partition *p = part_for(c->in, topic, partition);
    return p ? add_copy_dir(p, e->path, c->fn, c->ctx) : KF_ERR_NOMEM;
}

/* A file PATH is read as a segment when its name says it is one (a .log,
 * with or without the broker's suffixes) or, whatever its name, its first
 * bytes frame as a record batch (a captured batch, a renamed copy). Any
 * other file (an index, a checkpoint, a note left beside the data) is not
 * a segment: reading it as one would report its bytes as damage. */
static int collect_file(void *ctx, const kf_path_entry *e)
{
    collect *c = ctx;
    bool segment = e->file.kind == KF_FILE_LOG || (e->file.kind == KF_FILE_UNKNOWN && kf_looks_like_log(e->path));
    if (!segment) {
        if (c->fn)
            c->fn(c->ctx, e->path, 0,
                  e->file.kind == KF_FILE_UNKNOWN ? "not a Kafka file kfsck knows (by its name); skipped"
                                                  : "not a segment (.log) file; skipped");
        return KF_OK;
    }
    return add_file(c->in, e->path);
}

int kf_inputs_collect(kf_inputs *in, char *const *paths, size_t n, kf_path_error_fn fn, void *ctx)
{
    memset(in, 0, sizeof *in);
    collect c = {in, fn, ctx};
    kf_paths_walk_opts o;
    kf_paths_walk_opts_on(&o, collect_file, collect_partition, NULL, &c, fn, ctx);
    o.descend = true;
    int status = kf_paths_walk(paths, n, &o); /* PATHs of different clusters: refused whole */
    if (in->n)
        qsort(in->parts, in->n, sizeof *in->parts, cmp_parts);
    return status;
}

void kf_partition_free(kf_partition *p)
{
    if (!p)
        return;
    for (size_t c = 0; c < p->ncopies; c++) {
        kf_strings_free(p->copies[c].segments, p->copies[c].nseg);
        free(p->copies[c].bases);
        free(p->copies[c].label);
    }
    free(p->copies);
    free(p->topic);
    memset(p, 0, sizeof *p);
}

void kf_inputs_free(kf_inputs *in)
{
    if (!in)
        return;
    for (size_t i = 0; i < in->n; i++)
        kf_partition_free(&in->parts[i]);
    free(in->parts);
    memset(in, 0, sizeof *in);
}

int kf_partition_of_dirs(kf_partition *p, const char *const *dirs, size_t n, kf_path_error_fn fn, void *ctx)
{
    /* each directory is added as a copy of the one partition at in.parts[0] */
    kf_inputs in;
    memset(&in, 0, sizeof in);
    memset(p, 0, sizeof *p);
    kf_partition *part = part_for(&in, "", -1);
    int rc = part ? KF_OK : KF_ERR_NOMEM;
    /* the cluster rule (paths.h), each directory by its parent, the data dir */
    kf_one_cluster cluster = {0};
    for (size_t i = 0; i < n && rc == KF_OK; i++) {
        char *parent = kf_path_dir(dirs[i]);
        kf_datadir_info dd;
        rc = parent ? kf_datadir_info_read(&dd, parent) : KF_ERR_NOMEM;
        if (rc == KF_OK)
            rc = kf_one_cluster_add(&cluster, parent, "its meta.properties names", dd.cluster_id, fn, ctx);
        if (parent)
            kf_datadir_info_free(&dd);
        free(parent);
    }
    kf_one_cluster_free(&cluster);
    for (size_t i = 0; i < n && rc == KF_OK; i++)
        rc = add_copy_dir(part, dirs[i], fn, ctx);
    if (part) {
        char topic[256];
        int32_t partition;
        if (n)
            partition_of_dir(dirs[0], topic, sizeof topic, &partition);
        if (n && partition >= 0) {
            char *t = strdup(topic);
            if (t) {
                free(part->topic);
                part->topic = t;
                part->partition = partition;
            }
        }
        *p = *part;
    }
    free(in.parts);
    return rc;
}

const kf_partition *kf_inputs_find(const kf_inputs *in, const char *topic, int32_t partition)
{
    for (size_t i = 0; i < in->n; i++)
        if (in->parts[i].partition == partition && !strcmp(in->parts[i].topic, topic))
            return &in->parts[i];
    return NULL;
}

bool kf_partition_log_end(const kf_partition *p, size_t max_batch_bytes, int64_t *leo)
{
    bool any = false;
    int64_t best = INT64_MIN;
    for (size_t c = 0; c < p->ncopies; c++) {
        const kf_partition_copy *cp = &p->copies[c];
        for (size_t s = cp->nseg; s-- > 0;) {
            kf_source *src;
            if (kf_source_open(&src, cp->segments[s], 0) != KF_OK)
                continue;
            kf_segment_scan_opts o;
            kf_segment_scan_opts_init(&o);
            o.max_batch_bytes = max_batch_bytes;
            kf_segment_iter *it;
            int64_t last = INT64_MIN;
            if (kf_segment_iter_open(&it, src, &o) == KF_OK) {
                kf_batch b;
                while (kf_segment_iter_next(it, &b, NULL) == 1)
                    if (b.last_offset > last)
                        last = b.last_offset;
                kf_segment_iter_close(it);
            }
            kf_source_close(src);
            any = true;
            int64_t e = last != INT64_MIN ? last + 1 : cp->bases[s];
            if (e > best)
                best = e;
            if (last != INT64_MIN || s == cp->nseg - 1)
                break; /* a log with no batch: its last segment's base */
        }
    }
    if (any)
        *leo = best;
    return any;
}
