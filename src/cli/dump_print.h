/* dump_print.h: the printing of `kfsck dump` (what kf_dump_paths hands
 * out, include/kfsck/dump.h): text close to kafka-dump-log's, or JSON
 * lines. dump_print.c prints batches, records and damaged stretches,
 * dump_decoded.c the decoded keys and values of the internal topics'
 * records, dump_entries.c the entries of the files that are not segments. */
#ifndef KFSCK_CLI_DUMP_PRINT_H
#define KFSCK_CLI_DUMP_PRINT_H

#include <stdbool.h>

#include "cli/out.h"
#include "kfsck/dump.h"

/* What the callbacks print into; the ctx of every kf_dump_opts callback. */
typedef struct dump_printer {
    out *o;
    bool payload;             /* --payload: the records' keys and values */
    bool schema_ids;          /* --schema-ids */
    report rep;               /* the problems, counted */
} dump_printer;

/* kf_dump_opts callbacks (ctx: a dump_printer). */
int dump_print_batch(void *ctx, const char *file, const kf_batch *b);
int dump_print_record(void *ctx, const kf_dump_record *r);
void dump_print_damaged(void *ctx, const kf_damaged *dm, bool redact);
void dump_print_entry(void *ctx, const kf_dump_entry *e);

/* The decoded key and value of r, a record whose file has a decoder
 * (dump_decoded.c): fields of the record's JSON line, or text ending its
 * line. */
void dump_print_decoded(const dump_printer *pr, const kf_dump_record *r);

/* " payload: {...}" in text or record_type, record_version, value_decoded
 * in JSON for a KRaft-envelope record or a KRaft control record. */
void dump_print_kraft(const dump_printer *pr, const kf_dump_record *r);

/* Bytes in text: printable ASCII as is, the rest as \xNN; null for none. */
void dump_text_bytes(out *o, const uint8_t *p, int32_t n);

#endif
