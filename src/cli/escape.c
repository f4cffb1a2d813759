/* escape.c: the one escaping rule of human-facing output, its printf, and
 * the shell quoting of suggested commands (escape.h). */
#include "cli/escape.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "kfsck/sys/json_lines.h"

/* ---- the rule ------------------------------------------------------------------- */

/* A code point that is written as \xNN bytes: C0 and C1 controls, DEL,
 * the reordering controls. */
static bool escaped_cp(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

typedef void (*put_fn)(void *ctx, const char *p, size_t n);

static const char HEX[] = "0123456789abcdef";

/* s[0..n) by the rule, to put: runs of bytes kept as they are in one call. */
static void emit(const char *s, size_t n, put_fn put, void *ctx)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;
    while (i < n) {
        uint32_t cp = 0;
        size_t len = p[i] == '\\' ? 1 : kf_utf8_seq(p + i, n - i, &cp);
        if (p[i] != '\\' && len && !escaped_cp(cp)) {
            i += len;
            continue;
        }
        if (i > run)
            put(ctx, s + run, i - run);
        if (p[i] == '\\') {
            put(ctx, "\\\\", 2);
        } else if (p[i] == '\n') {
            put(ctx, "\\n", 2);
        } else if (p[i] == '\r') {
            put(ctx, "\\r", 2);
        } else if (p[i] == '\t') {
            put(ctx, "\\t", 2);
        } else {
            size_t k = len ? len : 1; /* an escaped code point, or one bad byte */
            for (size_t b = 0; b < k; b++) {
                char x[4] = {'\\', 'x', HEX[p[i + b] >> 4], HEX[p[i + b] & 15]};
                put(ctx, x, 4);
            }
            len = k;
        }
        i += len ? len : 1;
        run = i;
    }
    if (n > run)
        put(ctx, s + run, n - run);
}

/* ---- sinks ------------------------------------------------------------------------ */

static void put_file(void *ctx, const char *p, size_t n) { fwrite(p, 1, n, ctx); }

/* A counter of the bytes written (a padded string's escaped width). */
static void put_count(void *ctx, const char *p, size_t n)
{
    (void)p;
    *(size_t *)ctx += n;
}

/* A fixed buffer that keeps whole escapes only. */
typedef struct fbuf {
    char *p;
    size_t n, cap;
    bool full;
} fbuf;

static void put_fbuf(void *ctx, const char *p, size_t n)
{
    fbuf *b = ctx;
    if (b->full || b->n + n + 1 > b->cap) {
        b->full = true;
        return;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = 0;
}

void esc_write(FILE *f, const char *s, size_t n) { emit(s, n, put_file, f); }

char *esc_str(const char *s, char *buf, size_t cap)
{
    if (!cap)
        return buf;
    buf[0] = 0;
    fbuf b = {buf, 0, cap, false};
    emit(s, strlen(s), put_fbuf, &b);
    return buf;
}

void tputs(const char *s, FILE *f) { esc_write(f, s, strlen(s)); }

void traw(FILE *f, const char *s) { fputs(s, f); }

/* ---- printf ----------------------------------------------------------------------- */

/* What a conversion's argument is, by its length modifier. */
enum len { L_NONE, L_HH, L_H, L_L, L_LL, L_J, L_Z, L_T, L_BIG };

/* One conversion (not %s or %c) formatted by the C library into f: spec
 * is "%<flags><width>.<prec><len><conv>" with * already made numbers, built
 * from a format the compiler checked against its arguments (tprintf's
 * format attribute), so a format the library is handed at run time is safe
 * here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int one_number(FILE *f, const char *spec, char conv, enum len len, va_list *ap)
{
    switch (conv) {
    case 'd':
    case 'i':
        switch (len) {
        case L_L: return fprintf(f, spec, va_arg(*ap, long));
        case L_LL: return fprintf(f, spec, va_arg(*ap, long long));
        case L_J: return fprintf(f, spec, va_arg(*ap, intmax_t));
        case L_Z:
        case L_T: return fprintf(f, spec, va_arg(*ap, ptrdiff_t));
        default: return fprintf(f, spec, va_arg(*ap, int));
        }
    case 'u':
    case 'o':
    case 'x':
    case 'X':
        switch (len) {
        case L_L: return fprintf(f, spec, va_arg(*ap, unsigned long));
        case L_LL: return fprintf(f, spec, va_arg(*ap, unsigned long long));
        case L_J: return fprintf(f, spec, va_arg(*ap, uintmax_t));
        case L_Z:
        case L_T: return fprintf(f, spec, va_arg(*ap, size_t));
        default: return fprintf(f, spec, va_arg(*ap, unsigned));
        }
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        if (len == L_BIG)
            return fprintf(f, spec, va_arg(*ap, long double));
        return fprintf(f, spec, va_arg(*ap, double));
    case 'p': return fprintf(f, spec, va_arg(*ap, void *));
    default: return -1;
    }
}
#pragma GCC diagnostic pop

/* A FILE sink that counts what it writes. */
typedef struct cfile {
    FILE *f;
    size_t n;
} cfile;

static void put_cfile(void *ctx, const char *p, size_t n)
{
    cfile *c = ctx;
    fwrite(p, 1, n, c->f);
    c->n += n;
}

/* s[0..n) escaped into c, padded to width (left-justified with left): the
 * escaped bytes are counted first, then written. */
static void one_string(cfile *c, const char *s, size_t n, int width, bool left)
{
    size_t len = 0;
    if (width > 0)
        emit(s, n, put_count, &len);
    size_t pad = width > 0 && (size_t)width > len ? (size_t)width - len : 0;
    for (size_t i = 0; !left && i < pad; i++)
        put_cfile(c, " ", 1);
    emit(s, n, put_cfile, c);
    for (size_t i = 0; left && i < pad; i++)
        put_cfile(c, " ", 1);
}

int tvprintf(FILE *f, const char *fmt, va_list ap0)
{
    va_list ap;
    va_copy(ap, ap0);
    const char *p = fmt, *run = fmt;
    cfile c = {f, 0};
    bool failed = false;
    while (*p) {
        if (*p != '%') {
            p++;
            continue;
        }
        if (p > run)
            put_cfile(&c, run, (size_t)(p - run));
        const char *start = p++;
        if (*p == '%') {
            put_cfile(&c, "%", 1);
            run = ++p;
            continue;
        }
        char spec[64];
        size_t k = 0;
        spec[k++] = '%';
        bool left = false;
        while (*p && strchr("-+ #0'", *p)) {
            left |= *p == '-';
            if (k < 8)
                spec[k++] = *p;
            p++;
        }
        int width = -1, prec = -1;
        if (*p == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                left = true;
                width = -width;
            }
            p++;
        } else if (*p >= '0' && *p <= '9') {
            width = 0;
            while (*p >= '0' && *p <= '9')
                width = width * 10 + (*p++ - '0');
        }
        if (*p == '.') {
            p++;
            prec = 0;
            if (*p == '*') {
                prec = va_arg(ap, int);
                p++;
            } else {
                while (*p >= '0' && *p <= '9')
                    prec = prec * 10 + (*p++ - '0');
            }
        }
        enum len len = L_NONE;
        if (p[0] == 'h' && p[1] == 'h') {
            len = L_HH;
            p += 2;
        } else if (p[0] == 'l' && p[1] == 'l') {
            len = L_LL;
            p += 2;
        } else if (*p == 'h' || *p == 'l' || *p == 'j' || *p == 'z' || *p == 't' || *p == 'L') {
            len = *p == 'h' ? L_H : *p == 'l' ? L_L : *p == 'j' ? L_J : *p == 'z' ? L_Z : *p == 't' ? L_T : L_BIG;
            p++;
        }
        char conv = *p ? *p++ : 0;
        run = p;
        if (conv == 's' && len != L_L) {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            size_t n = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
            one_string(&c, s, n, width, left);
            continue;
        }
        if (conv == 'c' && len != L_L) {
            char ch = (char)va_arg(ap, int);
            one_string(&c, &ch, 1, width, left);
            continue;
        }
        /* a number: the C library, with * made numbers */
        if (width >= 0)
            k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", width);
        if (prec >= 0)
            k += (size_t)snprintf(spec + k, sizeof spec - k, ".%d", prec);
        static const char *const LEN[] = {"", "hh", "h", "l", "ll", "j", "z", "t", "L"};
        k += (size_t)snprintf(spec + k, sizeof spec - k, "%s%c", LEN[len], conv);
        int got = k < sizeof spec ? one_number(f, spec, conv, len, &ap) : -1;
        if (got < 0) {
            put_cfile(&c, start, (size_t)(p - start)); /* not a conversion we know: as written */
            failed = true;
        } else {
            c.n += (size_t)got;
        }
    }
    if (p > run)
        put_cfile(&c, run, (size_t)(p - run));
    va_end(ap);
    return failed || ferror(f) ? -1 : (int)c.n;
}

int tprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tvprintf(f, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- shell arguments ------------------------------------------------------------------ */

static bool shell_plain(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c);
}

char *shell_arg(const char *s, char *buf, size_t cap)
{
    if (!cap)
        return buf;
    size_t n = strlen(s);
    bool plain = n > 0, needs_escape = false;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0;
        size_t len = kf_utf8_seq((const unsigned char *)s + i, n - i, &cp);
        plain &= len == 1 && shell_plain((unsigned char)s[i]);
        needs_escape |= !len || escaped_cp(cp);
        i += len ? len : 1;
    }
    fbuf b = {buf, 0, cap, false};
    buf[0] = 0;
    if (plain) {
        put_fbuf(&b, s, n);
        return buf;
    }
    if (!needs_escape) { /* '...' with '\'' for each quote */
        put_fbuf(&b, "'", 1);
        for (size_t i = 0; i < n && !b.full; i++)
            if (s[i] == '\'')
                put_fbuf(&b, "'\\''", 4);
            else
                put_fbuf(&b, s + i, 1);
    } else { /* $'...': a quote and a backslash escaped, every other escaped byte \xNN */
        put_fbuf(&b, "$'", 2);
        for (size_t i = 0; i < n && !b.full;) {
            uint32_t cp = 0;
            size_t len = kf_utf8_seq((const unsigned char *)s + i, n - i, &cp);
            if (len && !escaped_cp(cp) && s[i] != '\'' && s[i] != '\\') {
                put_fbuf(&b, s + i, len);
                i += len;
                continue;
            }
            if (s[i] == '\'' || s[i] == '\\') {
                char e[2] = {'\\', s[i]};
                put_fbuf(&b, e, 2);
                i++;
                continue;
            }
            for (size_t k = 0; k < (len ? len : 1); k++) {
                unsigned char c = (unsigned char)s[i + k];
                char x[4] = {'\\', 'x', HEX[c >> 4], HEX[c & 15]};
                put_fbuf(&b, x, 4);
            }
            i += len ? len : 1;
        }
    }
    if (b.full) { /* cut short: close the quote where there is room */
        size_t keep = cap > 2 ? cap - 2 : 0;
        if (b.n > keep)
            b.n = keep;
        b.full = false;
        buf[b.n] = 0;
    }
    put_fbuf(&b, "'", 1);
    return buf;
}

char *shell_arg_dup(const char *s)
{
    size_t cap = 4 * strlen(s) + 4; /* every byte \xNN, and $'' */
    char *buf = malloc(cap);
    return buf ? shell_arg(s, buf, cap) : NULL;
}

void tshell(FILE *f, const char *before, const char *arg)
{
    fputs(before, f);
    char small[1024];
    size_t cap = 4 * strlen(arg) + 4; /* every byte \xNN, and $'' */
    char *buf = cap <= sizeof small ? small : malloc(cap);
    if (!buf) { /* out of memory: the word cut short, still quoted */
        buf = small;
        cap = sizeof small;
    }
    fputs(shell_arg(arg, buf, cap), f);
    if (buf != small)
        free(buf);
}
