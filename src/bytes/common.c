/* common.c: error strings, the problem-report helper, the cap on the
 * problems listed of a file (kf_problem_cap), and byte counts for people
 * (kf_format_bytes: the library's advice texts and the CLI's tables). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bytes/error.h"
#include "bytes/report.h"
#include "kfsck/kfsck.h"

const char *kf_version(void) { return KFSCK_VERSION; }

int kf_version_number(void) { return KFSCK_VERSION_NUMBER; }

const char *kf_err_str(int e)
{
    switch (e < 0 ? -e : e) {
    case KF_OK: return "ok";
    case KF_ERR_TRUNCATED: return "truncated";
    case KF_ERR_CORRUPT: return "corrupt";
    case KF_ERR_UNSUPPORTED: return "unsupported";
    case KF_ERR_TOO_BIG: return "too big";
    case KF_ERR_NOMEM: return "out of memory";
    case KF_ERR_IO: return "I/O error";
    }
    return "unknown error";
}

static void problem_vfill(kf_problem *p, const char *code, kf_severity sev, uint64_t position, bool has_offset,
                          int64_t offset, const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));
static void problem_vfill(kf_problem *p, const char *code, kf_severity sev, uint64_t position, bool has_offset,
                          int64_t offset, const char *fmt, va_list ap)
{
    memset(p, 0, sizeof *p);
    p->code = code;
    p->severity = sev;
    p->position = position;
    p->has_offset = has_offset;
    p->offset = has_offset ? offset : 0;
    vsnprintf(p->message, sizeof p->message, fmt, ap);
}

void kf_vreport_in(kf_problem_fn fn, void *ctx, const char *file, const char *code, kf_severity sev,
                   uint64_t position, bool has_offset, int64_t offset, const char *fmt, va_list ap)
{
    if (!fn)
        return;
    kf_problem p;
    problem_vfill(&p, code, sev, position, has_offset, offset, fmt, ap);
    p.file = file;
    fn(ctx, &p);
}

void kf_problem_fill(kf_problem *p, const char *code, kf_severity sev, uint64_t position, bool has_offset,
                     int64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    problem_vfill(p, code, sev, position, has_offset, offset, fmt, ap);
    va_end(ap);
}

void kf_report(kf_problem_fn fn, void *ctx, const char *code, kf_severity sev, uint64_t position, bool has_offset,
               int64_t offset, const char *fmt, ...)
{
    if (!fn)
        return;
    va_list ap;
    va_start(ap, fmt);
    kf_vreport_in(fn, ctx, NULL, code, sev, position, has_offset, offset, fmt, ap);
    va_end(ap);
}

void kf_problem_pass(kf_problem_fn fn, void *ctx, const kf_problem *p, const char *file, uint64_t *errors,
                     uint64_t *warnings)
{
    if (errors)
        ++*(p->severity == KF_SEV_ERROR ? errors : warnings);
    if (!fn)
        return;
    if (p->file || !file) {
        fn(ctx, p);
        return;
    }
    kf_problem q = *p;
    q.file = file;
    fn(ctx, &q);
}

void kf_report_in(kf_problem_fn fn, void *ctx, const char *file, const char *code, kf_severity sev,
                  uint64_t position, bool has_offset, int64_t offset, const char *fmt, ...)
{
    if (!fn)
        return;
    va_list ap;
    va_start(ap, fmt);
    kf_vreport_in(fn, ctx, file, code, sev, position, has_offset, offset, fmt, ap);
    va_end(ap);
}

bool kf_problem_cap_take(kf_problem_cap *c, const kf_problem *p)
{
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

bool kf_problem_cap_flush(kf_problem_cap *c, const char *file, kf_problem *p)
{
    uint64_t n = c->hidden_errors + c->hidden_warnings;
    if (!n)
        return false;
    kf_problem_fill(p, KF_P_PROBLEMS_NOT_LISTED, c->hidden_errors ? KF_SEV_ERROR : KF_SEV_WARNING, c->first_hidden,
                    false, 0,
                    "%" PRIu64 " further problems of this file are not listed (%" PRIu64 " errors, %" PRIu64
                    " warnings; the first %d are)",
                    n, c->hidden_errors, c->hidden_warnings, KF_PROBLEMS_LISTED_MAX);
    p->file = file && *file ? file : NULL;
    kf_problem_add_int(p, "errors", (int64_t)c->hidden_errors);
    kf_problem_add_int(p, "warnings", (int64_t)c->hidden_warnings);
    c->hidden_errors = c->hidden_warnings = 0;
    return true;
}

/* The next free field of p->extra, emptied and named; NULL when all are taken. */
static struct kf_problem_field *add_field(kf_problem *p, const char *name)
{
    if (p->nextra >= sizeof p->extra / sizeof p->extra[0])
        return NULL;
    struct kf_problem_field *f = &p->extra[p->nextra++];
    memset(f, 0, sizeof *f);
    f->name = name;
    return f;
}

void kf_problem_add_int(kf_problem *p, const char *name, int64_t v)
{
    struct kf_problem_field *f = add_field(p, name);
    if (f) {
        f->is_int = true;
        f->i = v;
    }
}

void kf_problem_add_text(kf_problem *p, const char *name, const char *text)
{
    struct kf_problem_field *f = add_field(p, name);
    if (f)
        snprintf(f->text, sizeof f->text, "%s", text);
}

void kf_problem_add_null(kf_problem *p, const char *name)
{
    struct kf_problem_field *f = add_field(p, name);
    if (f)
        f->is_null = true;
}

void kf_format_bytes(uint64_t n, const char *below_kib, char *buf, size_t cap)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (n < 1024) {
        snprintf(buf, cap, "%" PRIu64 " %s", n, below_kib);
        return;
    }
    double v = (double)n / 1024;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", v, units[u]);
}

void kf_format_duration(int64_t ms, char *buf, size_t cap)
{
    uint64_t v = ms < 0 ? 0 - (uint64_t)ms : (uint64_t)ms;
    const char *sign = ms < 0 ? "-" : "";
    uint64_t s = v / 1000, m = s / 60, h = m / 60, d = h / 24;
    if (v < 1000)
        snprintf(buf, cap, "%s%" PRIu64 "ms", sign, v);
    else if (s < 60)
        snprintf(buf, cap, "%s%" PRIu64 "s", sign, s);
    else if (m < 60)
        snprintf(buf, cap, "%s%" PRIu64 "m%02" PRIu64 "s", sign, m, s % 60);
    else if (h < 24)
        snprintf(buf, cap, "%s%" PRIu64 "h%02" PRIu64 "m", sign, h, m % 60);
    else
        snprintf(buf, cap, "%s%" PRIu64 "d%02" PRIu64 "h", sign, d, h % 24);
}

void kf_format_time(int64_t ms, bool iso, char *buf, size_t cap)
{
    int64_t sec = ms / 1000, frac = ms % 1000;
    if (frac < 0) { /* floor, for times before 1970 */
        sec--;
        frac += 1000;
    }
    time_t t = (time_t)sec;
    struct tm tm;
    if ((int64_t)t != sec || !gmtime_r(&t, &tm) || tm.tm_year + 1900 < 0 || tm.tm_year + 1900 > 9999) {
        snprintf(buf, cap, "%" PRId64, ms);
        return;
    }
    if (iso)
        snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec, (int)frac);
    else
        snprintf(buf, cap, "%04d-%02d-%02d %02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min, tm.tm_sec);
}
