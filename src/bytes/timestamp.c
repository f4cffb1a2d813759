/* timestamp.c: epoch milliseconds or ISO 8601 to epoch milliseconds
 * (include/kfsck/timestamp.h). Hand-written: glibc's strptime has no
 * fractions or "+08:00" zones and reads local time, and the accepted forms
 * are few; the civil-date arithmetic is the proleptic Gregorian day count
 * (days_from_civil), exact for every year 0000..9999. */
#include "kfsck/timestamp.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "bytes/error.h"

typedef struct tparse {
    const char *s;
    size_t i;
    const char *why;   /* sticky: the first reason the string is refused */
} tparse;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Exactly n digits as a number; sets why when they are not there. */
static int digits(tparse *t, int n, const char *what)
{
    int v = 0;
    if (t->why)
        return 0;
    for (int k = 0; k < n; k++) {
        char c = t->s[t->i];
        if (!is_digit(c)) {
            t->why = what;
            return 0;
        }
        v = v * 10 + (c - '0');
        t->i++;
    }
    return v;
}

static void expect(tparse *t, char c, const char *what)
{
    if (t->why)
        return;
    if (t->s[t->i] != c)
        t->why = what;
    else
        t->i++;
}

static bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int month_days(int y, int m)
{
    static const int d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : d[m - 1];
}

/* Days from 1970-01-01 to y-m-d (may be negative). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int64_t parse_epoch_ms(tparse *t)
{
    int64_t v = 0;
    for (; is_digit(t->s[t->i]); t->i++) {
        if (v > (INT64_MAX - 9) / 10) {
            t->why = "epoch milliseconds out of range";
            return 0;
        }
        v = v * 10 + (t->s[t->i] - '0');
    }
    return v;
}

/* The zone after a time: Z, or +/-HH[[:]MM]; its offset east of UTC in minutes. */
static int parse_zone(tparse *t)
{
    char c = t->s[t->i];
    if (c == 'Z' || c == 'z') {
        t->i++;
        return 0;
    }
    if (c != '+' && c != '-') {
        t->why = c ? "a time zone (Z or +HH:MM) expected after the time"
                   : "a date and time needs a time zone (Z or +HH:MM)";
        return 0;
    }
    t->i++;
    int h = digits(t, 2, "zone hours (two digits) expected"), m = 0;
    if (t->s[t->i] == ':') {
        t->i++;
        m = digits(t, 2, "zone minutes (two digits) expected");
    } else if (is_digit(t->s[t->i])) {
        m = digits(t, 2, "zone minutes (two digits) expected");
    }
    if (!t->why && (h > 18 || m > 59))
        t->why = "zone offset out of range";
    return (c == '-' ? -1 : 1) * (h * 60 + m);
}

int kf_timestamp_parse(const char *s, int64_t *epoch_ms)
{
    if (!s || !*s)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "an empty time");
    tparse t = {s, 0, NULL};
    size_t n = 0;
    while (is_digit(s[n]))
        n++;
    if (!s[n]) {
        int64_t v = parse_epoch_ms(&t);
        if (t.why)
            return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "%s", t.why);
        *epoch_ms = v;
        return KF_OK;
    }
    int y = digits(&t, 4, "a year of four digits expected");
    expect(&t, '-', "'-' expected after the year");
    int mo = digits(&t, 2, "a month of two digits expected");
    expect(&t, '-', "'-' expected after the month");
    int d = digits(&t, 2, "a day of two digits expected");
    if (!t.why && (mo < 1 || mo > 12))
        t.why = "month out of range";
    if (!t.why && (d < 1 || d > month_days(y, mo)))
        t.why = "day out of range for its month";
    int64_t ms = 0;
    int zone_min = 0;
    char sep = s[t.i];
    if (!t.why && sep) {
        if (sep != 'T' && sep != 't' && sep != ' ')
            t.why = "'T' expected after the date";
        t.i++;
        int h = digits(&t, 2, "hours (two digits) expected");
        expect(&t, ':', "':' expected after the hours");
        int mi = digits(&t, 2, "minutes (two digits) expected");
        int sec = 0, frac_ms = 0;
        if (!t.why && s[t.i] == ':') {
            t.i++;
            sec = digits(&t, 2, "seconds (two digits) expected");
            if (!t.why && (s[t.i] == '.' || s[t.i] == ',')) {
                t.i++;
                int k = 0;
                for (; is_digit(s[t.i]); t.i++, k++)
                    if (k < 3)
                        frac_ms = frac_ms * 10 + (s[t.i] - '0');
                if (k == 0 || k > 9)
                    t.why = "a fraction of 1 to 9 digits expected";
                for (; k < 3; k++)
                    frac_ms *= 10;
            }
        }
        if (!t.why && (h > 23 || mi > 59 || sec > 59))
            t.why = "time of day out of range";
        if (!t.why)
            zone_min = parse_zone(&t);
        ms = ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + frac_ms;
    }
    if (!t.why && s[t.i])
        t.why = "unexpected characters after the time";
    if (t.why)
        return kf_error_set(KF_ERR_CORRUPT, 0, NULL, "%s", t.why);
    *epoch_ms = days_from_civil(y, mo, d) * 86400000 + ms - (int64_t)zone_min * 60000;
    return KF_OK;
}

int64_t kf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
