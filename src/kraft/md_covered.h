/* md_covered.h: damage of the metadata log that the snapshot the state is
 * built from already covers (md_covered.c). The replay of `kfsck metadata`
 * reads the log from its start, so its reader reports damage and lost
 * offsets below the snapshot's end offset too: those leave the state
 * unaffected, and are warnings that say so, not errors (issue 36). The
 * reader's problems pass through an md_covered; those that may be covered
 * wait until the reader's holes are known. */
#ifndef KFSCK_KRAFT_MD_COVERED_H
#define KFSCK_KRAFT_MD_COVERED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/common.h"
#include "kfsck/sys/part_reader.h"

typedef struct md_covered {
    kf_problem_fn fn;         /* where every problem goes in the end */
    void *ctx;
    int64_t start;            /* the snapshot's end offset (0: none, nothing is covered) */
    kf_problem *held;         /* damage below start, until the holes are known */
    size_t nheld, capheld;
    kf_part_hole *holes;      /* the reader's holes, in its order */
    size_t nholes, next_hole; /* the next offsets_lost problem is holes[next_hole] */
    uint64_t covered_holes;   /* holes that end below start */
    bool nomem;
} md_covered;

void md_covered_init(md_covered *c, kf_problem_fn fn, void *ctx, int64_t start);
/* The reader's problem_fn (ctx: the md_covered). */
void md_covered_problem(void *ctx, const kf_problem *p);
/* The reader's holes, read before kf_part_reader_close reports them; the
 * held damage is handed on then. */
void md_covered_holes(md_covered *c, const kf_part_reader *r);
/* After the close: frees what c holds (what is still held handed on). The
 * held damage goes on as a warning when no hole reaching start holds it.
 * False when out of memory. */
bool md_covered_finish(md_covered *c);

#endif
