/* out.c: JSON-lines and text output writers, the formatting helpers, the
 * one-line error, and the check that stdout was written (out.h). */
#include "cli/out.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

void fmt_time_utc(int64_t ms, char *buf, size_t n)
{
    int64_t sec = ms / 1000, frac = ms % 1000;
    if (frac < 0) { /* floor, for times before 1970 */
        sec--;
        frac += 1000;
    }
    time_t t = (time_t)sec;
    struct tm tm;
    if ((int64_t)t != sec || !gmtime_r(&t, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999) {
        snprintf(buf, n, "%" PRId64, ms);
        return;
    }
    snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (int)frac);
}

void fmt_duration(int64_t ms, char *buf, size_t n)
{
    const char *sign = "";
    uint64_t v = (uint64_t)ms;
    if (ms < 0) {
        sign = "-";
        v = 0 - v;
    }
    uint64_t s = v / 1000, m = s / 60, h = m / 60, d = h / 24;
    if (v < 1000)
        snprintf(buf, n, "%s%" PRIu64 "ms", sign, v);
    else if (s < 60)
        snprintf(buf, n, "%s%" PRIu64 "s", sign, s);
    else if (m < 60)
        snprintf(buf, n, "%s%" PRIu64 "m%02" PRIu64 "s", sign, m, s % 60);
    else if (h < 24)
        snprintf(buf, n, "%s%" PRIu64 "h%02" PRIu64 "m", sign, h, m % 60);
    else
        snprintf(buf, n, "%s%" PRIu64 "d%02" PRIu64 "h", sign, d, h % 24);
}

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

void out_init(out *o, FILE *f, bool json)
{
    o->f = f;
    o->json = json;
    o->depth = 0;
    o->need_comma = false;
    o->show_secrets = false;
}

/* A field is written with one stdio call where it fits a small buffer:
 * a JSON line is a few dozen fields, and each locked stdio call costs more
 * than the formatting (offsets --json prints a row per committed offset).
 * FIELD_CAP holds a key, its separators and a number or a short string. */
#define FIELD_CAP 192

/* The separator and `"key":` (nothing for a NULL key) at buf; their length,
 * or 0 with nothing written when they do not fit in cap. */
static size_t field_head(out *o, const char *key, char *buf, size_t cap)
{
    size_t kl = key ? strlen(key) : 0, n = 0;
    if (kl + 4 > cap)
        return 0;
    if (o->need_comma)
        buf[n++] = ',';
    o->need_comma = true;
    if (key) {
        buf[n++] = '"';
        memcpy(buf + n, key, kl);
        n += kl;
        buf[n++] = '"';
        buf[n++] = ':';
    }
    return n;
}

void out_key(out *o, const char *key)
{
    char buf[FIELD_CAP];
    size_t n = field_head(o, key, buf, sizeof buf);
    if (n || !key) {
        fwrite(buf, 1, n, o->f);
        return;
    }
    /* a key longer than the buffer */
    fputs(o->need_comma ? ",\"" : "\"", o->f);
    o->need_comma = true;
    fputs(key, o->f);
    fputs("\":", o->f);
}

/* The decimal digits of v at the end of buf[0..20): where they start. */
static char *digits(uint64_t v, char *end)
{
    char *p = end;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    return p;
}

/* `"key":` and a word already formatted (a number, true, null...). */
static void put_field(out *o, const char *key, const char *word, size_t wl)
{
    char buf[FIELD_CAP];
    size_t n = field_head(o, key, buf, sizeof buf - 24);
    if (!n && key) {
        out_key(o, key);
        fwrite(word, 1, wl, o->f);
        return;
    }
    memcpy(buf + n, word, wl);
    fwrite(buf, 1, n + wl, o->f);
}

void out_begin(out *o, const char *type)
{
    fputc('{', o->f);
    o->depth = 1;
    o->need_comma = false;
    out_str(o, "type", type);
}

void out_end(out *o)
{
    fputs("}\n", o->f);
    o->depth = 0;
    o->need_comma = false;
}

void out_int(out *o, const char *key, int64_t v)
{
    char num[21], *end = num + sizeof num;
    char *p = digits(v < 0 ? 0 - (uint64_t)v : (uint64_t)v, end);
    if (v < 0)
        *--p = '-';
    put_field(o, key, p, (size_t)(end - p));
}

void out_uint(out *o, const char *key, uint64_t v)
{
    char num[20], *end = num + sizeof num;
    char *p = digits(v, end);
    put_field(o, key, p, (size_t)(end - p));
}

void out_null(out *o, const char *key) { put_field(o, key, "null", 4); }

void out_opt_int(out *o, const char *key, bool has, int64_t v)
{
    if (has)
        out_int(o, key, v);
    else
        out_null(o, key);
}

void out_bool(out *o, const char *key, bool v) { put_field(o, key, v ? "true" : "false", v ? 4 : 5); }

void out_double(out *o, const char *key, double v)
{
    out_key(o, key);
    fprintf(o->f, "%.17g", v);
}

static bool needs_escape(unsigned char ch) { return ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\'; }

static void put_escaped(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        size_t run = i;
        while (run < n && !needs_escape((unsigned char)s[run]))
            run++;
        if (run > i) { /* the plain run in one write */
            fwrite(s + i, 1, run - i, f);
            i = run;
            continue;
        }
        unsigned char ch = (unsigned char)s[i++];
        switch (ch) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default: fprintf(f, "\\u%04x", ch);
        }
    }
    fputc('"', f);
}

/* Whether s[0..n) needs no escape. */
static bool plain(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (needs_escape((unsigned char)s[i]))
            return false;
    return true;
}

void out_strn(out *o, const char *key, const char *s, size_t n)
{
    if (!s) {
        out_null(o, key);
        return;
    }
    bool valid = utf8_valid((const uint8_t *)s, n);
    char buf[FIELD_CAP];
    size_t h;
    if (valid && n + 2 <= sizeof buf / 2 && plain(s, n) && ((h = field_head(o, key, buf, sizeof buf / 2)) || !key)) {
        /* the common case in one write: `"key":"text"` */
        buf[h] = '"';
        memcpy(buf + h + 1, s, n);
        buf[h + 1 + n] = '"';
        fwrite(buf, 1, h + n + 2, o->f);
        return;
    }
    out_key(o, key);
    if (valid) {
        put_escaped(o->f, s, n);
        return;
    }
    /* Not UTF-8: replace bad bytes with U+FFFD so the line stays valid JSON. */
    fputc('"', o->f);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x80)
            fputs("\\ufffd", o->f);
        else if (ch == '"' || ch == '\\') {
            fputc('\\', o->f);
            fputc(ch, o->f);
        } else if (ch < 0x20 || ch == 0x7f)
            fprintf(o->f, "\\u%04x", ch);
        else
            fputc(ch, o->f);
    }
    fputc('"', o->f);
}

void out_str(out *o, const char *key, const char *s) { out_strn(o, key, s, s ? strlen(s) : 0); }

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void out_b64(out *o, const char *key, const uint8_t *p, size_t n)
{
    out_key(o, key);
    if (!p && n) {
        fputs("null", o->f);
        return;
    }
    fputc('"', o->f);
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        fputc(B64[v >> 18], o->f);
        fputc(B64[(v >> 12) & 63], o->f);
        fputc(B64[(v >> 6) & 63], o->f);
        fputc(B64[v & 63], o->f);
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)p[i] << 16;
        fputc(B64[v >> 18], o->f);
        fputc(B64[(v >> 12) & 63], o->f);
        fputs("==", o->f);
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8;
        fputc(B64[v >> 18], o->f);
        fputc(B64[(v >> 12) & 63], o->f);
        fputc(B64[(v >> 6) & 63], o->f);
        fputc('=', o->f);
    }
    fputc('"', o->f);
}

void out_bytes(out *o, const char *name, const uint8_t *p, int64_t n)
{
    char k[64];
    snprintf(k, sizeof k, "%s_b64", name);
    if (n < 0 || !p) {
        out_null(o, k);
        out_null(o, name);
        return;
    }
    out_b64(o, k, p, (size_t)n);
    if (utf8_valid(p, (size_t)n))
        out_strn(o, name, (const char *)p, (size_t)n);
}

void out_obj_open(out *o, const char *key)
{
    out_key(o, key);
    fputc('{', o->f);
    o->need_comma = false;
    o->depth++;
}

void out_obj_close(out *o)
{
    fputc('}', o->f);
    o->need_comma = true;
    o->depth--;
}

void out_arr_open(out *o, const char *key)
{
    out_key(o, key);
    fputc('[', o->f);
    o->need_comma = false;
    o->depth++;
}

void out_arr_close(out *o)
{
    fputc(']', o->f);
    o->need_comma = true;
    o->depth--;
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

bool utf8_valid(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint32_t cp;
        if ((c & 0xe0) == 0xc0) {
            len = 2;
            cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3;
            cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i < len)
            return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + k] & 0x3f);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

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
    uint64_t listed;
    uint64_t hidden_errors, hidden_warnings, first_hidden;
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
    uint64_t n = c->hidden_errors + c->hidden_warnings;
    if (!n)
        return;
    kf_problem p;
    memset(&p, 0, sizeof p);
    p.file = c->file;
    p.code = KF_P_PROBLEMS_NOT_LISTED;
    p.severity = c->hidden_errors ? KF_SEV_ERROR : KF_SEV_WARNING;
    p.position = c->first_hidden;
    snprintf(p.message, sizeof p.message,
             "%llu further problems of this file are not listed (%llu errors, %llu warnings; the first %d are)",
             (unsigned long long)n, (unsigned long long)c->hidden_errors, (unsigned long long)c->hidden_warnings,
             KF_PROBLEMS_LISTED_MAX);
    kf_problem_add_int(&p, "errors", (int64_t)c->hidden_errors);
    kf_problem_add_int(&p, "warnings", (int64_t)c->hidden_warnings);
    c->hidden_errors = c->hidden_warnings = 0;
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
    if (c->listed < KF_PROBLEMS_LISTED_MAX) {
        c->listed++;
        return true;
    }
    if (c->hidden_errors + c->hidden_warnings == 0)
        c->first_hidden = p->position;
    if (p->severity == KF_SEV_ERROR)
        c->hidden_errors++;
    else
        c->hidden_warnings++;
    return false;
}

void report_problem(void *ctx, const kf_problem *p) { report_problem_with(ctx, p, NULL, NULL); }

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
        out_begin(o, "problem");
        out_str(o, "file", file);
        out_uint(o, "position", p->position);
        out_opt_int(o, "offset", p->has_offset, p->offset);
        out_str(o, "code", p->code);
        out_str(o, "severity", p->severity == KF_SEV_ERROR ? "error" : "warning");
        out_str(o, "message", p->message);
        if (p->has_length)
            out_uint(o, "length", p->length);
        if (extra)
            extra(o, ectx);
        for (unsigned i = 0; i < p->nextra; i++) {
            if (p->extra[i].is_null)
                out_null(o, p->extra[i].name);
            else if (p->extra[i].is_int)
                out_int(o, p->extra[i].name, p->extra[i].i);
            else
                out_str(o, p->extra[i].name, p->extra[i].text);
        }
        out_end(o);
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

void out_leader_epochs(out *o, const char *key, const kf_leader_epoch *e, size_t n)
{
    out_arr_open(o, key);
    for (size_t i = 0; i < n; i++) {
        out_obj_open(o, NULL);
        out_int(o, "epoch", e[i].epoch);
        out_int(o, "start_offset", e[i].start_offset);
        out_obj_close(o);
    }
    out_arr_close(o);
}

void out_int32s(out *o, const char *key, bool has, const int32_t *v, size_t n)
{
    if (!has) {
        out_null(o, key);
        return;
    }
    out_arr_open(o, key);
    for (size_t i = 0; i < n; i++)
        out_int(o, NULL, v[i]);
    out_arr_close(o);
}
