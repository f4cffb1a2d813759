/* cmd_scan.c: `kfsck scan`: inventory and health of whole broker data dirs.
 * Each partition dir is verified as `kfsck verify` does (segments, indexes,
 * chain, small files; verify_common.c) by a pool of threads, each partition
 * rendered into its own memory buffer and printed in (topic, partition)
 * order, so the output does not depend on --jobs. The data dir's four offset
 * checkpoints and each partition's leader-epoch-checkpoint are compared with
 * the segments (checkpoint_ahead_of_log, cleaner_offset_out_of_range,
 * leader_epoch_ahead_of_log, checkpoint_orphan_entry,
 * checkpoint_missing_entry). */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/verify_common.h"
#include "cli/walk.h"

#define P_CHECKPOINT_AHEAD "checkpoint_ahead_of_log"
#define P_CLEANER_RANGE "cleaner_offset_out_of_range"
#define P_EPOCH_AHEAD "leader_epoch_ahead_of_log"
#define P_ORPHAN "checkpoint_orphan_entry"
#define P_MISSING_ENTRY "checkpoint_missing_entry"

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xcalloc(n, 1);
    memcpy(d, s, n);
    return d;
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

typedef struct ck_entry {
    char *topic;
    int32_t partition;
    int64_t offset;
    uint64_t position;
} ck_entry;

typedef struct ck_file {
    bool present;
    char *path;       /* as the user would open it */
    ck_entry *e;      /* sorted by topic, partition */
    size_t n, cap;
} ck_file;

static void ck_collect(void *ctx, const kf_checkpoint_entry *e)
{
    ck_file *f = ctx;
    if (!e->topic)
        return;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 64;
        f->e = xrealloc(f->e, f->cap * sizeof *f->e);
    }
    f->e[f->n++] = (ck_entry){xstrdup(e->topic), e->partition, e->offset, e->position};
}

static int cmp_tp(const char *ta, int32_t pa, const char *tb, int32_t pb)
{
    int c = strcmp(ta, tb);
    if (c)
        return c;
    return pa < pb ? -1 : pa > pb;
}

static int cmp_ck(const void *a, const void *b)
{
    const ck_entry *x = a, *y = b;
    int c = cmp_tp(x->topic, x->partition, y->topic, y->partition);
    if (c)
        return c;
    return x->position < y->position ? -1 : x->position > y->position; /* duplicates: file order */
}

/* The entry the broker would use (the last one in the file for a duplicated
 * key: Kafka reads the list into a map), or NULL. */
static const ck_entry *ck_find(const ck_file *f, const char *topic, int32_t partition)
{
    size_t lo = 0, hi = f->n;
    const ck_entry *found = NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_tp(f->e[mid].topic, f->e[mid].partition, topic, partition);
        if (c <= 0) {
            if (c == 0)
                found = &f->e[mid];
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return found;
}

static void ck_free(ck_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->e[i].topic);
    free(f->e);
    free(f->path);
    memset(f, 0, sizeof *f);
}

/* ---- one partition ---------------------------------------------------------- */

typedef struct scan_opts {
    bool json;
    uint64_t max_batch_bytes;
    unsigned reader_threads; /* per segment: 1 when partitions run in threads */
} scan_opts;

typedef struct scan_task {
    /* in */
    const char *datadir;
    char *name;
    char *topic;
    int32_t partition;
    char *dir;
    /* out */
    char *head, *body; /* the partition line, then its problem lines */
    size_t head_len, body_len;
    uint64_t errors, warnings, segments, bytes;
    int status;
    bool done;
} scan_task;

typedef struct datadir_ctx {
    const char *datadir;
    const scan_opts *opts;
    ck_file ck[CK_N];
    bool any_checkpoint;
    scan_task *tasks;
    size_t ntasks;
    /* work queue */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;
} datadir_ctx;

typedef struct epoch_list {
    struct epoch_ent {
        int32_t epoch;
        int64_t start;
        uint64_t position;
    } *e;
    size_t n, cap;
} epoch_list;

static void epoch_collect(void *ctx, const kf_checkpoint_entry *e)
{
    epoch_list *l = ctx;
    if (e->topic)
        return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->e = xrealloc(l->e, l->cap * sizeof *l->e);
    }
    l->e[l->n++] = (struct epoch_ent){e->epoch, e->offset, e->position};
}

static bool read_topic_id(const char *dir, char id[23])
{
    char *p = path_join(dir, "partition.metadata");
    kf_bytes m;
    bool ok = false;
    if (kf_file_read_all(p, KF_SMALL_FILE_MAX, &m.data, &m.size, NULL) == KF_OK) {
        kf_partition_metadata pm;
        char msg[200];
        if (kf_partition_metadata_parse(m.data, m.size, &pm, msg, sizeof msg) == KF_OK) {
            memcpy(id, pm.topic_id_b64, 23);
            ok = true;
        }
        free(m.data);
    }
    free(p);
    return ok;
}

/* Entries are reported by verify_partition's aux check already: no problem fn. */
static char *read_epochs(const char *dir, epoch_list *l)
{
    char *p = path_join(dir, "leader-epoch-checkpoint");
    kf_bytes m;
    if (kf_file_read_all(p, KF_SMALL_FILE_MAX, &m.data, &m.size, NULL) == KF_OK) {
        int32_t version;
        kf_checkpoint_parse(m.data, m.size, KF_CKPT_LEADER_EPOCH, &version, epoch_collect, l, NULL, NULL);
        free(m.data);
    }
    return p;
}

static void opt_int(out *o, const char *key, bool has, int64_t v)
{
    if (has)
        out_int(o, key, v);
    else
        out_null(o, key);
}

static void human_size(uint64_t b, char *buf, size_t n)
{
    if (b < 1024)
        snprintf(buf, n, "%" PRIu64 " B", b);
    else if (b < (1ull << 20))
        snprintf(buf, n, "%.1f KB", (double)b / 1024);
    else if (b < (1ull << 30))
        snprintf(buf, n, "%.1f MB", (double)b / (1 << 20));
    else
        snprintf(buf, n, "%.1f GB", (double)b / (1 << 30));
}

/* A checkpoint entry disagreeing with the segments. */
static void ck_problem(verify_ctx *v, const char *file, const char *code, kf_severity sev, uint64_t pos,
                       int64_t off, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static void ck_problem(verify_ctx *v, const char *file, const char *code, kf_severity sev, uint64_t pos,
                       int64_t off, const char *fmt, ...)
{
    char msg[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report r = {v->o, file, 0, 0};
    kf_report(report_problem, &r, code, sev, pos, true, off, "%s", msg);
    v->errors += r.errors;
    v->warnings += r.warnings;
}

static void scan_partition(datadir_ctx *d, scan_task *t)
{
    const scan_opts *so = d->opts;
    FILE *hf = open_memstream(&t->head, &t->head_len);
    FILE *bf = open_memstream(&t->body, &t->body_len);
    if (!hf || !bf) {
        fputs("kfsck: out of memory\n", stderr);
        exit(EXIT_FAIL);
    }
    out ho, bo;
    out_init(&ho, hf, so->json);
    out_init(&bo, bf, so->json);

    verify_ctx v;
    verify_ctx_init(&v, &bo, so->max_batch_bytes);
    v.segment_lines = false;
    v.progress = false;
    v.threads = so->reader_threads;

    part_result pr;
    verify_partition(&v, t->dir, &pr);

    char topic_id[23];
    bool has_id = pr.listed && read_topic_id(t->dir, topic_id);
    epoch_list el = {0};
    char *epath = read_epochs(t->dir, &el);

    int64_t leo = 0;
    bool has_leo = part_log_end(&pr, &leo);
    const ck_entry *ce[CK_N];
    bool any_entry = false;
    for (int k = 0; k < CK_N; k++) {
        ce[k] = ck_find(&d->ck[k], t->topic, t->partition);
        any_entry |= ce[k] != NULL;
    }

    /* Checkpoints against the log. A partition with no segment is loaded
     * by the broker as an empty log at its log start offset. */
    if (pr.listed) {
        int64_t end = has_leo ? leo : (ce[CK_LOG_START] ? ce[CK_LOG_START]->offset : 0);
        const char *endwhat = has_leo ? "the log end offset" : "the log start (no segment)";
        static const int ahead[] = {CK_HW, CK_RECOVERY, CK_LOG_START};
        for (size_t i = 0; i < sizeof ahead / sizeof ahead[0]; i++) {
            int k = ahead[i];
            if (!ce[k] || ce[k]->offset <= end || (k == CK_LOG_START && !has_leo))
                continue;
            ck_problem(&v, d->ck[k].path, P_CHECKPOINT_AHEAD, KF_SEV_ERROR, ce[k]->position, ce[k]->offset,
                       "%s of %s-%" PRId32 " is %" PRId64 ", beyond %s %" PRId64
                       ": the log has lost %" PRId64 " offsets the broker had%s",
                       CK_WHAT[k], t->topic, t->partition, ce[k]->offset, endwhat, end, ce[k]->offset - end,
                       k == CK_HW ? " committed" : (k == CK_RECOVERY ? " flushed" : ""));
        }
        if (ce[CK_CLEANER] && ce[CK_CLEANER]->offset > end)
            ck_problem(&v, d->ck[CK_CLEANER].path, P_CLEANER_RANGE, KF_SEV_WARNING, ce[CK_CLEANER]->position,
                       ce[CK_CLEANER]->offset,
                       "cleaner offset of %s-%" PRId32 " is %" PRId64 ", beyond %s %" PRId64
                       " (the cleaner resets it to the log start)",
                       t->topic, t->partition, ce[CK_CLEANER]->offset, endwhat, end);
        for (size_t i = 0; i < el.n; i++)
            if (el.e[i].start > end)
                ck_problem(&v, epath, P_EPOCH_AHEAD, KF_SEV_WARNING, el.e[i].position, el.e[i].start,
                           "leader epoch %" PRId32 " starts at offset %" PRId64 ", beyond %s %" PRId64
                           " (the broker truncates the epoch cache at load)",
                           el.e[i].epoch, el.e[i].start, endwhat, end);
        /* The KRaft metadata log is kept by the raft layer, never in these files. */
        if (!any_entry && d->any_checkpoint && strcmp(t->topic, "__cluster_metadata") != 0) {
            report r = {v.o, t->dir, 0, 0};
            kf_report(report_problem, &r, P_MISSING_ENTRY, KF_SEV_WARNING, 0, false, 0,
                      "%s-%" PRId32 " is in none of the data dir's offset checkpoints (a partition created "
                      "since the last checkpoint, or checkpoints from another broker)",
                      t->topic, t->partition);
            v.errors += r.errors;
            v.warnings += r.warnings;
        }
    }

    /* the partition line */
    if (so->json) {
        out_begin(&ho, "partition");
        out_str(&ho, "datadir", t->datadir);
        out_str(&ho, "topic", t->topic);
        out_int(&ho, "partition", t->partition);
        out_str(&ho, "dir", t->dir);
        out_str(&ho, "topic_id", has_id ? topic_id : NULL);
        out_uint(&ho, "segments", pr.segments);
        out_uint(&ho, "bytes", pr.bytes);
        opt_int(&ho, "first_offset", pr.has_offsets, pr.first_offset);
        opt_int(&ho, "log_end_offset", has_leo, leo);
        static const char *const keys[CK_N] = {"recovery_point", "high_watermark", "log_start_offset",
                                               "cleaner_offset"};
        for (int k = 0; k < CK_N; k++)
            opt_int(&ho, keys[k], ce[k] != NULL, ce[k] ? ce[k]->offset : 0);
        out_arr_open(&ho, "leader_epochs");
        for (size_t i = 0; i < el.n; i++) {
            out_obj_open(&ho, NULL);
            out_int(&ho, "epoch", el.e[i].epoch);
            out_int(&ho, "start_offset", el.e[i].start);
            out_obj_close(&ho);
        }
        out_arr_close(&ho);
        out_uint(&ho, "errors", v.errors);
        out_uint(&ho, "warnings", v.warnings);
        out_end(&ho);
    } else {
        char size[32];
        human_size(pr.bytes, size, sizeof size);
        out_text(&ho, "%-24s %3" PRIu64 " segment%s %10s", t->name, pr.segments, pr.segments == 1 ? " " : "s",
                 size);
        /* ranges are first..last everywhere (as verify prints them); the
         * log end offset is named as such */
        if (pr.has_offsets && has_leo)
            out_text(&ho, "  offsets %" PRId64 "..%" PRId64 "  log end %" PRId64, pr.first_offset, pr.last_offset,
                     leo);
        else if (has_leo)
            out_text(&ho, "  empty, log end %" PRId64, leo);
        else
            out_text(&ho, "  no segment");
        if (ce[CK_HW])
            out_text(&ho, "  hw %" PRId64, ce[CK_HW]->offset);
        if (v.errors)
            out_text(&ho, "  %" PRIu64 " error%s", v.errors, v.errors == 1 ? "" : "s");
        if (v.warnings)
            out_text(&ho, "%s %" PRIu64 " warning%s", v.errors ? "," : " ", v.warnings, v.warnings == 1 ? "" : "s");
        if (!v.errors && !v.warnings)
            out_text(&ho, "  ok");
        out_text(&ho, "\n");
    }
    fclose(hf);
    fclose(bf);
    free(el.e);
    free(epath);
    t->errors = v.errors;
    t->warnings = v.warnings;
    t->segments = pr.segments;
    t->bytes = pr.bytes;
    t->status = v.status;
}

static void *worker(void *arg)
{
    datadir_ctx *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->mu);
        size_t i = d->next < d->ntasks ? d->next++ : d->ntasks;
        pthread_mutex_unlock(&d->mu);
        if (i >= d->ntasks)
            return NULL;
        scan_partition(d, &d->tasks[i]);
        pthread_mutex_lock(&d->mu);
        d->tasks[i].done = true;
        pthread_cond_broadcast(&d->cv);
        pthread_mutex_unlock(&d->mu);
    }
}

/* ---- one data dir ------------------------------------------------------------- */

typedef struct totals {
    uint64_t partitions, segments, bytes, errors, warnings;
    int status;
} totals;

static int cmp_task(const void *a, const void *b)
{
    const scan_task *x = a, *y = b;
    return cmp_tp(x->topic, x->partition, y->topic, y->partition);
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static const scan_task *find_task(const datadir_ctx *d, const char *topic, int32_t partition)
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

static void scan_datadir(const char *dir, const scan_opts *so, unsigned jobs, out *o, totals *tot)
{
    name_list l;
    if (list_dir(dir, &l) != 0) {
        cli_error(dir, "cannot read directory: %s", strerror(errno));
        tot->status = EXIT_FAIL;
        return;
    }
    datadir_ctx d;
    memset(&d, 0, sizeof d);
    d.datadir = dir;
    d.opts = so;
    verify_ctx v; /* the data dir's own files; output straight to stdout */
    verify_ctx_init(&v, o, so->max_batch_bytes);
    v.segment_lines = false;
    v.progress = false;

    if (!so->json)
        out_text(o, "%s:\n", dir);
    d.tasks = xcalloc(l.n, sizeof *d.tasks);
    for (size_t i = 0; i < l.n; i++) {
        const char *name = l.names[i];
        char *p = path_join(dir, name);
        kf_name_info ni = kf_classify_name(name);
        char topic[256];
        int32_t part;
        size_t len = strlen(name);
        int k = -1;
        for (int c = 0; c < CK_N; c++)
            if (!strcmp(name, CK_NAMES[c]))
                k = c;
        if (k >= 0 && !is_dir(p)) {
            ck_file *f = &d.ck[k];
            f->present = true;
            d.any_checkpoint = true;
            f->path = p;
            p = NULL;
            kf_bytes m;
            int err_no = 0;
            if (kf_file_read_all(f->path, KF_SMALL_FILE_MAX, &m.data, &m.size, &err_no) != KF_OK) {
                verify_unreadable(&v, f->path, err_no);
            } else {
                report r = {o, f->path, 0, 0};
                int32_t version;
                kf_checkpoint_parse(m.data, m.size, KF_CKPT_OFFSETS, &version, ck_collect, f, report_problem, &r);
                v.errors += r.errors;
                v.warnings += r.warnings;
                free(m.data);
                if (f->n > 1)
                    qsort(f->e, f->n, sizeof *f->e, cmp_ck);
            }
        } else if ((ni.kind == KF_FILE_META_PROPERTIES || ni.kind == KF_FILE_OFFSET_CHECKPOINT) && !is_dir(p)) {
            verify_aux(&v, p, ni);
        } else if (len && isdigit((unsigned char)name[len - 1]) &&
                   kf_parse_partition_dir(name, topic, sizeof topic, &part) && is_dir(p)) {
            /* plain <topic>-<n> only: -delete, -future and -stray dirs end otherwise */
            scan_task *t = &d.tasks[d.ntasks++];
            t->datadir = dir;
            t->name = xstrdup(name);
            t->topic = xstrdup(topic);
            t->partition = part;
            t->dir = p;
            p = NULL;
        }
        free(p);
    }
    name_list_free(&l);
    if (d.ntasks > 1)
        qsort(d.tasks, d.ntasks, sizeof *d.tasks, cmp_task);

    /* checkpoint entries naming a partition that is not here */
    for (int k = 0; k < CK_N; k++) {
        const ck_file *f = &d.ck[k];
        for (size_t i = 0; i < f->n; i++) {
            const ck_entry *e = &f->e[i];
            if (find_task(&d, e->topic, e->partition))
                continue;
            report r = {o, f->path, 0, 0};
            kf_report(report_problem, &r, P_ORPHAN, KF_SEV_WARNING, e->position, true, e->offset,
                      "entry for %s-%" PRId32 " (offset %" PRId64 "), which has no partition directory in %s",
                      e->topic, e->partition, e->offset, dir);
            v.errors += r.errors;
            v.warnings += r.warnings;
        }
    }

    /* the partitions: N workers, output in order */
    pthread_mutex_init(&d.mu, NULL);
    pthread_cond_init(&d.cv, NULL);
    size_t nthreads = jobs > 1 ? (jobs < d.ntasks ? jobs : d.ntasks) : 0;
    pthread_t *th = xcalloc(nthreads, sizeof *th);
    size_t started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, worker, &d) != 0)
            break;
    for (size_t i = 0; i < d.ntasks; i++) {
        scan_task *t = &d.tasks[i];
        if (started == 0) {
            scan_partition(&d, t); /* --jobs 1 (or no thread could start) */
        } else {
            pthread_mutex_lock(&d.mu);
            while (!t->done)
                pthread_cond_wait(&d.cv, &d.mu);
            pthread_mutex_unlock(&d.mu);
        }
        fwrite(t->head, 1, t->head_len, o->f);
        fwrite(t->body, 1, t->body_len, o->f);
        tot->partitions++;
        tot->segments += t->segments;
        tot->bytes += t->bytes;
        tot->errors += t->errors;
        tot->warnings += t->warnings;
        if (t->status == EXIT_FAIL)
            tot->status = EXIT_FAIL;
        free(t->head);
        free(t->body);
        free(t->name);
        free(t->topic);
        free(t->dir);
    }
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&d.mu);
    pthread_cond_destroy(&d.cv);
    free(d.tasks);
    for (int k = 0; k < CK_N; k++)
        ck_free(&d.ck[k]);
    tot->errors += v.errors;
    tot->warnings += v.warnings;
    if (v.status == EXIT_FAIL)
        tot->status = EXIT_FAIL;
}

/* ---- command ------------------------------------------------------------------ */

static void scan_usage(FILE *f)
{
    fprintf(f, "usage: kfsck scan [--jobs N] [--max-batch-bytes N] [--json] DATADIR...\n\n"
               "DATADIR: a broker data dir (one entry of log.dirs). For every partition dir in it:\n"
               "segments, bytes, first offset, log end offset, the checkpoints' recovery point,\n"
               "high watermark, log start and cleaner offsets, leader epochs, and every problem\n"
               "`kfsck verify` finds, plus checkpoint entries that disagree with the segments.\n"
               "--jobs N: partitions checked by N threads (default: online cores); output order\n"
               "does not depend on N. For a single partition dir use `kfsck verify`.\n"
               "Exit 0 when no error was found (warnings alone: 0), 1 otherwise.\n");
}

int cmd_scan(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'J'},
        {"jobs", required_argument, 0, 'j'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    bool json = false;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned jobs = ncpu > 0 ? (unsigned)(ncpu > 256 ? 256 : ncpu) : 1;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1) {
        switch (c) {
        case 'J': json = true; break;
        case 'j': {
            char *end;
            errno = 0;
            long n = strtol(optarg, &end, 10);
            if (errno || end == optarg || *end || n < 1 || n > 1024)
                return opt_usage_error("scan", "--jobs needs a number of threads from 1 to 1024, not", optarg,
                                       scan_usage);
            jobs = (unsigned)n;
            break;
        }
        case 'B':
            if (opt_positive_size("scan", "--max-batch-bytes", optarg, &max_batch))
                return EXIT_USAGE;
            break;
        case 'h': scan_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("scan", "unknown or incomplete option", argv[optind - 1], scan_usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error("scan", "no DATADIR given", NULL, scan_usage);

    /* Check every argument before any output: a partition dir or a file is a
     * usage error, a missing path makes the exit 3. */
    int status = EXIT_CLEAN;
    bool *skip = xcalloc((size_t)argc, sizeof *skip);
    for (int i = optind; i < argc; i++) {
        const char *p = argv[i];
        switch (classify_path(p)) {
        case PATH_MISSING:
            cli_error(p, "no such file or directory");
            status = EXIT_FAIL;
            skip[i] = true;
            break;
        case PATH_FILE:
            fprintf(stderr, "kfsck scan: %s is a file, not a broker data directory; use `kfsck verify %s`\n", p, p);
            free(skip);
            return EXIT_USAGE;
        case PATH_PARTITION:
            fprintf(stderr,
                    "kfsck scan: %s is a partition directory, not a broker data directory; "
                    "use `kfsck verify %s` (or scan its parent)\n",
                    p, p);
            free(skip);
            return EXIT_USAGE;
        case PATH_DATADIR: break;
        case PATH_OTHER_DIR: {
            name_list l;
            if (list_dir(p, &l) != 0) {
                cli_error(p, "cannot read directory: %s", strerror(errno));
                status = EXIT_FAIL;
                skip[i] = true;
            } else {
                if (l.n) {
                    cli_error(p, "not a broker data directory (no partition directories, meta.properties "
                                 "or checkpoints)");
                    status = EXIT_FAIL;
                    skip[i] = true;
                }
                name_list_free(&l);
            }
            break;
        }
        }
    }

    out o;
    out_init(&o, stdout, json);
    scan_opts so = {json, max_batch, jobs == 1 ? 0u : 1u}; /* threads per segment only without partition threads */
    totals tot = {0};
    tot.status = EXIT_CLEAN;
    uint64_t datadirs = 0;
    for (int i = optind; i < argc; i++) {
        if (skip[i])
            continue;
        scan_datadir(argv[i], &so, jobs, &o, &tot);
        datadirs++;
    }
    free(skip);
    if (json) {
        out_begin(&o, "summary");
        out_uint(&o, "datadirs", datadirs);
        out_uint(&o, "partitions", tot.partitions);
        out_uint(&o, "segments", tot.segments);
        out_uint(&o, "bytes", tot.bytes);
        out_uint(&o, "errors", tot.errors);
        out_uint(&o, "warnings", tot.warnings);
        out_end(&o);
    } else {
        char size[32];
        human_size(tot.bytes, size, sizeof size);
        out_text(&o, "%" PRIu64 " partitions, %" PRIu64 " segments, %s, %" PRIu64 " errors, %" PRIu64 " warnings\n",
                 tot.partitions, tot.segments, size, tot.errors, tot.warnings);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("<stdout>", "cannot write: %s", strerror(errno));
        return EXIT_FAIL;
    }
    if (status == EXIT_FAIL || tot.status == EXIT_FAIL)
        return EXIT_FAIL;
    return tot.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}
