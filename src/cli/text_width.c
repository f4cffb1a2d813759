/* text_width.c: terminal columns of UTF-8 text (text_width.h). The wide
 * ranges are Unicode's East Asian Wide and Fullwidth blocks and the emoji
 * planes; zero width: combining marks, zero-width spaces and joiners,
 * variation selectors. A table of ranges, not the C library's wcwidth,
 * so the result does not depend on the locale. */
#include "cli/text_width.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/escape.h"

typedef struct range {
    uint32_t lo, hi;
} range;

static const range ZERO[] = {
    {0x0300, 0x036f}, {0x0483, 0x0489}, {0x0591, 0x05bd}, {0x0610, 0x061a}, {0x064b, 0x065f},
    {0x200b, 0x200f}, {0x202a, 0x202e}, {0x2060, 0x2064}, {0x20d0, 0x20ff}, {0xfe00, 0xfe0f},
    {0xfe20, 0xfe2f}, {0xfeff, 0xfeff}, {0xe0100, 0xe01ef},
};

static const range WIDE[] = {
    {0x1100, 0x115f},   {0x2e80, 0x303e},   {0x3041, 0x33ff},   {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
    {0xa000, 0xa4cf},   {0xac00, 0xd7a3},   {0xf900, 0xfaff},   {0xfe30, 0xfe4f}, {0xff00, 0xff60},
    {0xffe0, 0xffe6},   {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
};

static bool in(const range *r, size_t n, uint32_t cp)
{
    for (size_t i = 0; i < n; i++)
        if (cp >= r[i].lo && cp <= r[i].hi)
            return true;
    return false;
}

/* The code point at s (*len: its bytes), or -1 for a byte that does not
 * start a valid sequence (*len 1). */
static int32_t decode(const unsigned char *s, size_t *len)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    *len = 1;
    if (n == 0)
        return -1;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    *len = n;
    return (int32_t)cp;
}

int text_width(const char *s)
{
    int w = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t len;
        int32_t cp = decode(p, &len);
        p += len;
        if (cp < 0)
            w++;
        else if (in(ZERO, sizeof ZERO / sizeof ZERO[0], (uint32_t)cp))
            continue;
        else
            w += in(WIDE, sizeof WIDE / sizeof WIDE[0], (uint32_t)cp) ? 2 : 1;
    }
    return w;
}

/* s escaped (escape.h) into a malloc'd string; NULL when out of memory. */
static char *shown(const char *s)
{
    size_t cap = strlen(s) * 4 + 1;
    char *e = malloc(cap);
    return e ? esc_str(s, e, cap) : NULL;
}

int text_width_shown(const char *s)
{
    char *e = shown(s);
    int w = text_width(e ? e : s);
    free(e);
    return w;
}

void fput_padded(FILE *f, const char *s, int width)
{
    /* escaped (escape.h), and padded by the width of what is shown */
    char *e = shown(s);
    if (!e) {
        tputs(s, f);
        return;
    }
    fputs(e, f);
    for (int w = text_width(e); w < width; w++)
        fputc(' ', f);
    free(e);
}
