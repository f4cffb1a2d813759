/* fuzz_names.c: fuzz target for what a log dir's names mean
 * (src/format/names.c): kf_classify_name, kf_sibling_path and
 * kf_parse_partition_dir (also on the name after kf_path_base, as the jobs
 * call it). The input, up to its first NUL, is the name. Checked: a segment
 * file's kind has a base offset >= 0, which is the decimal number its name
 * starts with; the sibling of a .log (with a broker suffix or none) keeps
 * the stem and the suffix, and the .log sibling of that is the name again;
 * a partition dir's topic is the name's start, then '-', its partition in
 * 0..999999999; kf_name_offset is Long.parseLong of the text before the
 * first dot. Any crash, sanitizer report or abort is a bug.
 *
 * Built as build/fuzz/replay_names by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_names -max_len=512 tests/fuzz/corpus/names
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAME 512

static void check_classify(const char *s)
{
    kf_name_info ni = kf_classify_name(s);
    if (!kf_file_kind_name(ni.kind) || !ni.suffix)
        abort();
    switch (ni.kind) {
    case KF_FILE_LOG:
    case KF_FILE_INDEX:
    case KF_FILE_TIMEINDEX:
    case KF_FILE_TXNINDEX:
    case KF_FILE_PRODUCER_SNAPSHOT:
    case KF_FILE_KRAFT_CHECKPOINT: {
        char *end;
        if (ni.base_offset < 0 || s[0] < '0' || s[0] > '9' || strtoll(s, &end, 10) != ni.base_offset)
            abort();
        break;
    }
    case KF_FILE_BOOTSTRAP_CHECKPOINT:
        if (ni.base_offset != 0)
            abort();
        break;
    default:
        if (ni.base_offset != -1)
            abort();
    }
}

static void check_sibling(const char *s)
{
    char *p = kf_sibling_path(s, ".timeindex");
    if (!p)
        return;
    size_t n = strlen(s), pn = strlen(p);
    kf_name_info ni = kf_classify_name(s);
    size_t sl = strlen(ni.suffix);
    /* s is <stem>.log<suffix>; p must be <stem>.timeindex<suffix> */
    if (n < 4 + sl || pn != n - 4 + 10 || memcmp(p, s, n - 4 - sl) || memcmp(p + pn - sl, ni.suffix, sl))
        abort();
    char *back = kf_sibling_path(p, ".log");
    if (back)
        abort(); /* p ends in .timeindex[suffix], never .log[suffix] */
    free(p);
    p = kf_sibling_path(s, ".log");
    if (!p || strcmp(p, s))
        abort();
    free(p);
}

static void check_partition_dir(const char *s, size_t cap)
{
    char topic[256];
    int32_t part = -1;
    if (!kf_parse_partition_dir(s, topic, cap, &part))
        return;
    size_t tl = strlen(topic);
    if (part < 0 || part > 999999999 || (tl == 0 && cap > 1) || tl >= cap || strncmp(s, topic, tl))
        abort();
    if (tl < cap - 1 && s[tl] != '-')
        abort(); /* not cut short: the topic ends at a dash */
}

/* kf_name_offset is Long.parseLong of the text before the first dot: an
 * optional sign, then digits, within a long (checked against strtoll). */
static void check_name_offset(const char *s)
{
    int64_t off;
    size_t n;
    bool ok = kf_name_offset(s, &off, &n);
    const char *dot = strchr(s, '.');
    if (n != (dot ? (size_t)(dot - s) : strlen(s)))
        abort();
    size_t i = n && (s[0] == '+' || s[0] == '-');
    bool digits = dot && i < n;
    for (size_t k = i; k < n; k++)
        digits &= s[k] >= '0' && s[k] <= '9';
    char *end;
    errno = 0;
    long long v = digits ? strtoll(s, &end, 10) : 0;
    if (ok != (digits && errno != ERANGE) || (ok && v != off))
        abort();
    (void)kf_name_carries_offset(s);
    (void)kf_snapshot_name_parses(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[MAX_NAME + 1];
    fuzz_text(data, size, s, sizeof s);
    check_classify(s);
    check_name_offset(s);
    check_sibling(s);
    check_partition_dir(s, 256);
    check_partition_dir(s, 1 + (size ? data[0] % 16 : 0));
    check_partition_dir(kf_path_base(s), 256);
    return 0;
}
