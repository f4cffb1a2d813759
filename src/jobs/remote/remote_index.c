/* remote_index.c: each log dir's remote-log-index-cache, the broker's copies
 * of remote segments' indexes (docs/formats.md §22.7). The broker loads it
 * at start-up (RemoteIndexCache.init): every name is parsed for its segment
 * id, and a <start offset>_<segment id> with its .index, .timeindex and
 * .txnindex present is opened and sanity-checked, any failure (a name that
 * does not parse, a check that throws) failing the start-up; an entry
 * missing a file is deleted. Here each entry gets the checks verify makes
 * of a local index (kf_offset_index_check, kf_time_index_check,
 * kf_txn_index_check), the broker's own sanity check (kf_index_sanity,
 * kf_txn_index_sanity), and, when the replay covered every metadata
 * partition, whether its segment is still live. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bytes/error.h"
#include "jobs/remote/remote_internal.h"
#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"
#include "format/paths.h"
#include "format/source.h"

#define CACHE_DIR "remote-log-index-cache"

typedef struct checker {
    const rm_state *st;
    bool judge_live;
    const kf_remote_opts *o;
    kf_remote_index_fn fn;
    void *ctx;
    kf_remote_totals *tot;
    int rc;
    char **seen;              /* cache dirs already checked */
    size_t nseen;
} checker;

/* ---- names (RemoteIndexCache.remoteLogSegmentIdFromRemoteIndexFileName) ---- */

/* The segment id between the first '_' and the first '.', as Uuid.fromString
 * takes it (22 characters, or 24 ending "=="). */
static bool name_uuid(const char *name, uint8_t id[16])
{
    const char *u = strchr(name, '_'), *d = strchr(name, '.');
    const char *from = u ? u + 1 : name;
    if (!d || d < from)
        return false;
    size_t n = (size_t)(d - from);
    if (n == 24 && from[22] == '=' && from[23] == '=')
        n = 22;
    return n == 22 && kf_uuid_from_b64(from, 22, id) == KF_OK;
}

/* Long.parseLong of what comes before the first '_'. */
static bool name_offset(const char *name, int64_t *v)
{
    const char *u = strchr(name, '_');
    if (!u || u == name)
        return false;
    const char *p = name;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    if (p == u)
        return false;
    uint64_t x = 0;
    for (; p < u; p++) {
        if (*p < '0' || *p > '9' || x > (UINT64_MAX - 9) / 10)
            return false;
        x = x * 10 + (uint64_t)(*p - '0');
    }
    if (x > (uint64_t)INT64_MAX + (neg ? 1 : 0))
        return false;
    *v = neg ? (int64_t)(0 - x) : (int64_t)x;
    return true;
}

/* ---- reporting ---------------------------------------------------------------- */

static void emit(checker *c, const char *file, const uint8_t *id, int64_t start, const char *code, const char *error,
                 bool stops)
{
    kf_remote_index e = {.file = file, .has_segment_id = id != NULL, .start_offset = start, .code = code,
                         .error = error, .stops_broker = stops};
    if (id)
        memcpy(e.segment_id, id, 16);
    c->tot->index_bad++;
    if (c->fn && c->rc == KF_OK)
        c->rc = c->fn(c->ctx, &e);
}

/* The first problem verify's checks report of one file, and how many more. */
typedef struct first_problem {
    char code[40];
    char msg[240];
    uint64_t n;
} first_problem;

static void take_problem(void *ctx, const kf_problem *p)
{
    first_problem *f = ctx;
    if (!f->n++) {
        snprintf(f->code, sizeof f->code, "%s", p->code);
        snprintf(f->msg, sizeof f->msg, "%s", p->message);
    }
}

/* A file of an entry that could not be read (rc not KF_OK): reported, or
 * the run stopped when out of memory. */
static void unreadable(checker *c, int rc, const char *path, const uint8_t *id, int64_t base)
{
    if (rc == KF_ERR_NOMEM)
        c->rc = rc;
    else
        emit(c, path, id, base, KF_P_UNREADABLE, kf_error_last()->message, false);
}

/* One index file of a complete entry: verify's checks and the broker's. */
static void check_file(checker *c, const char *path, int kind, const uint8_t *id, int64_t base)
{
    first_problem fp = {0};
    char why[240] = "";
    bool sane = true;
    kf_index ix; /* read in pieces, whatever its size */
    int es = kind == KF_FILE_INDEX ? 8 : kind == KF_FILE_TIMEINDEX ? 12 : KF_TXN_ENTRY_SIZE;
    int rc = kf_index_open_path(&ix, path, es, base);
    if (rc != KF_OK) {
        unreadable(c, rc, path, id, base);
        return;
    }
    if (kind == KF_FILE_TXNINDEX) {
        kf_txn_index_check(&ix, take_problem, &fp);
        sane = kf_txn_index_sanity(&ix, why, sizeof why);
    } else {
        if (kind == KF_FILE_INDEX)
            kf_offset_index_check(&ix, UINT64_MAX, take_problem, &fp);
        else
            kf_time_index_check(&ix, take_problem, &fp);
        sane = kf_index_sanity(&ix, why, sizeof why);
    }
    rc = kf_index_read_status(&ix);
    kf_index_close(&ix);
    if (rc != KF_OK) {
        unreadable(c, rc, path, id, base);
        return;
    }
    if (!fp.n && sane)
        return;
    char msg[600];
    if (!fp.n) /* only the broker's check fails */
        snprintf(msg, sizeof msg, "%s (the broker's sanity check throws: it does not start)", why);
    else if (!sane)
        snprintf(msg, sizeof msg, "%s%s; the broker's sanity check throws (%s): it does not start", fp.msg,
                 fp.n > 1 ? " (and more)" : "", why);
    else
        snprintf(msg, sizeof msg, "%s%s; the broker loads it and its lookups go wrong", fp.msg,
                 fp.n > 1 ? " (and more)" : "");
    emit(c, path, id, base, fp.n ? fp.code : KF_P_INDEX_CORRUPT, msg, !sane);
}

/* Whether a segment id is live in some partition, and its start offset. */
static bool live_segment(const rm_state *st, const uint8_t id[16], int64_t *start)
{
    for (uint32_t p = 0; p < st->nparts; p++) {
        uint32_t s = rm_seg_find(st, p, id);
        if (s != RM_NONE) {
            *start = st->segs[s].start;
            return true;
        }
    }
    return false;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static bool has_name(char **names, size_t n, const char *name)
{
    return bsearch(&name, names, n, sizeof *names, cmp_name) != NULL;
}

/* Whether the name is one of an entry's three files. */
static int index_kind(const char *name)
{
    const char *d = strchr(name, '.');
    if (!d)
        return 0;
    if (!strcmp(d, ".index"))
        return KF_FILE_INDEX;
    if (!strcmp(d, ".timeindex"))
        return KF_FILE_TIMEINDEX;
    if (!strcmp(d, ".txnindex"))
        return KF_FILE_TXNINDEX;
    return 0;
}

/* The entry of the cache dir's file name (path: dir/name; names: the dir's
 * files, sorted), judged once, by the first of its files. */
static void judge_entry(checker *c, const char *dir, const char *path, char **names, size_t n, const char *name)
{
    uint8_t id[16];
    if (!name_uuid(name, id)) {
        emit(c, path, NULL, -1, "bad_name",
             "no segment id between its first '_' and first '.': the broker's index cache throws at start-up "
             "(RemoteIndexCache.init): it does not start",
             true);
        return;
    }
    int kind = index_kind(name);
    size_t stem = (size_t)(strchr(name, '.') - name);
    static const char *const sfx[] = {".index", ".timeindex", ".txnindex"};
    static const int kinds[] = {KF_FILE_INDEX, KF_FILE_TIMEINDEX, KF_FILE_TXNINDEX};
    char sib[3][512];
    bool all = stem + 11 < sizeof sib[0];
    for (int i = 0; i < 3 && all; i++) {
        snprintf(sib[i], sizeof sib[i], "%.*s%s", (int)stem, name, sfx[i]);
        all = has_name(names, n, sib[i]);
    }
    /* the first of the entry's present files speaks for it (once) */
    const char *first = NULL;
    for (int i = 0; i < 3 && stem + 11 < sizeof sib[0]; i++) {
        snprintf(sib[i], sizeof sib[i], "%.*s%s", (int)stem, name, sfx[i]);
        if (has_name(names, n, sib[i]) && !first)
            first = sib[i];
    }
    bool speaks = kind && first && !strcmp(first, name);
    int64_t start = -1;
    bool has_start = name_offset(name, &start);
    if (!speaks)
        return;
    c->tot->index_entries++;
    if (!all) {
        emit(c, path, id, has_start ? start : -1, "incomplete",
             "not all of its .index, .timeindex and .txnindex are there: the broker deletes the entry at start-up "
             "and fetches the indexes again",
             false);
        return;
    }
    if (!has_start) {
        emit(c, path, id, -1, "bad_name",
             "no start offset before its '_': the broker's index cache throws at start-up (RemoteIndexCache.init): it "
             "does not start",
             true);
        return;
    }
    for (int i = 0; i < 3 && c->rc == KF_OK; i++) {
        char *p = kf_path_join(dir, sib[i]);
        if (!p) {
            c->rc = KF_ERR_NOMEM;
            break;
        }
        check_file(c, p, kinds[i], id, start);
        free(p);
    }
    int64_t live_start;
    if (c->judge_live && c->rc == KF_OK) {
        if (!live_segment(c->st, id, &live_start))
            emit(c, path, id, start, "deleted_segment",
                 "its segment is not live in the remote log metadata (deleted, or never finished): a stale entry the "
                 "broker loads and never uses",
                 false);
        else if (live_start != start) {
            char msg[200];
            snprintf(msg, sizeof msg, "its name says start offset %" PRId64 ", the segment's metadata %" PRId64, start,
                     live_start);
            emit(c, path, id, start, "start_offset_mismatch", msg, false);
        }
    }
}

static void check_entry(checker *c, const char *dir, char **names, size_t n, const char *name)
{
    char *path = kf_path_join(dir, name);
    if (!path) {
        c->rc = KF_ERR_NOMEM;
        return;
    }
    judge_entry(c, dir, path, names, n, name);
    free(path);
}

/* Checks one cache directory (once). */
static void check_dir(checker *c, const char *dir)
{
    for (size_t i = 0; i < c->nseen; i++)
        if (!strcmp(c->seen[i], dir))
            return;
    char **ns = realloc(c->seen, (c->nseen + 1) * sizeof *ns);
    char *copy = strdup(dir);
    if (!ns || !copy) {
        free(copy);
        if (ns)
            c->seen = ns;
        c->rc = KF_ERR_NOMEM;
        return;
    }
    c->seen = ns;
    c->seen[c->nseen++] = copy;
    DIR *d = opendir(dir);
    if (!d) {
        kf_report(c->o->problem_fn, c->o->problem_ctx, KF_P_UNREADABLE, KF_SEV_ERROR, 0, false, 0, "%s: %s", dir,
                  strerror(errno));
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
        }
        if (!(names[n] = strdup(de->d_name)))
            break;
        n++;
    }
    bool short_of_memory = de != NULL;
    closedir(d);
    if (short_of_memory)
        c->rc = KF_ERR_NOMEM;
    if (n)
        qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n && c->rc == KF_OK; i++)
        check_entry(c, dir, names, n, names[i]);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int on_datadir(void *ctx, const kf_path_entry *e)
{
    checker *c = ctx;
    char *p = kf_path_join(e->path, CACHE_DIR);
    if (!p)
        return KF_ERR_NOMEM;
    if (is_dir(p))
        check_dir(c, p);
    free(p);
    return c->rc;
}

static int on_other_dir(void *ctx, const kf_path_entry *e)
{
    checker *c = ctx;
    if (!strcmp(kf_path_base(e->path), CACHE_DIR))
        check_dir(c, e->path);
    return c->rc;
}

int rm_index_cache_check(const rm_state *st, bool judge_live, const kf_remote_opts *o, kf_remote_index_fn fn,
                         void *ctx, kf_remote_totals *tot)
{
    if (!o->paths || !o->npaths)
        return KF_OK;
    checker c = {.st = st, .judge_live = judge_live, .o = o, .fn = fn, .ctx = ctx, .tot = tot, .rc = KF_OK};
    kf_paths_walk_opts w;
    kf_paths_walk_opts_on(&w, NULL, NULL, on_datadir, &c, NULL, NULL);
    w.other_dir_fn = on_other_dir;
    int rc = kf_paths_walk(o->paths, o->npaths, &w);
    for (size_t i = 0; i < c.nseen; i++)
        free(c.seen[i]);
    free(c.seen);
    if (c.rc != KF_OK)
        return c.rc;
    return rc == KF_ERR_NOMEM ? rc : KF_OK; /* unusable PATHs were reported by the inputs' walk */
}
