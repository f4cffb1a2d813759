/* common_opts.c: the options of every command: the table parser (opt_parse)
 * and the option values several commands share. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kfsck/stats.h"
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


/* The longest table a command has, --help included. */
#define OPT_MAX 32

/* Take o's argument (NULL for a flag): -1, or the exit status after saying
 * why it is refused. */
static int take(const char *cmd, const opt_spec *o, const char *arg, void (*usage)(FILE *))
{
    switch (o->kind) {
    case OPT_FLAG: *(bool *)o->to = true; break;
    case OPT_STRING:
        if (o->refusal && !*arg)
            return opt_usage_error(cmd, o->refusal, NULL, usage);
        *(const char **)o->to = arg;
        break;
    case OPT_SIZE:
        if (opt_positive_size(cmd, o->name, arg, o->to))
            return EXIT_USAGE;
        break;
    case OPT_NUMBER: {
        int64_t v;
        if (parse_number(arg, o->min, &v) || v > o->max)
            return opt_usage_error(cmd, o->refusal, arg, usage);
        *(int64_t *)o->to = v;
        break;
    }
    case OPT_DURATION:
        if (kf_parse_duration_ms(arg, o->to) || *(int64_t *)o->to <= 0)
            return opt_usage_error(cmd, o->refusal, arg, usage);
        break;
    case OPT_TIME:
        if (opt_time(cmd, o->name, arg, o->to, usage))
            return EXIT_USAGE;
        break;
    case OPT_CHOICE: {
        int i = 0;
        while (o->choices[i] && strcmp(o->choices[i], arg))
            i++;
        if (!o->choices[i])
            return opt_usage_error(cmd, o->refusal, arg, usage);
        *(int *)o->to = i;
        break;
    }
    case OPT_PARSE:
        if (o->parse(arg, o->to))
            return opt_usage_error(cmd, o->refusal, arg, usage);
        break;
    case OPT_LIST: {
        opt_list *l = o->to;
        l->v[l->n++] = arg;
        break;
    }
    }
    if (o->given)
        *o->given = true;
    if (o->given_name)
        *o->given_name = o->name;
    if (o->times)
        ++*o->times;
    return -1;
}

int opt_parse(const char *cmd, int argc, char **argv, const opt_spec *specs, void (*usage)(FILE *),
              const char *no_paths)
{
    struct option longopts[OPT_MAX + 2];
    char letters[2 * OPT_MAX + 2] = "h";
    size_t n = 0, nl = 1;
    for (; specs[n].name && n < OPT_MAX; n++) {
        bool arg = specs[n].kind != OPT_FLAG;
        longopts[n] = (struct option){specs[n].name + 2, arg ? required_argument : no_argument, 0, 256 + (int)n};
        if (specs[n].letter) {
            letters[nl++] = specs[n].letter;
            if (arg)
                letters[nl++] = ':';
        }
    }
    letters[nl] = 0;
    longopts[n] = (struct option){"help", no_argument, 0, 'h'};
    longopts[n + 1] = (struct option){0, 0, 0, 0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, letters, longopts, NULL)) != -1) {
        const opt_spec *o = NULL;
        if (c >= 256 && (size_t)(c - 256) < n)
            o = &specs[c - 256];
        for (size_t i = 0; !o && c != 'h' && c != '?' && c != ':' && i < n; i++)
            if (specs[i].letter == c)
                o = &specs[i];
        if (c == 'h') {
            usage(stdout);
            return EXIT_CLEAN;
        }
        if (!o)
            return opt_usage_error(cmd, "unknown or incomplete option", argv[optind - 1], usage);
        int st = take(cmd, o, optarg, usage);
        if (st >= 0)
            return st;
    }
    if (no_paths && optind >= argc)
        return opt_usage_error(cmd, no_paths, NULL, usage);
    return -1;
}

int opt_json_and_batch(const char *cmd, int argc, char **argv, void (*usage)(FILE *), bool *json,
                       uint64_t *max_batch)
{
    *json = false;
    *max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    const opt_spec specs[] = {
        {.name = "--json", .kind = OPT_FLAG, .to = json},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = max_batch},
        {0},
    };
    return opt_parse(cmd, argc, argv, specs, usage, "no PATH given");
}
