/* cmd_dump.c: `kfsck dump`: one line per batch (and per record with
 * --records) of segment files, one per entry of index, snapshot and
 * checkpoint files; text close to kafka-dump-log's, or JSON lines. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/walk.h"

typedef struct dump_opts {
    bool json, records, payload;
    uint64_t max_bytes;
    uint64_t max_batch_bytes;
} dump_opts;

typedef struct dump_ctx {
    const dump_opts *opts;
    out *o;
    const char *file;
    int status;
} dump_ctx;

static const char *ts_type(const kf_batch *b)
{
    if (b->magic == 0)
        return "NoTimestampType";
    return b->log_append_time ? "LogAppendTime" : "CreateTime";
}

static int on_batch(void *ctx, const kf_batch *b)
{
    dump_ctx *d = ctx;
    out *o = d->o;
    if (o->json) {
        out_begin(o, "batch");
        out_str(o, "file", d->file);
        out_uint(o, "position", b->position);
        out_int(o, "base_offset", b->base_offset);
        out_int(o, "last_offset", b->last_offset);
        if (b->count >= 0)
            out_int(o, "count", b->count);
        else
            out_null(o, "count");
        out_uint(o, "size", b->size);
        out_int(o, "magic", b->magic);
        out_str(o, "codec", kf_codec_name(b->codec));
        out_uint(o, "crc", b->crc);
        out_bool(o, "crc_ok", b->crc_ok);
        if (b->magic == 0) {
            out_null(o, "timestamp_type");
            out_null(o, "max_timestamp");
        } else {
            out_str(o, "timestamp_type", b->log_append_time ? "log_append" : "create");
            out_int(o, "max_timestamp", b->max_timestamp);
        }
        if (b->magic == 2) {
            out_int(o, "producer_id", b->producer_id);
            out_int(o, "producer_epoch", b->producer_epoch);
            out_int(o, "base_sequence", b->base_sequence);
            out_bool(o, "transactional", b->transactional);
            out_bool(o, "control", b->control);
            out_int(o, "leader_epoch", b->partition_leader_epoch);
            out_int(o, "base_timestamp", b->base_timestamp);
            out_int(o, "attributes", b->attributes);
            if (b->delete_horizon)
                out_int(o, "delete_horizon_ms", b->base_timestamp);
            else
                out_null(o, "delete_horizon_ms");
        } else {
            out_null(o, "producer_id");
            out_null(o, "producer_epoch");
            out_null(o, "base_sequence");
            out_null(o, "transactional");
            out_null(o, "control");
            out_null(o, "leader_epoch");
            out_int(o, "attributes", b->attributes);
        }
        out_end(o);
        return 0;
    }
    if (b->magic == 2) {
        int32_t last_seq = b->base_sequence < 0 ? -1
                           : (b->base_sequence > INT32_MAX - b->last_offset_delta
                                  ? b->last_offset_delta - (INT32_MAX - b->base_sequence) - 1
                                  : b->base_sequence + b->last_offset_delta);
        out_text(o,
                 "baseOffset: %lld lastOffset: %lld count: %d baseSequence: %d lastSequence: %d producerId: %lld "
                 "producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %s isControl: %s deleteHorizonMs: ",
                 (long long)b->base_offset, (long long)b->last_offset, b->count, b->base_sequence, last_seq,
                 (long long)b->producer_id, b->producer_epoch, b->partition_leader_epoch,
                 b->transactional ? "true" : "false", b->control ? "true" : "false");
        if (b->delete_horizon)
            out_text(o, "OptionalLong[%lld]", (long long)b->base_timestamp);
        else
            out_text(o, "OptionalLong.empty");
        out_text(o, " position: %llu %s: %lld size: %u magic: 2 compresscodec: %s crc: %u isvalid: %s\n",
                 (unsigned long long)b->position, ts_type(b), (long long)b->max_timestamp, b->size,
                 kf_codec_name(b->codec), b->crc, b->crc_ok ? "true" : "false");
    } else {
        out_text(o, "offset: %lld position: %llu %s: %lld size: %u magic: %d compresscodec: %s crc: %u isvalid: %s\n",
                 (long long)b->last_offset, (unsigned long long)b->position, ts_type(b), (long long)b->max_timestamp,
                 b->size, b->magic, kf_codec_name(b->codec), b->crc, b->crc_ok ? "true" : "false");
    }
    return 0;
}

static void text_bytes(out *o, const uint8_t *p, int32_t n)
{
    if (n < 0 || !p) {
        out_text(o, "null");
        return;
    }
    for (int32_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, o->f);
        else
            fprintf(o->f, "\\x%02x", c);
    }
}

static int on_record(void *ctx, const kf_batch *b, const kf_record *r)
{
    dump_ctx *d = ctx;
    out *o = d->o;
    kf_control ctl;
    bool is_ctl = b->control && kf_control_parse(r, &ctl) == KF_OK;
    if (o->json) {
        out_begin(o, "record");
        out_str(o, "file", d->file);
        out_uint(o, "position", b->position);
        out_int(o, "offset", r->offset);
        if (b->magic == 0)
            out_null(o, "timestamp");
        else
            out_int(o, "timestamp", r->timestamp);
        out_int(o, "key_size", r->key_len);
        out_int(o, "value_size", r->value_len);
        if (b->magic == 2) {
            out_int(o, "sequence", r->sequence);
            out_arr_open(o, "headers");
            kf_cursor c;
            kf_cur_init(&c, r->headers, r->headers_len);
            const uint8_t *hk, *hv;
            int32_t hkl, hvl;
            while (kf_header_next(&c, &hk, &hkl, &hv, &hvl) == 1) {
                out_obj_open(o, NULL);
                out_strn(o, "key", (const char *)hk, (size_t)hkl);
                if (hvl < 0)
                    out_null(o, "value_b64");
                else
                    out_b64(o, "value_b64", hv, (size_t)hvl);
                out_obj_close(o);
            }
            out_arr_close(o);
        } else {
            out_null(o, "sequence");
            out_null(o, "headers");
            out_uint(o, "crc", r->crc);
            out_bool(o, "crc_ok", r->crc_ok);
        }
        if (is_ctl) {
            out_obj_open(o, "control");
            out_str(o, "type", kf_control_type_name(ctl.type));
            out_int(o, "type_id", ctl.type);
            if (ctl.type == KF_CONTROL_COMMIT || ctl.type == KF_CONTROL_ABORT)
                out_int(o, "coordinator_epoch", ctl.coordinator_epoch);
            out_obj_close(o);
        }
        if (d->opts->payload) {
            out_bytes(o, "key", r->key, r->key_len);
            out_bytes(o, "value", r->value, r->value_len);
        }
        out_end(o);
        return 0;
    }
    out_text(o, "| offset: %lld %s: %lld keySize: %d valueSize: %d", (long long)r->offset, ts_type(b),
             (long long)r->timestamp, r->key_len, r->value_len);
    if (b->magic == 2) {
        out_text(o, " sequence: %d headerKeys: [", r->sequence);
        kf_cursor c;
        kf_cur_init(&c, r->headers, r->headers_len);
        const uint8_t *hk, *hv;
        int32_t hkl, hvl;
        for (int i = 0; kf_header_next(&c, &hk, &hkl, &hv, &hvl) == 1; i++) {
            if (i)
                out_text(o, ",");
            text_bytes(o, hk, hkl);
        }
        out_text(o, "]");
    } else {
        out_text(o, " isValid: %s crc: %u", r->crc_ok ? "true" : "false", r->crc);
    }
    if (is_ctl) {
        if (ctl.type == KF_CONTROL_COMMIT || ctl.type == KF_CONTROL_ABORT)
            out_text(o, " endTxnMarker: %s coordinatorEpoch: %d", kf_control_type_name(ctl.type), ctl.coordinator_epoch);
        else
            out_text(o, " controlType: %s(%d)", kf_control_type_name(ctl.type), ctl.type);
    } else if (d->opts->payload) {
        out_text(o, " key: ");
        text_bytes(o, r->key, r->key_len);
        out_text(o, " payload: ");
        text_bytes(o, r->value, r->value_len);
    }
    out_text(o, "\n");
    return 0;
}

static int dump_file(const char *path, const dump_opts *opts, out *o)
{
    kf_name_info ni = kf_classify_name(path_base(path));
    if (ni.kind == KF_FILE_UNKNOWN && looks_like_log(path))
        ni.kind = KF_FILE_LOG; /* base offset unknown: -1 */
    kf_map m;
    bool is_log = ni.kind == KF_FILE_LOG || ni.kind == KF_FILE_KRAFT_CHECKPOINT;
    if (kf_map_open(&m, path, is_log ? opts->max_bytes : 0) != KF_OK) {
        cli_error(path, "cannot read: %s", strerror(m.err_no));
        return EXIT_FAIL;
    }
    report r = {o, path, 0, 0};
    if (!o->json)
        out_text(o, "Dumping %s\n", path);
    if (is_log) {
        if (!o->json && ni.kind == KF_FILE_LOG && ni.base_offset >= 0)
            out_text(o, "Log starting offset: %lld\n", (long long)ni.base_offset);
        kf_map_sequential(&m);
        dump_ctx d = {opts, o, path, 0};
        kf_scan_opts so;
        kf_scan_opts_init(&so);
        so.max_batch_bytes = (size_t)opts->max_batch_bytes;
        so.records = opts->records;
        so.deep = true;
        so.limited = opts->max_bytes > 0;
        so.base_offset = ni.kind == KF_FILE_LOG ? ni.base_offset : -1;
        so.batch_fn = on_batch;
        so.record_fn = on_record;
        so.ctx = &d;
        so.problem_fn = report_problem;
        so.problem_ctx = &r;
        so.progress_fn = progress_show;
    so.readahead = true;
        so.progress_ctx = (void *)path;
        kf_segment_summary sum;
        int scan_rc = kf_segment_scan(&m, &so, &sum);
        progress_done();
        if (scan_rc != KF_OK) {
            kf_map_close(&m);
            cli_error(path, "out of memory");
            return EXIT_FAIL;
        }
    } else if (ni.kind == KF_FILE_UNKNOWN) {
        kf_map_close(&m);
        cli_error(path, "not a Kafka file kfsck knows (by its name); skipped");
        return EXIT_CLEAN;
    } else {
        aux_dump(path, &m, ni, o, &r);
    }
    kf_map_close(&m);
    return r.errors ? EXIT_DAMAGE : EXIT_CLEAN;
}

static int dump_path(const char *path, const dump_opts *opts, out *o, int depth)
{
    path_kind k = classify_path(path);
    if (k == PATH_MISSING) {
        cli_error(path, "no such file or directory");
        return EXIT_FAIL;
    }
    if (k == PATH_FILE)
        return dump_file(path, opts, o);
    if (depth > 2)
        return EXIT_CLEAN;
    name_list l;
    if (list_dir(path, &l) != 0) {
        cli_error(path, "cannot list directory");
        return EXIT_FAIL;
    }
    int status = EXIT_CLEAN;
    for (size_t i = 0; i < l.n; i++) {
        char *sub = path_join(path, l.names[i]);
        path_kind sk = classify_path(sub);
        int st = EXIT_CLEAN;
        if (sk == PATH_FILE) {
            if (kf_classify_name(l.names[i]).kind != KF_FILE_UNKNOWN)
                st = dump_file(sub, opts, o);
        } else if (sk == PATH_PARTITION || sk == PATH_DATADIR) {
            st = dump_path(sub, opts, o, depth + 1);
        }
        if (st > status)
            status = st;
        free(sub);
    }
    name_list_free(&l);
    return status;
}

static void dump_usage(FILE *f)
{
    fprintf(f, "usage: kfsck dump [--records] [--payload] [--decode none|auto] [--max-bytes N]\n"
               "                  [--max-batch-bytes N] [--json] FILE...\n\n"
               "One line per batch of .log files (and KRaft .checkpoint snapshots), one per entry\n"
               "of .index/.timeindex/.txnindex/.snapshot and checkpoint files. A directory dumps\n"
               "every Kafka file below it.\n"
               "  --records          also one line per record\n"
               "  --payload          with the records' keys and values\n"
               "  --max-bytes N      read only the first N bytes of each .log (sampling a live host)\n"
               "  --max-batch-bytes N  cap on one batch's decompressed size (default 128M)\n"
               "  --json             newline-delimited JSON\n");
}

int cmd_dump(int argc, char **argv)
{
    dump_opts opts = {0};
    opts.max_batch_bytes = KF_DEFAULT_MAX_BATCH_BYTES;
    static const struct option longopts[] = {
        {"records", no_argument, 0, 'r'},        {"payload", no_argument, 0, 'p'},
        {"decode", required_argument, 0, 'd'},   {"max-bytes", required_argument, 0, 'm'},
        {"max-batch-bytes", required_argument, 0, 'B'}, {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': opts.records = true; break;
        case 'p': opts.payload = true; opts.records = true; break;
        case 'j': opts.json = true; break;
        case 'd':
            if (strcmp(optarg, "none") && strcmp(optarg, "auto")) {
                fprintf(stderr, "kfsck dump: --decode %s: this build decodes none|auto\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'm':
            if (opt_positive_size("dump", "--max-bytes", optarg, &opts.max_bytes))
                return EXIT_USAGE;
            break;
        case 'B':
            if (opt_positive_size("dump", "--max-batch-bytes", optarg, &opts.max_batch_bytes))
                return EXIT_USAGE;
            break;
        case 'h': dump_usage(stdout); return EXIT_CLEAN;
        default: return opt_usage_error("dump", "unknown or incomplete option", argv[optind - 1], dump_usage);
        }
    }
    if (optind >= argc)
        return opt_usage_error("dump", "no FILE given", NULL, dump_usage);
    out o;
    out_init(&o, stdout, opts.json);
    int status = EXIT_CLEAN;
    for (int i = optind; i < argc; i++) {
        int st = dump_path(argv[i], &opts, &o, 0);
        if (st > status)
            status = st;
    }
    fflush(stdout);
    return status;
}
