/* timestamp.h: the times a user types (the --as-of, --from-time and --now
 * options): epoch milliseconds or ISO 8601, parsed to epoch milliseconds;
 * and now, the default of --now. */
#ifndef KFSCK_TIMESTAMP_H
#define KFSCK_TIMESTAMP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parses s, the whole string, into *epoch_ms. Accepted:
 *   - epoch milliseconds: decimal digits only (1707700286142);
 *   - a date alone, midnight UTC: 2024-02-12;
 *   - a date and a time with a zone: 2024-02-12T01:11:26Z,
 *     2024-02-12T01:11:26.142+08:00, 2024-02-12 01:11Z (the 'T' may be a
 *     space or 't'; seconds optional; a fraction of 1 to 9 digits, cut to
 *     milliseconds; the zone Z/z, +HH:MM, +HHMM or +HH, or -).
 * A date and time without a zone is refused (local time or UTC would be a
 * guess), as are out-of-range fields (month 13, February 30, hour 24,
 * second 60) and years outside 0000..9999. KF_OK, or KF_ERR_CORRUPT with
 * the reason as the thread's last error (kf_error_last). */
int kf_timestamp_parse(const char *s, int64_t *epoch_ms);

/* Now, by the wall clock, in epoch milliseconds: what --now defaults to. */
int64_t kf_now_ms(void);

#ifdef __cplusplus
}
#endif

#endif
