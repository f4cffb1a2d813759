/* cmd_dump.c: `kfsck dump`: the options, then kf_dump_paths (the library's
 * dump, include/kfsck/dump.h) printing what it hands out through
 * dump_print.h: one line per batch (and per record with --records) of
 * segment files, one per entry of index, snapshot and checkpoint files;
 * text close to kafka-dump-log's, or JSON lines. Records of the internal
 * topics are decoded (--decode); secrets stay redacted unless
 * --show-secrets. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/dump_print.h"
#include "cli/walk.h"

/* "Dumping <path>" (text), and what else heads a file's lines. */
static void file_begins(void *ctx, const kf_dump_file *f)
{
    out *o = ((dump_printer *)ctx)->o;
    if (o->json)
        return;
    out_text(o, "Dumping %s\n", f->path);
    if (!f->range && f->name.kind == KF_FILE_LOG && f->name.base_offset >= 0)
        out_text(o, "Log starting offset: %lld\n", (long long)f->name.base_offset);
    if (f->entries == 0 && (f->name.kind == KF_FILE_INDEX || f->name.kind == KF_FILE_TIMEINDEX))
        out_text(o, "%s is empty.\n", f->path);
}

static void file_done(void *ctx, const kf_dump_file *f)
{
    (void)ctx;
    (void)f;
    progress_done();
}

static void show_progress(void *ctx, const char *path, uint64_t position, uint64_t size)
{
    (void)ctx;
    progress_show((void *)path, position, size);
}

/* Each problem, printed (ctx: the dump_printer). */
static void report_problem_of(void *ctx, const kf_problem *p)
{
    report_problem(&((dump_printer *)ctx)->rep, p);
}

/* KFSCK_RANGE_STATS (tests and the bench): how much the index saved, on stderr. */
static void range_stats(void *ctx, const char *label, const kf_range_result *res)
{
    (void)ctx;
    if (getenv("KFSCK_RANGE_STATS"))
        tprintf(stderr, "kfsck: %s: range stats: segments_read %llu seeks %llu bytes_skipped %llu\n", label,
                (unsigned long long)res->segments_read, (unsigned long long)res->seeks,
                (unsigned long long)res->bytes_skipped);
}

static void dump_usage(FILE *f)
{
    tprintf(f, "usage: kfsck dump [--records] [--payload]\n"
               "                  [--decode auto|none|offsets|txn|connect|metadata|share|remote]\n"
               "                  [--offset N | --from-offset N --to-offset M] [--schema-ids]\n"
               "                  [--include-damaged] [--show-secrets] [--max-bytes N]\n"
               "                  [--max-batch-bytes N] [--json] FILE|PARTDIR...\n\n"
               "One line per batch of .log files (and KRaft .checkpoint snapshots), one per entry\n"
               "of .index/.timeindex/.txnindex/.snapshot and checkpoint files. A partition\n"
               "directory dumps its segments in offset order, a data directory those of each\n"
               "partition in it; other files only when named themselves.\n"
               "  --records          also one line per record\n"
               "  --payload          with the records' keys and values\n"
               "  --decode KIND      decode __consumer_offsets (offsets), __transaction_state (txn),\n"
               "                     Kafka Connect offsets (connect), the KRaft metadata log and its\n"
               "                     snapshots (metadata), __share_group_state (share) or\n"
               "                     __remote_log_metadata (remote) records; auto (default) picks by\n"
               "                     the partition directory's topic or the snapshot's file name.\n"
               "                     KRaft control records are decoded in every log\n"
               "  --offset N         only the batch holding offset N (with --records, only that\n"
               "                     record), found with the segment's .index; offset_not_found\n"
               "                     (a warning line) when no intact batch holds it; in damage\n"
               "                     at the damage's position, with next_offset: the first\n"
               "                     offset of the next intact batch, where a consumer resumes\n"
               "  --from-offset N --to-offset M  only the batches holding offsets N..M\n"
               "  --schema-ids       record lines also show the Confluent Schema Registry framing\n"
               "                     of the key and value (schema id or GUID; implies --records)\n"
               "  --include-damaged  a line per damaged stretch: the header fields of the batch\n"
               "                     it starts with, as far as they can be read; with --payload\n"
               "                     its bytes in hex (the first 16 KiB); with --records the\n"
               "                     records of a batch that fails its CRC, as far as they\n"
               "                     decode, each flagged \"damaged\": true\n"
               "  --show-secrets     print SCRAM salts and keys, delegation-token ids and\n"
               "                     password-like config values (redacted by default)\n"
               "  --max-bytes N      read only the first N bytes of each .log (sampling a live host)\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json             newline-delimited JSON\n"
               "exit: 0 nothing wrong found; 1 damage found (problem lines); 2 usage error;\n"
               "3 a path cannot be read or the output cannot be written.\n");
}

/* --decode's words: auto (each file's own decoder), or one for every file. */
static int parse_decode(const char *s, void *to)
{
    kf_dump_opts *opts = to;
    static const struct {
        const char *name;
        kf_decoder d;
    } names[] = {{"none", KF_DECODE_NONE},         {"offsets", KF_DECODE_OFFSETS}, {"txn", KF_DECODE_TXN},
                 {"connect", KF_DECODE_CONNECT},   {"metadata", KF_DECODE_METADATA},
                 {"share", KF_DECODE_SHARE},       {"remote", KF_DECODE_REMOTE}};
    if (!strcmp(s, "auto")) {
        opts->decoder_set = false;
        return 0;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(s, names[i].name)) {
            opts->decoder_set = true;
            opts->decoder = names[i].d;
            if (names[i].d != KF_DECODE_NONE)
                opts->records = true;
            return 0;
        }
    }
    return -1;
}

int cmd_dump(int argc, char **argv)
{
    kf_dump_opts opts;
    kf_dump_opts_init(&opts);
    bool json = false, schema_ids = false;
    uint64_t max_batch = KF_DEFAULT_MAX_BATCH_BYTES;
    bool has_offset = false, has_from = false, has_to = false;
    int64_t offset = 0;
    const opt_spec specs[] = {
        {.name = "--records", .kind = OPT_FLAG, .to = &opts.records},
        {.name = "--payload", .kind = OPT_FLAG, .to = &opts.payload},
        {.name = "--decode", .kind = OPT_PARSE, .to = &opts, .parse = parse_decode,
         .refusal = "--decode is auto, none, offsets, txn, connect, metadata, share or remote, not"},
        {.name = "--max-bytes", .kind = OPT_SIZE, .to = &opts.max_bytes},
        {.name = "--max-batch-bytes", .kind = OPT_SIZE, .to = &max_batch},
        {.name = "--json", .kind = OPT_FLAG, .to = &json},
        {.name = "--show-secrets", .kind = OPT_FLAG, .to = &opts.show_secrets},
        {.name = "--offset", .kind = OPT_NUMBER, .to = &offset, .max = INT64_MAX, .given = &has_offset,
         .refusal = "--offset needs an offset (an integer, 0 or more), not"},
        {.name = "--from-offset", .kind = OPT_NUMBER, .to = &opts.first, .max = INT64_MAX, .given = &has_from,
         .refusal = "--from-offset needs an offset (an integer, 0 or more), not"},
        {.name = "--to-offset", .kind = OPT_NUMBER, .to = &opts.last, .max = INT64_MAX, .given = &has_to,
         .refusal = "--to-offset needs an offset (an integer, 0 or more), not"},
        {.name = "--schema-ids", .kind = OPT_FLAG, .to = &schema_ids},
        {.name = "--include-damaged", .kind = OPT_FLAG, .to = &opts.include_damaged},
        {0},
    };
    int st = opt_parse("dump", argc, argv, specs, dump_usage, NULL);
    if (st >= 0)
        return st;
    opts.records = opts.records || opts.payload || schema_ids;
    if (has_offset)
        opts.first = opts.last = offset;
    if (has_offset && (has_from || has_to))
        return opt_usage_error("dump", "--offset does not go with --from-offset/--to-offset", NULL, dump_usage);
    if (has_from != has_to)
        return opt_usage_error("dump", "--from-offset and --to-offset go together", NULL, dump_usage);
    opts.range = has_offset || has_from;
    if (has_from && opts.first > opts.last)
        return opt_usage_error("dump", "--from-offset is past --to-offset", NULL, dump_usage);
    if (opts.range && opts.max_bytes)
        return opt_usage_error("dump", "--max-bytes does not go with --offset or --from-offset", NULL, dump_usage);
    if (optind >= argc)
        return opt_usage_error("dump", "no FILE given", NULL, dump_usage);
    out o;
    out_init(&o, stdout, json);
    o.show_secrets = opts.show_secrets;
    dump_printer pr = {.o = &o, .payload = opts.payload, .schema_ids = schema_ids, .rep = {.o = &o}};
    opts.max_batch_bytes = (size_t)max_batch;
    opts.no_seek = getenv("KFSCK_NO_SEEK") != NULL; /* tests and the bench: the answer without the index */
    reader_tuning(&opts.threads, &opts.chunk_bytes);
    opts.ctx = &pr;
    opts.file_fn = file_begins;
    opts.file_done_fn = file_done;
    opts.progress_fn = show_progress;
    opts.batch_fn = dump_print_batch;
    opts.record_fn = dump_print_record;
    opts.entry_fn = dump_print_entry;
    opts.damaged_fn = dump_print_damaged;
    opts.problem_fn = report_problem_of;
    opts.path_error_fn = print_path_error;
    opts.range_done_fn = range_stats;
    kf_dump_result res = {0};
    if (kf_dump_paths(argv + optind, (size_t)(argc - optind), &opts, &res) == KF_ERR_NOMEM)
        cli_oom();
    fflush(stdout);
    return res.failed ? EXIT_FAIL : res.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}
