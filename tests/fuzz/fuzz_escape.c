/* fuzz_escape.c: fuzz target for the one escaping rule of human-facing
 * output and the shell quoting of suggested commands (src/cli/escape.c,
 * compiled in: it is the command-line tool's). The input is a name of any
 * bytes (NULs cut it short). Checked: what the rule writes holds no byte
 * below 0x20 and no DEL, is valid UTF-8 with no C1 or reordering control,
 * and reads back (\\, \n, \r, \t, \xNN) to the name exactly; tprintf's %s
 * and %c write the same as the rule, its widths pad and its precisions cut;
 * shell_arg's word holds no control byte either and a shell reads it back
 * (as it is, '...' with '\'' for a quote, or bash's $'...' with \xNN, \\ and
 * \') to the name exactly. Any crash, sanitizer report or abort is a bug.
 *
 * Built as build/fuzz/replay_escape by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_escape -max_len=512 tests/fuzz/corpus/escape
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/cli/escape.c"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAME 512

static int hex(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

/* No control byte, valid UTF-8, no C1 or reordering control. */
static void check_shown(const char *e, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = kf_utf8_seq((const unsigned char *)e + i, n - i, &cp);
        if (!len || escaped_cp(cp))
            abort();
        i += len;
    }
}

/* The rule's escapes read back into out; its length. */
static size_t unescape(const char *e, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        if (e[i] != '\\') {
            out[k++] = e[i++];
            continue;
        }
        if (i + 1 >= n)
            abort();
        char c = e[i + 1];
        if (c == '\\' || c == 'n' || c == 'r' || c == 't') {
            out[k++] = c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : '\\';
            i += 2;
        } else if (c == 'x' && i + 3 < n && hex(e[i + 2]) >= 0 && hex(e[i + 3]) >= 0) {
            out[k++] = (char)(hex(e[i + 2]) << 4 | hex(e[i + 3]));
            i += 4;
        } else {
            abort();
        }
    }
    return k;
}

/* A shell word of shell_arg's read back as the shell would; its length. */
static size_t unquote(const char *w, char *out)
{
    size_t n = strlen(w), k = 0;
    if (w[0] == '$' && w[1] == '\'') {
        if (n < 3 || w[n - 1] != '\'')
            abort();
        for (size_t i = 2; i < n - 1;) {
            if (w[i] == '\'')
                abort(); /* a bare quote would end the word */
            if (w[i] != '\\') {
                out[k++] = w[i++];
                continue;
            }
            char c = w[i + 1];
            if (c == '\\' || c == '\'') {
                out[k++] = c;
                i += 2;
            } else if (c == 'x' && hex(w[i + 2]) >= 0 && hex(w[i + 3]) >= 0) {
                out[k++] = (char)(hex(w[i + 2]) << 4 | hex(w[i + 3]));
                i += 4;
            } else {
                abort();
            }
        }
        return k;
    }
    if (w[0] == '\'') {
        for (size_t i = 1; i < n;) {
            if (w[i] != '\'') {
                out[k++] = w[i++];
                continue;
            }
            if (i == n - 1)
                return k;
            if (strncmp(w + i, "'\\''", 4) != 0)
                abort();
            out[k++] = '\'';
            i += 4;
        }
        abort(); /* not closed */
    }
    for (size_t i = 0; i < n; i++)
        if (!shell_plain((unsigned char)w[i]))
            abort();
    memcpy(out, w, n);
    return n;
}

/* What tprintf writes for fmt and the name, into a string. */
static char *printed(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *printed(size_t *len, const char *fmt, ...)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    va_list ap;
    va_start(ap, fmt);
    tvprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[MAX_NAME + 1];
    size_t n = fuzz_text(data, size, s, sizeof s);
    char e[4 * MAX_NAME + 1], back[MAX_NAME + 1];
    esc_str(s, e, sizeof e);
    size_t en = strlen(e);
    check_shown(e, en);
    if (unescape(e, en, back) != n || memcmp(back, s, n) != 0)
        abort();

    size_t plen;
    int width = size ? data[0] % 40 : 0, prec = size > 1 ? data[1] % 20 : 0;
    char *p = printed(&plen, "%s", s);
    if (plen != en || memcmp(p, e, en) != 0)
        abort();
    free(p);
    p = printed(&plen, "<%*s|%-*s|%.*s|%c>", width, s, width, s, prec, s, n ? s[0] : 'x');
    check_shown(p, plen);
    size_t want = 1 + (en > (size_t)width ? en : (size_t)width) * 2 + 2;
    char cut[MAX_NAME + 1], ce[4 * MAX_NAME + 1], c1[8];
    size_t cn = n < (size_t)prec ? n : (size_t)prec;
    memcpy(cut, s, cn);
    cut[cn] = 0;
    char one[2] = {n ? s[0] : 'x', 0};
    want += strlen(esc_str(cut, ce, sizeof ce)) + 1 + strlen(esc_str(one, c1, sizeof c1)) + 1;
    if (plen != want)
        abort();
    free(p);

    char w[6 * MAX_NAME + 8];
    shell_arg(s, w, sizeof w);
    check_shown(w, strlen(w));
    if (unquote(w, back) != n || memcmp(back, s, n) != 0)
        abort();
    char *d = shell_arg_dup(s); /* sized for the whole word: the same */
    if (!d || strcmp(d, w) != 0)
        abort();
    free(d);
    return 0;
}
