/* fuzz_report.c: fuzz target for the report's escapes
 * (src/jobs/report/report_out.c, report_json.c) and the JSON-lines writer's
 * strings (src/bytes/json_lines.c): the input, any bytes, is a name from a
 * damaged disk, written as HTML text (rb_text), as a JSON string inside a
 * <script> element (kf_jsonl_strn with KF_JSONL_SCRIPT, and a whole problem
 * line of a command's block through jl_script), as a JSON string of a
 * command's --json (kf_jsonl_strn), and percent-encoded for a data: URL
 * (rb_percent). Checked: the HTML text holds no < > " ' nor a control byte,
 * DEL, byte that is not UTF-8 or character that reorders text, and each &
 * starts one of the five entities; the script's JSON string holds no < > &
 * nor control byte, and Jansson reads it back as the name (bytes that are
 * not UTF-8 as U+FFFD); the --json string holds no control byte and reads
 * back as the name (when it is not UTF-8, every byte from 0x80 up as
 * U+FFFD); the script element's text holds no "</script" nor
 * "<!--"; the percent-encoding decodes to the name. Any crash, sanitizer
 * report or abort is a bug.
 *
 * Built as build/fuzz/replay_report by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_report -max_len=4096 tests/fuzz/corpus/report
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobs/report/report_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAME 4096

/* Whether p[0..n) is valid UTF-8 (the fuzzer's own check, independent of the escapes'). */
static bool utf8_ok(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (!len || n - i < len)
            return false;
        uint32_t v = len == 1 ? c : c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                return false;
            v = v << 6 | (p[i + k] & 0x3f);
        }
        if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
            (v >= 0xd800 && v <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

/* The code point of the UTF-8 sequence at p (valid, as checked before), and its length. */
static size_t decode(const unsigned char *p, uint32_t *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    size_t len = (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : 4;
    uint32_t v = p[0] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < len; k++)
        v = v << 6 | (p[k] & 0x3f);
    *cp = v;
    return len;
}

static void check_html(const char *name, size_t n)
{
    rbuf b;
    rb_init(&b, SIZE_MAX);
    rb_textn(&b, name, n);
    if (b.oom)
        abort();
    const unsigned char *p = (const unsigned char *)b.p;
    if (b.n && !utf8_ok(p, b.n))
        abort();
    for (size_t i = 0; i < b.n;) {
        unsigned char c = p[i];
        if (c == '<' || c == '>' || c == '"' || c == '\'' || c < 0x20 || c == 0x7f)
            abort();
        if (c == '&') {
            static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
            bool ok = false;
            for (size_t k = 0; k < 5 && !ok; k++)
                ok = b.n - i >= strlen(ent[k]) && !memcmp(p + i, ent[k], strlen(ent[k]));
            if (!ok)
                abort();
        }
        uint32_t cp;
        size_t len = decode(p + i, &cp);
        if ((cp >= 0x80 && cp < 0xa0) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
            (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff)
            abort();
        i += len;
    }
    rb_free(&b);
}

/* The name as JSON reads it back: its bytes when UTF-8, else each byte of a
 * sequence that is not valid as U+FFFD (in a script), or every byte from
 * 0x80 up as U+FFFD (--json). */
static void expected_json(const char *name, size_t n, bool script, rbuf *e)
{
    const unsigned char *u = (const unsigned char *)name;
    bool whole = script || utf8_ok(u, n);
    for (size_t i = 0; i < n;) {
        size_t len = u[i] < 0x80 ? 1 : (u[i] & 0xe0) == 0xc0 ? 2 : (u[i] & 0xf0) == 0xe0 ? 3 : (u[i] & 0xf8) == 0xf0 ? 4 : 0;
        if (len && i + len <= n && (len == 1 || whole) && utf8_ok(u + i, len)) {
            rb_put(e, name + i, len);
            i += len;
        } else {
            rb_puts(e, "\xef\xbf\xbd");
            i++;
        }
    }
}

static void to_rbuf(void *ctx, const char *p, size_t n, unsigned how)
{
    (void)how;
    rb_put(ctx, p, n);
}

static void check_json(const char *name, size_t n, bool script)
{
    rbuf b, e;
    rb_init(&b, SIZE_MAX);
    rb_init(&e, SIZE_MAX);
    kf_jsonl w;
    kf_jsonl_init(&w, script ? KF_JSONL_SCRIPT : 0, to_rbuf, &b);
    kf_jsonl_strn(&w, NULL, name, n);
    kf_jsonl_flush(&w);
    kf_jsonl_free(&w);
    expected_json(name, n, script, &e);
    if (b.oom || e.oom || b.n < 2 || b.p[0] != '"' || b.p[b.n - 1] != '"')
        abort();
    for (size_t i = 0; i < b.n; i++) {
        unsigned char c = (unsigned char)b.p[i];
        if ((script && (c == '<' || c == '>' || c == '&')) || c < 0x20 || c == 0x7f)
            abort();
    }
    json_error_t err;
    json_t *j = json_loadb(b.p, b.n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!j || !json_is_string(j) || json_string_length(j) != e.n || (e.n && memcmp(json_string_value(j), e.p, e.n)))
        abort();
    json_decref(j);
    rb_free(&b);
    rb_free(&e);
}

static void check_script(const char *name)
{
    jlines j;
    jl_init(&j, "scan", 1 << 20);
    kf_problem p;
    memset(&p, 0, sizeof p);
    p.code = name;
    p.file = name;
    size_t l = strnlen(name, sizeof p.message - 1);
    memcpy(p.message, name, l);
    p.message[l] = 0;
    kf_problem_add_text(&p, "field", name);
    kf_problem_json(&j.w, &p, NULL, NULL, NULL);
    rbuf page;
    rb_init(&page, SIZE_MAX);
    jl_script(&page, &j);
    if (page.oom || j.out.oom)
        abort();
    /* the element's text: from the end of its start tag to the last "</script>" */
    const char *start = memchr(page.p, '>', page.n);
    const char *end = page.p + page.n - strlen("</script>\n");
    if (!start || end < start || memcmp(end, "</script>", 9))
        abort();
    for (const char *q = start + 1; q + 7 <= end; q++)
        if (!strncasecmp(q, "</script", 8) || !memcmp(q, "<!--", 4))
            abort();
    rb_free(&page);
    jl_free(&j);
}

static void check_percent(const char *name, size_t n)
{
    rbuf b;
    rb_init(&b, SIZE_MAX);
    rb_percent(&b, name, n);
    size_t k = 0;
    for (size_t i = 0; i < b.n; k++) {
        unsigned char c;
        if (b.p[i] == '%') {
            if (i + 2 >= b.n)
                abort();
            char hex[3] = {b.p[i + 1], b.p[i + 2], 0};
            c = (unsigned char)strtoul(hex, NULL, 16);
            i += 3;
        } else {
            c = (unsigned char)b.p[i++];
            if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~", c) || !c)
                abort();
        }
        if (k >= n || c != (unsigned char)name[k])
            abort();
    }
    if (k != n)
        abort();
    rb_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_NAME)
        size = MAX_NAME;
    char name[MAX_NAME + 1];
    memcpy(name, data, size);
    name[size] = 0;
    check_html(name, size);
    check_json(name, size, true);
    check_json(name, size, false);
    check_percent(name, size);
    check_script(name); /* up to the first NUL: the problem's fields are C strings */
    return 0;
}
