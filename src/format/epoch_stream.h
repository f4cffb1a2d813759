/* epoch_stream.h: a leader-epoch-checkpoint read entry by entry, in pieces,
 * never whole, for the readers that walk a partition's batches and its
 * epochs side by side (the partition reader, repair): memory stays a few
 * tens of KiB whatever the file's size. Opening reads the file once to
 * check it (as kf_leader_epochs_read: its problems go to the caller), and
 * only a file that parses whole hands out entries, from a second pass.
 * Private to the library. */
#ifndef KFSCK_FORMAT_EPOCH_STREAM_H
#define KFSCK_FORMAT_EPOCH_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "kfsck/sys/checkpoint.h"

typedef struct kf_epoch_stream {
    bool present;             /* the file is there (only "no such file" is absent) */
    bool read;                /* it was read to its end */
    bool valid;               /* read, and nothing in it was wrong: entries to come */
    struct kf_epoch_pass *pass; /* the second pass, while valid */
} kf_epoch_stream;

/* Opens and checks the leader-epoch-checkpoint at path (problems to pfn,
 * which may be NULL). KF_OK, or KF_ERR_NOMEM. Close with
 * kf_epoch_stream_close whatever it returned. */
int kf_epoch_stream_open(kf_epoch_stream *s, const char *path, kf_problem_fn pfn, void *pctx);
/* The next entry, in file order: 1; 0 at the end (or when the file is not
 * valid, or no longer reads as it did when checked). */
int kf_epoch_stream_next(kf_epoch_stream *s, kf_leader_epoch *e);
void kf_epoch_stream_close(kf_epoch_stream *s);

#endif
