/* outdir.c: the output-directory policy of repair and merge (outdir.h):
 * where a run's files go, what it refuses to write over, the stage the run
 * writes into and its move into place, and the stale files of an earlier
 * run that a forced run removes. */
#include "jobs/rebuild/outdir_internal.h"
#include "kfsck/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytes/grow.h"
#include "bytes/error.h"
#include "kfsck/sys/codec.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/names.h"
#include "format/out_file.h"

/* The last component of path without trailing slashes, malloc'd. */
static char *last_component(const char *path)
{
    const char *b = kf_path_base(path);
    size_t n = strlen(b);
    while (n > 1 && b[n - 1] == '/')
        n--;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, b, n);
        s[n] = 0;
    }
    return s;
}

int kf_outdir_init(kf_outdir *od, const char *dir, const char *input, bool partition, const char *report_name,
                   bool force)
{
    memset(od, 0, sizeof *od);
    od->partition = partition;
    od->force = force;
    od->dir = strdup(dir);
    od->name = last_component(input);
    od->report = kf_path_join(dir, report_name);
    if (od->name)
        od->target = partition ? kf_path_join(dir, od->name) : strdup(dir);
    return od->dir && od->name && od->report && od->target ? KF_OK : KF_ERR_NOMEM;
}

/* How deep a stage goes: stage/.kfsck-old/<copy>/<file>. */
#define STAGE_DEPTH 3
#define OLD_DIR ".kfsck-old"

/* rm -r path, at most depth levels of directories down; symbolic links are
 * removed, never followed. */
static void remove_tree(const char *path, int depth)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    kf_name_list l;
    if (depth > 0 && kf_list_dir(path, &l) == KF_OK) {
        for (size_t i = 0; i < l.n; i++) {
            char *p = kf_path_join(path, l.names[i]);
            if (p)
                remove_tree(p, depth - 1);
            free(p);
        }
        kf_name_list_free(&l);
    }
    rmdir(path);
}

/* A run that did not commit: the directories made for OUTDIR go again
 * (from OUTDIR up to the topmost one made; rmdir keeps any not empty). */
static void remove_created(kf_outdir *od)
{
    char *p = od->created ? strdup(od->dir) : NULL;
    for (int depth = 0; p && depth < 64; depth++) {
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = 0;
        bool top = !strcmp(p, od->created);
        if (rmdir(p) != 0 || top)
            break;
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            break;
        *slash = 0;
    }
    free(p);
}

void kf_outdir_free(kf_outdir *od)
{
    if (!od)
        return;
    if (od->stage_root && !od->committed && !od->keep_stage)
        remove_tree(od->stage_root, STAGE_DEPTH);
    if (od->stage_root && !od->committed)
        remove_created(od);
    free(od->dir);
    free(od->name);
    free(od->target);
    free(od->report);
    free(od->clash);
    free(od->created);
    free(od->stage_root);
    free(od->stage);
    if (od->locked)
        close(od->lock_fd); /* the lock goes with it */
    for (size_t i = 0; i < od->nwritten; i++)
        free(od->written[i]);
    free(od->written);
    memset(od, 0, sizeof *od);
}

bool kf_outdir_named_after(const kf_outdir *od, const char *input)
{
    char *n = last_component(input);
    bool same = n && !strcmp(n, od->name);
    free(n);
    return same;
}

/* OUTDIR is input_dir or inside it, or the copy is inside it or holds it. */
static bool inside(const kf_outdir *od, const char *input_dir)
{
    return kf_path_within(od->dir, input_dir) ||
           (od->partition && (kf_path_within(od->target, input_dir) || kf_path_within(input_dir, od->target)));
}

static bool exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* Take p as the clash when it exists (p is freed otherwise). */
static bool clash_at(kf_outdir *od, char *p)
{
    if (p && exists(p)) {
        od->clash = p;
        return true;
    }
    free(p);
    return false;
}

/* Without force: the first output of an earlier run in the way, in od->clash
 * (KF_OUTDIR_EXISTS), else KF_OUTDIR_READY; -1 when out of memory. */
static int find_clash(kf_outdir *od)
{
    if (clash_at(od, strdup(od->report)))
        return KF_OUTDIR_EXISTS;
    if (od->partition) {
        kf_name_list l;
        bool in_way;
        if (kf_list_dir(od->target, &l) == KF_OK) {
            in_way = l.n > 0;
            kf_name_list_free(&l);
        } else {
            in_way = exists(od->target);
        }
        if (in_way && !(od->clash = strdup(od->target)))
            return -1;
        return in_way ? KF_OUTDIR_EXISTS : KF_OUTDIR_READY;
    }
    /* a segment: itself and the index files the writer puts beside it */
    if (clash_at(od, kf_path_join(od->dir, od->name)))
        return KF_OUTDIR_EXISTS;
    static const char *const exts[] = {".index", ".timeindex", ".txnindex"};
    kf_name_info ni = kf_classify_name(od->name);
    for (size_t i = 0; i < sizeof exts / sizeof *exts && ni.base_offset >= 0; i++) {
        char nm[64];
        snprintf(nm, sizeof nm, "%020lld%s", (long long)ni.base_offset, exts[i]);
        if (clash_at(od, kf_path_join(od->dir, nm)))
            return KF_OUTDIR_EXISTS;
    }
    return KF_OUTDIR_READY;
}

/* Is OUTDIR a broker's data dir? KF_OUTDIR_IS_DATADIR (od->clash names what
 * says so), else KF_OUTDIR_READY; -1 when out of memory. */
static int find_datadir(kf_outdir *od)
{
    static const char *const marks[] = {"meta.properties",          "recovery-point-offset-checkpoint",
                                        "replication-offset-checkpoint", "log-start-offset-checkpoint",
                                        "cleaner-offset-checkpoint", ".lock", "__cluster_metadata-0"};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (clash_at(od, kf_path_join(od->dir, marks[i])))
            return KF_OUTDIR_IS_DATADIR;
    kf_name_list l;
    if (kf_list_dir(od->dir, &l) != KF_OK)
        return KF_OUTDIR_READY; /* missing, or said when it is created */
    bool report = false;
    const char *part = NULL;
    for (size_t i = 0; i < l.n; i++) {
        char topic[256];
        int32_t p;
        kf_path_kind kind;
        report |= !strcmp(l.names[i], "repair.json") || !strcmp(l.names[i], "merge.json");
        /* (a stage of ours, .<name>.kfsck-tmp-<pid>, is no partition dir) */
        if (!part && strcmp(l.names[i], od->name) != 0 && !strstr(l.names[i], ".kfsck-tmp-") &&
            kf_parse_partition_dir(l.names[i], topic, sizeof topic, &p) &&
            kf_classify_path(od->dir, &kind) == KF_OK && kind == KF_PATH_DATADIR)
            part = l.names[i];
    }
    int v = KF_OUTDIR_READY;
    if (part && !report) /* partition dirs that no earlier run of ours wrote */
        v = (od->clash = kf_path_join(od->dir, part)) ? KF_OUTDIR_IS_DATADIR : -1;
    kf_name_list_free(&l);
    return v;
}

/* Lock OUTDIR (it exists): KF_OK with *verdict KF_OUTDIR_READY, or
 * KF_OUTDIR_BUSY when another run holds the lock (the last error says so);
 * KF_ERR_IO when it cannot be opened or locked. */
static int lock_outdir(kf_outdir *od, kf_outdir_verdict *verdict)
{
    *verdict = KF_OUTDIR_READY;
    if (od->locked)
        return KF_OK;
    int fd = open(od->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return kf_error_set(KF_ERR_IO, errno, od->dir, "cannot open: %s", strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e != EWOULDBLOCK)
            return kf_error_set(KF_ERR_IO, e, od->dir, "cannot lock: %s", strerror(e));
        kf_error_set(KF_ERR_IO, e, od->dir, "another kfsck repair or merge is writing into it");
        *verdict = KF_OUTDIR_BUSY;
        return KF_OK;
    }
    od->lock_fd = fd;
    od->locked = true;
    return KF_OK;
}

int kf_outdir_prepare(kf_outdir *od, const char *const *inputs, size_t n, kf_outdir_verdict *verdict)
{
    *verdict = KF_OUTDIR_READY;
    for (size_t i = 0; i < n; i++) {
        char *area = od->partition ? strdup(inputs[i]) : kf_path_dir(inputs[i]);
        if (!area)
            return kf_error_nomem();
        bool in = inside(od, area);
        free(area);
        if (in) {
            *verdict = KF_OUTDIR_INSIDE_INPUT;
            return KF_OK;
        }
    }
    /* an OUTDIR there already is locked before what it holds is looked at */
    if (exists(od->dir)) {
        int rc = lock_outdir(od, verdict);
        if (rc != KF_OK || *verdict != KF_OUTDIR_READY)
            return rc;
    }
    int dv = find_datadir(od);
    if (dv < 0)
        return kf_error_nomem();
    if (dv != KF_OUTDIR_READY) {
        *verdict = (kf_outdir_verdict)dv;
        return KF_OK;
    }
    if (!od->force) {
        int v = find_clash(od);
        if (v < 0)
            return kf_error_nomem();
        if (v != KF_OUTDIR_READY) {
            *verdict = (kf_outdir_verdict)v;
            return KF_OK;
        }
    }
    /* the topmost missing directory, removed again when the run does not commit */
    char *missing = NULL;
    for (char *p = strdup(od->dir); p;) {
        size_t len = strlen(p);
        while (len > 1 && p[len - 1] == '/')
            p[--len] = 0;
        if (exists(p) || !strcmp(p, ".") || !strcmp(p, "/")) {
            free(p);
            break;
        }
        free(missing);
        missing = strdup(p);
        char *slash = strrchr(p, '/');
        if (!slash || slash == p) {
            free(p);
            break;
        }
        *slash = 0;
    }
    free(od->created);
    od->created = missing;
    int rc = kf_mkdirs(od->dir); /* KF_ERR_IO or KF_ERR_NOMEM: the last error says why */
    return rc != KF_OK ? rc : lock_outdir(od, verdict);
}

static void add_name(kf_outdir *od, const char *b, size_t n, const char *ext)
{
    if (!KF_GROW(od->written, od->nwritten, od->cap_written, 32)) {
        od->written_incomplete = true;
        return;
    }
    size_t e = ext ? strlen(ext) : 0;
    char *c = malloc(n + e + 1);
    if (!c) {
        od->written_incomplete = true;
        return;
    }
    memcpy(c, b, n);
    memcpy(c + n, ext ? ext : "", e);
    c[n + e] = 0;
    od->written[od->nwritten++] = c;
}

static const char *base_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

void kf_outdir_wrote(kf_outdir *od, const char *path)
{
    if (path)
        add_name(od, base_of(path), strlen(base_of(path)), NULL);
}

void kf_outdir_wrote_segment(kf_outdir *od, const char *log_path)
{
    if (!log_path)
        return;
    kf_outdir_wrote(od, log_path);
    const char *b = base_of(log_path);
    size_t n = strlen(b);
    if (n > 4 && !strcmp(b + n - 4, ".log")) {
        add_name(od, b, n - 4, ".index");
        add_name(od, b, n - 4, ".timeindex");
    }
}

bool kf_outdir_has_written(const kf_outdir *od, const char *name)
{
    for (size_t i = 0; i < od->nwritten; i++)
        if (!strcmp(od->written[i], name))
            return true;
    return false;
}

uint64_t kf_outdir_remove_stale(kf_outdir *od)
{
    kf_name_list l;
    if (!od->force || !od->partition || od->written_incomplete || kf_list_dir(od->target, &l) != KF_OK)
        return 0;
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_UNKNOWN || kf_outdir_has_written(od, l.names[i]))
            continue;
        char *p = kf_path_join(od->target, l.names[i]);
        if (p && unlink(p) == 0)
            od->stale_removed++;
        free(p);
    }
    kf_name_list_free(&l);
    return od->stale_removed;
}

int kf_outdir_finish(kf_outdir *od)
{
    if (od->written_incomplete)
        return kf_error_nomem();
    if (!od->stage_root) /* staged: kf_outdir_commit removes them */
        kf_outdir_remove_stale(od);
    return KF_OK;
}

int kf_outdir_write_report(const kf_outdir *od, const void *doc, size_t len)
{
    return kf_out_write_file(od->stage_root ? od->stage_root : od->dir, kf_path_base(od->report), doc, len, true);
}

/* Set the last error (common.h) for a failure at path: KF_ERR_IO, or
 * KF_ERR_NOMEM. */
static int od_fail(const kf_outdir *od, const char *path, int err_no, const char *what)
{
    return kf_error_set(err_no == ENOMEM ? KF_ERR_NOMEM : KF_ERR_IO, err_no, path ? path : od->dir, "%s", what);
}

int kf_outdir_stage(kf_outdir *od)
{
    struct stat st;
    /* a copy directory is written into, never a file or link in its place */
    if (od->partition && lstat(od->target, &st) == 0 && !S_ISDIR(st.st_mode))
        return od_fail(od, od->target, ENOTDIR, "cannot create directory");
    for (unsigned n = 0; !od->stage_root; n++) {
        char nm[600];
        if (n == 0)
            snprintf(nm, sizeof nm, ".%.500s.kfsck-tmp-%ld", od->name, (long)getpid());
        else
            snprintf(nm, sizeof nm, ".%.500s.kfsck-tmp-%ld-%u", od->name, (long)getpid(), n);
        char *p = kf_path_join(od->dir, nm);
        if (!p)
            return od_fail(od, od->target, ENOMEM, "out of memory");
        if (mkdir(p, 0755) == 0) {
            od->stage_root = p;
            break;
        }
        int e = errno;
        free(p);
        if (e != EEXIST || n >= 100)
            return od_fail(od, od->target, e, "cannot create directory");
    }
    od->stage = od->partition ? kf_path_join(od->stage_root, od->name) : strdup(od->stage_root);
    return od->stage ? KF_OK : od_fail(od, od->target, ENOMEM, "out of memory");
}

/* One name of the stage on its way into OUTDIR. */
typedef struct commit_step {
    const char *name;
    bool saved;               /* OUTDIR/name was moved to stage/.kfsck-old/name */
    bool moved;               /* stage/name is now OUTDIR/name */
    kf_name_list kept;        /* entries of an earlier copy directory moved into the new one */
} commit_step;

static int move(const char *from_dir, const char *to_dir, const char *name)
{
    char *a = kf_path_join(from_dir, name), *b = kf_path_join(to_dir, name);
    int rc = a && b ? rename(a, b) : (errno = ENOMEM, -1);
    free(a);
    free(b);
    return rc;
}

/* The earlier copy directory old_dir is replaced by new_dir: what stays
 * (names that are not Kafka files, and directories) moves into new_dir, in
 * step->kept; the Kafka files this run did not write are counted in *stale
 * (they go with old_dir). 0, or -1 with errno (what moved is moved back). */
static int keep_from_old(kf_outdir *od, const char *old_dir, const char *new_dir, commit_step *step,
                         uint64_t *stale)
{
    kf_name_list *l = &step->kept;
    int err_no = 0;
    if (kf_error_errno(kf_list_dir(old_dir, l), &err_no) != KF_OK) {
        errno = err_no ? err_no : ENOMEM;
        return -1;
    }
    size_t nk = 0;
    for (size_t i = 0; i < l->n; i++) {
        char *p = kf_path_join(old_dir, l->names[i]);
        struct stat st;
        bool is_dir = p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
        free(p);
        if (kf_classify_name(l->names[i]).kind != KF_FILE_UNKNOWN && !is_dir) {
            *stale += !kf_outdir_has_written(od, l->names[i]);
            free(l->names[i]);
        } else {
            l->names[nk++] = l->names[i];
        }
    }
    l->n = nk;
    for (size_t i = 0; i < l->n; i++) {
        bool clash = kf_outdir_has_written(od, l->names[i]);
        if (clash || move(old_dir, new_dir, l->names[i]) != 0) {
            int e = clash ? EEXIST : errno;
            for (size_t k = i; k-- > 0;)
                if (move(new_dir, old_dir, l->names[k]) != 0)
                    od->keep_stage = true;
            kf_name_list_free(l);
            errno = e;
            return -1;
        }
    }
    return 0;
}

/* Put OUTDIR back as it was before steps [0, n) (a failed commit). */
static void undo(kf_outdir *od, commit_step *steps, size_t n, const char *old_root)
{
    for (size_t i = n; i-- > 0;) {
        commit_step *s = &steps[i];
        if (s->moved && move(od->dir, od->stage_root, s->name) != 0)
            od->keep_stage = true;
        if (s->saved && move(old_root, od->dir, s->name) != 0)
            od->keep_stage = true;
        char *old_dir = kf_path_join(od->dir, s->name), *new_dir = kf_path_join(od->stage_root, s->name);
        for (size_t k = s->kept.n; k-- > 0;)
            if (!old_dir || !new_dir || move(new_dir, old_dir, s->kept.names[k]) != 0)
                od->keep_stage = true;
        free(old_dir);
        free(new_dir);
    }
}

/* Where name goes in the commit: indexes and the copy directory first, the
 * .log files after them, the report last. */
static int commit_rank(const kf_outdir *od, const char *name)
{
    size_t n = strlen(name);
    if (!strcmp(name, kf_path_base(od->report)))
        return 2;
    return n > 4 && !strcmp(name + n - 4, ".log") ? 1 : 0;
}

/* Move stage/name into OUTDIR (step), moving an earlier output aside into
 * old_root. KF_OK, or the failure (od_fail). */
static int commit_one(kf_outdir *od, commit_step *step, const char *old_root, uint64_t *stale)
{
    char *dst = kf_path_join(od->dir, step->name), *src = kf_path_join(od->stage_root, step->name);
    struct stat st;
    int rc = KF_OK;
    if (!dst || !src) {
        rc = od_fail(od, od->target, ENOMEM, "out of memory");
    } else if (lstat(dst, &st) == 0) {
        bool copy = od->partition && !strcmp(step->name, od->name);
        kf_name_list l;
        bool empty = copy && S_ISDIR(st.st_mode) && kf_list_dir(dst, &l) == KF_OK && l.n == 0;
        if (copy && S_ISDIR(st.st_mode) && !empty)
            kf_name_list_free(&l);
        if (!od->force && !empty)
            rc = od_fail(od, dst, EEXIST, "already exists (use --force to overwrite)");
        else if (copy && !S_ISDIR(st.st_mode))
            rc = od_fail(od, dst, ENOTDIR, "cannot create directory");
        else if (!copy && S_ISDIR(st.st_mode))
            rc = od_fail(od, dst, EISDIR, "cannot write");
        else if (copy && keep_from_old(od, dst, src, step, stale) != 0)
            rc = od_fail(od, dst, errno, "cannot move the files of the earlier output into the new one");
        else if ((mkdir(old_root, 0755) != 0 && errno != EEXIST) || move(od->dir, old_root, step->name) != 0)
            rc = od_fail(od, dst, errno, "cannot move the earlier output aside");
        else
            step->saved = true;
    }
    if (rc == KF_OK && rename(src, dst) != 0)
        rc = od_fail(od, dst, errno, "cannot move the output into place");
    step->moved = rc == KF_OK;
    free(dst);
    free(src);
    return rc;
}

int kf_outdir_commit(kf_outdir *od)
{
    if (!od->stage_root || od->committed)
        return KF_OK;
    if (od->written_incomplete)
        return od_fail(od, od->target, ENOMEM, "out of memory");
    const char *lib = kf_codec_load_error();
    if (lib) /* some batches of this run could not be read: nothing moves into place */
        return kf_error_set(KF_ERR_UNSUPPORTED, 0, od->target, "not written: %s", lib);
    kf_name_list l;
    int err_no = 0;
    int lrc = kf_error_errno(kf_list_dir(od->stage_root, &l), &err_no);
    if (lrc != KF_OK)
        return od_fail(od, od->stage_root, lrc == KF_ERR_NOMEM ? ENOMEM : err_no, "cannot list directory");
    commit_step *steps = calloc(l.n ? l.n : 1, sizeof *steps);
    char *old_root = kf_path_join(od->stage_root, OLD_DIR);
    int rc = steps && old_root ? KF_OK : od_fail(od, od->target, ENOMEM, "out of memory");
    size_t n = 0;
    uint64_t stale = 0;
    for (int rank = 0; rank < 3 && rc == KF_OK; rank++)
        for (size_t i = 0; i < l.n && rc == KF_OK; i++) {
            if (commit_rank(od, l.names[i]) != rank)
                continue;
            steps[n].name = l.names[i];
            rc = commit_one(od, &steps[n++], old_root, &stale);
        }
    if (rc == KF_OK && kf_fsync_dir(od->dir) != 0)
        rc = od_fail(od, od->dir, errno, "cannot write");
    if (rc != KF_OK && steps)
        undo(od, steps, n, old_root);
    for (size_t i = 0; steps && i < n; i++)
        kf_name_list_free(&steps[i].kept);
    if (rc == KF_OK) {
        od->committed = true;
        od->stale_removed = stale;
        remove_tree(od->stage_root, STAGE_DEPTH);
    }
    free(steps);
    free(old_root);
    kf_name_list_free(&l);
    return rc;
}
