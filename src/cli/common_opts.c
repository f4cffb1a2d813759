/* common_opts.c: option values shared by several commands. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "kfsck/timestamp.h"

int parse_size(const char *s, uint64_t *result)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    uint64_t mul = 1;
    switch (*end) {
    case 0: break;
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    default: return -1;
    }
    if (*end == 'i' || *end == 'B')
        end++;
    if (*end == 'B')
        end++;
    if (*end)
        return -1;
    if (v > UINT64_MAX / mul)
        return -1;
    *result = v * mul;
    return 0;
}

int parse_number(const char *s, int64_t min, int64_t *v)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno || *end || n > (unsigned long long)INT64_MAX || (int64_t)n < min)
        return -1;
    *v = (int64_t)n;
    return 0;
}

int opt_positive_size(const char *cmd, const char *opt, const char *arg, uint64_t *v)
{
    if (parse_size(arg, v) == 0 && *v > 0)
        return 0;
    tprintf(stderr, "kfsck %s: %s needs a positive size (like 4096, 64K, 128M), not '%s'\n", cmd, opt, arg);
    return -1;
}

int opt_usage_error(const char *cmd, const char *what, const char *arg, void (*usage)(FILE *))
{
    if (arg)
        tprintf(stderr, "kfsck %s: %s '%s'\n", cmd, what, arg);
    else
        tprintf(stderr, "kfsck %s: %s\n", cmd, what);
    usage(stderr);
    return EXIT_USAGE;
}

int opt_time(const char *cmd, const char *opt, const char *arg, int64_t *v, void (*usage)(FILE *))
{
    if (kf_timestamp_parse(arg, v) == KF_OK)
        return 0;
    tprintf(stderr,
            "kfsck %s: %s needs epoch milliseconds or an ISO 8601 time (2024-02-12T01:11:26Z, "
            "2024-02-12): %s: '%s'\n",
            cmd, opt, kf_error_last()->message, arg);
    usage(stderr);
    return EXIT_USAGE;
}

/* KFSCK_THREADS and KFSCK_CHUNK_BYTES: the streaming reader's thread count
 * and read size, for tests (tiny chunks and forced threads exercise the
 * chunk boundaries and the pipeline on small fixtures) and for measuring. */
void reader_tuning(unsigned *threads, size_t *chunk_bytes)
{
    const char *t = getenv("KFSCK_THREADS");
    const char *c = getenv("KFSCK_CHUNK_BYTES");
    uint64_t v;
    if (t && parse_size(t, &v) == 0 && v > 0 && v <= 64)
        *threads = (unsigned)v;
    if (c && parse_size(c, &v) == 0 && v > 0)
        *chunk_bytes = (size_t)v;
}


int opt_json_and_batch(const char *cmd, int argc, char **argv, void (*usage)(FILE *), bool *json,
                       uint64_t *max_batch)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"max-batch-bytes", required_argument, 0, 'B'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    *json = false;
    *max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': *json = true; break;
        case 'B':
            if (opt_positive_size(cmd, "--max-batch-bytes", optarg, max_batch))
                return EXIT_USAGE;
            break;
        case 'h': usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error(cmd, "unknown or incomplete option", argv[optind - 1], usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error(cmd, "no PATH given", NULL, usage);
    return -1;
}
