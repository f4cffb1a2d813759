/* coord_partition.c: Java's String.hashCode over UTF-8 bytes and the rule
 * that puts a group or transactional id on a coordinator partition
 * (Utils.abs(hashCode) % partitions; docs/formats.md §1.3, §11.4). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/coord.h"

static bool not_cont(uint8_t b) { return (b & 0xc0) != 0x80; }

/* Java's String.hashCode of the string `new String(bytes, UTF_8)` makes:
 * UTF-8 decoded to UTF-16 code units the way the JDK's String decoder does it
 * (JDK 9+ String.decodeUTF8_UTF16): each malformed sequence becomes one
 * U+FFFD, with the same rule as the JDK for how many bytes it swallows (e.g.
 * a bad lead byte: 1; an encoded surrogate ED A0 80: 3; a sequence cut by
 * the end of the input: all its bytes). */
int32_t kf_java_string_hash(const uint8_t *s, size_t n)
{
    uint32_t h = 0;
    const uint32_t repl = 0xfffd;
    size_t i = 0;
    if (!s)
        return 0;
#define PUT(u) (h = 31u * h + (uint32_t)(u))
    while (i < n) {
        uint8_t b1 = s[i++];
        if (b1 < 0x80) {
            PUT(b1);
        } else if (b1 >= 0xc2 && b1 <= 0xdf) {
            if (i < n) {
                uint8_t b2 = s[i];
                if (not_cont(b2)) {
                    PUT(repl);
                } else {
                    i++;
                    PUT(((uint32_t)(b1 & 0x1f) << 6) | (b2 & 0x3f));
                }
                continue;
            }
            PUT(repl);
            break;
        } else if (b1 >= 0xe0 && b1 <= 0xef) {
            if (i + 1 < n) {
                uint8_t b2 = s[i], b3 = s[i + 1];
                bool bad = (b1 == 0xe0 && (b2 & 0xe0) == 0x80) || not_cont(b2) || not_cont(b3);
                if (bad) {
                    PUT(repl);
                    i += ((b1 == 0xe0 && (b2 & 0xe0) == 0x80) || not_cont(b2)) ? 0 : 1;
                } else {
                    uint32_t c = ((uint32_t)(b1 & 0x0f) << 12) | ((uint32_t)(b2 & 0x3f) << 6) | (b3 & 0x3f);
                    i += 2;
                    PUT(c >= 0xd800 && c <= 0xdfff ? repl : c);
                }
                continue;
            }
            if (i < n && ((b1 == 0xe0 && (s[i] & 0xe0) == 0x80) || not_cont(s[i]))) {
                PUT(repl);
                continue;
            }
            PUT(repl);
            break;
        } else if (b1 >= 0xf0 && b1 <= 0xf7) {
            if (i + 2 < n) {
                uint8_t b2 = s[i], b3 = s[i + 1], b4 = s[i + 2];
                uint32_t uc = ((uint32_t)(b1 & 0x07) << 18) | ((uint32_t)(b2 & 0x3f) << 12) |
                              ((uint32_t)(b3 & 0x3f) << 6) | (b4 & 0x3f);
                if (not_cont(b2) || not_cont(b3) || not_cont(b4) || uc < 0x10000 || uc > 0x10ffff) {
                    PUT(repl);
                    /* JDK malformed4: how many bytes the bad sequence takes */
                    if (b1 > 0xf4 || (b1 == 0xf0 && (b2 < 0x90 || b2 > 0xbf)) ||
                        (b1 == 0xf4 && (b2 & 0xf0) != 0x80) || not_cont(b2))
                        i += 0;
                    else if (not_cont(b3))
                        i += 1;
                    else
                        i += 2;
                } else {
                    uc -= 0x10000;
                    PUT(0xd800 + (uc >> 10));
                    PUT(0xdc00 + (uc & 0x3ff));
                    i += 3;
                }
                continue;
            }
            if (b1 > 0xf4 ||
                (i < n && ((b1 == 0xf0 && (s[i] < 0x90 || s[i] > 0xbf)) ||
                           (b1 == 0xf4 && (s[i] & 0xf0) != 0x80) || not_cont(s[i])))) {
                PUT(repl);
                continue;
            }
            i++;
            PUT(repl);
            if (i < n && not_cont(s[i]))
                continue;
            break;
        } else {
            PUT(repl);
        }
    }
#undef PUT
    return (int32_t)h;
}

int32_t kf_coordinator_partition(const uint8_t *utf8, size_t n, int32_t partitions)
{
    if (partitions <= 0)
        return -1;
    int32_t h = kf_java_string_hash(utf8, n);
    int32_t a = h == INT32_MIN ? 0 : (h < 0 ? -h : h); /* Utils.abs */
    return a % partitions;
}
