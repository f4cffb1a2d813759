/* out.c: the command line's output writers (out.h): JSON lines through the
 * library's writer (kfsck/sys/json_lines.h) to a stream, text, the
 * formatting helpers, the problems, the one-line error, and the check that
 * stdout was written. */
#include "cli/out.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/walk.h"

void fmt_bytes(uint64_t n, char *buf, size_t cap)
{
    kf_format_bytes(n, "B", buf, cap);
}

void fmt_duration_unit(int64_t ms, char *buf, size_t n)
{
    static const struct {
        int64_t ms;
        const char *unit;
    } units[] = {{604800000, "w"}, {86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (ms % units[i].ms == 0) {
            snprintf(buf, n, "%" PRId64 "%s", ms / units[i].ms, units[i].unit);
            return;
        }
    snprintf(buf, n, "%" PRId64 "ms", ms);
}

void partition_label(const kf_partition *p, char *buf, size_t n)
{
    if (p->topic[0] && p->partition >= 0)
        snprintf(buf, n, "%s-%d", p->topic, p->partition);
    else
        snprintf(buf, n, "%s", p->ncopies ? p->copies[0].label : "?");
}

/* The writer's sink: the bytes to the stream, as they come; a line the
 * writer could not find memory for ends the run. */
static void to_stream(void *ctx, const char *p, size_t n, unsigned how)
{
    if (how & KF_JSONL_CUT)
        cli_oom();
    fwrite(p, 1, n, (FILE *)ctx);
}

void out_init(out *o, FILE *f, bool json)
{
    o->f = f;
    o->json = json;
    o->show_secrets = false;
    /* JSON outside a line (inside a text line, or a document built piece
     * by piece) goes out value by value, in its place among the text */
    kf_jsonl_init(&o->w, KF_JSONL_PIECES, to_stream, f);
}

void out_json(out *o, const char *key, const char *json, size_t n)
{
    kf_jsonl_key(&o->w, key);
    kf_jsonl_raw(&o->w, json, n);
}

void out_bytes(out *o, const char *name, const uint8_t *p, int64_t n)
{
    char k[64];
    snprintf(k, sizeof k, "%s_b64", name);
    if (n < 0 || !p) {
        kf_jsonl_null(&o->w, k);
        kf_jsonl_null(&o->w, name);
        return;
    }
    kf_jsonl_b64(&o->w, k, p, (size_t)n);
    if (kf_utf8_valid(p, (size_t)n))
        kf_jsonl_strn(&o->w, name, (const char *)p, (size_t)n);
}

void out_text(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tvprintf(o->f, fmt, ap);
    va_end(ap);
}

void out_raw(out *o, const char *s) { traw(o->f, s); }
void out_shell(out *o, const char *before, const char *arg) { tshell(o->f, before, arg); }

/* ---- at most KF_PROBLEMS_LISTED_MAX problems of a file -------------------------
 *
 * Every command's problems pass report_problem_with, so the cap on what one
 * file shows is kept here, over the whole run: a file's problems past the
 * first KF_PROBLEMS_LISTED_MAX are counted (in the report's errors and
 * warnings too) but not printed, and one problems_not_listed problem sums
 * them up once the run moves on to another file's problems, or at its end
 * (report_flush_hidden, from finish_stdout). The files are kept in an
 * open-addressing table by name: one entry a file that had problems. */

typedef struct file_count {
    char *file;
    kf_problem_cap cap;
    FILE *f;   /* where its problems went, and how */
    bool json;
} file_count;

static file_count *fc_tab;
static size_t fc_cap, fc_n;
static file_count *fc_last; /* the file of the last problem printed or hidden */

static size_t fc_hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The entry of file, made when new; NULL when out of memory (then nothing
 * is capped: every problem is printed). */
static file_count *fc_get(const char *file)
{
    if (fc_n * 2 >= fc_cap) {
        size_t cap = fc_cap ? fc_cap * 2 : 64;
        file_count *t = calloc(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < fc_cap; i++) {
            if (!fc_tab[i].file)
                continue;
            size_t k = fc_hash(fc_tab[i].file) & (cap - 1);
            while (t[k].file)
                k = (k + 1) & (cap - 1);
            t[k] = fc_tab[i];
            if (fc_last == &fc_tab[i])
                fc_last = &t[k];
        }
        free(fc_tab);
        fc_tab = t;
        fc_cap = cap;
    }
    size_t k = fc_hash(file) & (fc_cap - 1);
    while (fc_tab[k].file && strcmp(fc_tab[k].file, file))
        k = (k + 1) & (fc_cap - 1);
    if (!fc_tab[k].file) {
        if (!(fc_tab[k].file = strdup(file)))
            return NULL;
        fc_n++;
    }
    return &fc_tab[k];
}

/* The problems_not_listed problem of c's hidden problems, if any. */
static void fc_flush(file_count *c)
{
    kf_problem p;
    if (!kf_problem_cap_flush(&c->cap, c->file, &p))
        return;
    out o;
    out_init(&o, c->f, c->json);
    report r = {&o, c->file, 0, 0};
    report_problem_with(&r, &p, NULL, NULL);
}

void report_flush_hidden(void)
{
    for (size_t i = 0; i < fc_cap; i++)
        if (fc_tab[i].file)
            fc_flush(&fc_tab[i]);
}

/* Whether p (about file, printed to o) is shown: false when it is one past
 * its file's first KF_PROBLEMS_LISTED_MAX (then counted for the summing up). */
static bool fc_show(const out *o, const char *file, const kf_problem *p)
{
    if (!strcmp(p->code, KF_P_PROBLEMS_NOT_LISTED))
        return true;
    file_count *c = fc_get(file);
    if (!c)
        return true;
    if (fc_last && fc_last != c)
        fc_flush(fc_last);
    fc_last = c;
    c->f = o->f;
    c->json = o->json;
    return kf_problem_cap_take(&c->cap, p);
}

void report_problem(void *ctx, const kf_problem *p) { report_problem_with(ctx, p, NULL, NULL); }

/* A caller's fields of a problem, written through its out. */
struct extra_fields {
    out *o;
    void (*fields)(out *o, void *ctx);
    void *ctx;
};

static void put_extra(kf_jsonl *j, void *ctx)
{
    (void)j; /* the out's own writer */
    struct extra_fields *x = ctx;
    x->fields(x->o, x->ctx);
}

void report_problem_with(report *r, const kf_problem *p, void (*extra)(out *o, void *ctx), void *ectx)
{
    if (p->severity == KF_SEV_ERROR)
        r->errors++;
    else
        r->warnings++;
    const char *file = p->file ? p->file : r->file;
    /* a file that cannot be read is also the one-line error on stderr;
     * in text mode that line is all */
    bool unreadable = !strcmp(p->code, KF_P_UNREADABLE);
    if (unreadable)
        cli_error(file ? file : "?", "%s", p->message);
    out *o = r->o;
    if (!o || (unreadable && !o->json))
        return;
    if (!fc_show(o, file ? file : "", p))
        return;
    if (o->json) {
        struct extra_fields x = {o, extra, ectx};
        kf_problem_json(&o->w, p, file, extra ? put_extra : NULL, &x);
    } else {
        tprintf(o->f, "%s: %s at position %llu", p->severity == KF_SEV_ERROR ? "ERROR" : "WARNING", p->code,
                (unsigned long long)p->position);
        if (p->has_offset)
            tprintf(o->f, " (offset %lld)", (long long)p->offset);
        if (p->has_length)
            tprintf(o->f, " length %llu", (unsigned long long)p->length);
        for (unsigned i = 0; i < p->nextra; i++) {
            if (p->extra[i].is_null)
                tprintf(o->f, " %s none", p->extra[i].name);
            else if (p->extra[i].is_int)
                tprintf(o->f, " %s %lld", p->extra[i].name, (long long)p->extra[i].i);
            else
                tprintf(o->f, " %s %s", p->extra[i].name, p->extra[i].text);
        }
        tprintf(o->f, ": %s", p->message);
        if (file) /* a problem about a partition or a replay may name no file */
            tprintf(o->f, " [%s]", file);
        fputc('\n', o->f);
    }
}

static bool progress_shown;

void progress_show(void *ctx, uint64_t position, uint64_t size)
{
    static int tty = -1;
    if (tty < 0)
        tty = isatty(2);
    if (!tty || !size)
        return;
    unsigned pct = (unsigned)(position * 100 / size);
    char bar[21];
    for (unsigned i = 0; i < 20; i++)
        bar[i] = i < pct / 5 ? '#' : '.';
    bar[20] = 0;
    tprintf(stderr, "\r[%s] %3u%% %s", bar, pct, (const char *)ctx);
    progress_shown = true;
}

void progress_done(void)
{
    if (progress_shown)
        fputs("\r\033[K", stderr);
    progress_shown = false;
}

void cli_error(const char *path, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    tprintf(stderr, "kfsck: %s: ", path);
    va_start(ap, fmt);
    tvprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int finish_stdout(int status)
{
    report_flush_hidden();
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    cli_error("<stdout>", "cannot write output");
    return EXIT_FAIL;
}


