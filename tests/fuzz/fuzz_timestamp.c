/* fuzz_timestamp.c: fuzz target for the times and durations a user types:
 * kf_timestamp_parse (src/bytes/timestamp.c: epoch ms or ISO 8601, the
 * --as-of / --from-time / --now options) and kf_parse_duration_ms
 * (src/jobs/stats/stats.c: 500ms, 10s, 1h, ...). The input, up to its first NUL,
 * is the string. An accepted time is checked against glibc's timegm: the
 * date and time fields, read back at their fixed places in the string, the
 * fraction cut to milliseconds and the zone taken off, must give the same
 * epoch milliseconds; epoch digits must equal strtoll's value; the string
 * with an 'x' after it must be refused. A refusal must leave a reason
 * (kf_error_last). An accepted duration must be > 0 and its digits times the
 * unit. Any crash, sanitizer report or abort is a bug.
 *
 * Built as build/fuzz/replay_timestamp by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_timestamp -max_len=64 tests/fuzz/corpus/timestamp
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TEXT 64

static int num(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* What s, which kf_timestamp_parse accepted and which is not all digits,
 * means by timegm: YYYY-MM-DD[sepHH:MM[:SS[.fff...]]zone]. */
static int64_t expected_ms(const char *s, size_t n)
{
    struct tm tm = {0};
    tm.tm_year = num(s, 4) - 1900;
    tm.tm_mon = num(s + 5, 2) - 1;
    tm.tm_mday = num(s + 8, 2);
    int64_t frac = 0, zone_min = 0;
    if (n > 10) {
        tm.tm_hour = num(s + 11, 2);
        tm.tm_min = num(s + 14, 2);
        size_t i = 16;
        if (s[i] == ':') {
            tm.tm_sec = num(s + 17, 2);
            i = 19;
            if (s[i] == '.' || s[i] == ',') {
                i++;
                int k = 0;
                for (; s[i] >= '0' && s[i] <= '9'; i++, k++)
                    if (k < 3)
                        frac = frac * 10 + (s[i] - '0');
                for (; k < 3; k++)
                    frac *= 10;
            }
        }
        if (s[i] == '+' || s[i] == '-') {
            int64_t h = num(s + i + 1, 2), m = 0;
            if (s[i + 3] == ':')
                m = num(s + i + 4, 2);
            else if (s[i + 3])
                m = num(s + i + 3, 2);
            zone_min = (s[i] == '-' ? -1 : 1) * (h * 60 + m);
        } else if (s[i] != 'Z' && s[i] != 'z') {
            abort();
        }
    }
    time_t t = timegm(&tm);
    return (int64_t)t * 1000 + frac - zone_min * 60000;
}

static void check_time(const char *s, size_t n)
{
    int64_t ms = 0;
    if (kf_timestamp_parse(s, &ms) != KF_OK) {
        if (!kf_error_last()->message[0])
            abort();
        return;
    }
    if (strspn(s, "0123456789") == n) {
        errno = 0;
        long long v = strtoll(s, NULL, 10);
        if (errno || v != ms)
            abort();
    } else if (n < 10 || expected_ms(s, n) != ms) {
        abort();
    }
    char longer[MAX_TEXT + 2];
    memcpy(longer, s, n);
    memcpy(longer + n, "x", 2);
    int64_t other;
    if (kf_timestamp_parse(longer, &other) == KF_OK)
        abort();
}

static void check_duration(const char *s)
{
    int64_t ms = 0;
    if (kf_parse_duration_ms(s, &ms) != 0)
        return;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    static const struct { const char *unit; int64_t mul; } units[] = {
        {"", 1}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"min", 60000},
        {"h", 3600000}, {"d", 86400000}, {"w", 7 * (int64_t)86400000},
    };
    int64_t mul = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcmp(end, units[i].unit))
            mul = units[i].mul;
    if (ms <= 0 || mul == 0 || (unsigned long long)ms != v * (unsigned long long)mul)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[MAX_TEXT + 1];
    size_t n = fuzz_text(data, size, s, sizeof s);
    check_time(s, n);
    check_duration(s);
    return 0;
}
