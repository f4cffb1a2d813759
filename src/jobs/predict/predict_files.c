/* predict_files.c: the first passes of LogLoader.load over one partition
 * dir (docs/formats.md §20.3, §20.4; storage/.../log/LogLoader.java:
 * removeTempFilesAndCollectSwapFiles, the swap passes, loadSegmentFiles;
 * LogSegment.sanityCheck, TransactionIndex.sanityCheck): which files the
 * broker deletes and renames, in its order, and the segments left, each
 * with its sanity check (a missing .index or a .txnindex entry below the
 * segment's base recovers it at once: LogLoader.recoverSegment reads and
 * checks every batch, cuts at the first that fails and rebuilds the
 * indexes, whatever the shutdown was). Only names and sizes are looked at,
 * and the .txnindex files read; the swap segments are read for their next
 * offset. */
#include "bytes/error.h"
#include "predict_internal.h"
#include "bytes/grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfsck/sys/dirs.h"
#include "kfsck/sys/file.h"
#include "kfsck/sys/index.h"
#include "kfsck/sys/producer_snapshot.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !memcmp(s + n - m, suffix, m);
}

void pp_offset_name(int64_t base, const char *ext, char *out, size_t cap)
{
    snprintf(out, cap, "%020" PRId64 "%s", base, ext);
}

/* LogFileUtils.offsetFromFileName: the digits before the first '.'. False
 * when there is no '.' (Java: StringIndexOutOfBoundsException) or they do
 * not parse (NumberFormatException); *prefix_len says how long the text was. */
static bool offset_of(const char *name, int64_t *off, size_t *prefix_len)
{
    return kf_name_offset(name, off, prefix_len);
}

/* An exception that is not an IOException stops the broker: the loading
 * thread's NumberFormatException for a file whose name does not start with
 * an offset. */
static void number_format(pp_part *p, const char *name, size_t n)
{
    if (!p->fatal_what)
        p->fatal_what = pp_strf(p, "There was an error in one of the threads during logs loading: "
                                   "java.lang.NumberFormatException: For input string: \"%.*s\" (file %s/%s)",
                                (int)n, name, p->dir, name);
}

static pp_file *find_file(pp_part *p, const char *name)
{
    for (size_t i = 0; i < p->nfiles; i++)
        if (!p->files[i].gone && p->files[i].is_file && !strcmp(p->files[i].name, name))
            return &p->files[i];
    return NULL;
}

static char *file_path(pp_part *p, const char *name)
{
    return pp_strf(p, "%s/%s", p->dir, name);
}

static void drop(pp_part *p, pp_file *f, const char *reason)
{
    pp_act(p, KF_ACT_DELETE_FILE, file_path(p, f->name), reason, f->size);
    f->gone = true;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const pp_file *)a)->name, ((const pp_file *)b)->name);
}

/* The listing, each name stat'ed (File.isFile, canRead, size). */
static int list_files(pp_part *p)
{
    kf_name_list l;
    int rc = kf_list_dir(p->dir, &l);
    if (rc == KF_ERR_NOMEM)
        return rc;
    if (rc != KF_OK) {
        pp_io_error(p, p->dir, kf_error_last()->err_no);
        return KF_OK;
    }
    p->files = calloc(l.n ? l.n : 1, sizeof *p->files);
    if (!p->files) {
        kf_name_list_free(&l);
        return kf_error_nomem();
    }
    for (size_t i = 0; i < l.n; i++) {
        pp_file *f = &p->files[p->nfiles++];
        f->name = l.names[i];
        l.names[i] = NULL;
        char *path = kf_path_join(p->dir, f->name);
        if (!path) {
            kf_name_list_free(&l);
            return KF_ERR_NOMEM;
        }
        struct stat st;
        if (stat(path, &st) == 0) {
            f->is_file = S_ISREG(st.st_mode);
            f->is_fifo = S_ISFIFO(st.st_mode);
            f->is_special = f->is_fifo || S_ISSOCK(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
            f->size = (uint64_t)st.st_size;
            f->mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
            f->readable = access(path, R_OK) == 0;
        }
        free(path);
    }
    kf_name_list_free(&l);
    return KF_OK;
}

static bool is_index_name(const char *n)
{
    return ends_with(n, ".index") || ends_with(n, ".timeindex") || ends_with(n, ".txnindex");
}

/* A FIFO, socket or device named like a file the broker opens (checked
 * against the broker: docs/formats.md §20.3): a FIFO leader-epoch-checkpoint
 * or partition.metadata is opened to be read and waits for a writer, so the
 * broker hangs at start-up; a segment or index file that is not a regular
 * one fails as it is opened (java.io.IOException: Illegal seek) and the log
 * dir goes offline. True when one was found (the forecast stops there). */
static bool special_files(pp_part *p)
{
    for (size_t i = 0; i < p->nfiles; i++) {
        pp_file *f = &p->files[i];
        if (!f->is_special)
            continue;
        const char *path = file_path(p, f->name);
        bool read_whole = !strcmp(f->name, "leader-epoch-checkpoint") || !strcmp(f->name, "partition.metadata");
        if (read_whole && f->is_fifo) {
            p->fatal_what = pp_strf(p, PP_FIFO_HANGS, path);
            return true;
        }
        if (read_whole || ends_with(f->name, ".log") || is_index_name(f->name)) {
            p->io_what = pp_strf(p, "%s is not a regular file (a FIFO, socket or device): opening it fails "
                                    "(java.io.IOException)",
                                 path);
            p->io_error = true;
            return true;
        }
    }
    return false;
}

/* removeTempFilesAndCollectSwapFiles, then the swap passes. */
static void temp_and_swap_files(pp_part *p)
{
    int64_t min_cleaned = INT64_MAX;
    for (size_t i = 0; i < p->nfiles && !p->io_error; i++) {
        pp_file *f = &p->files[i];
        if (!f->is_file)
            continue;
        if (!f->readable) {
            char *path = file_path(p, f->name);
            if (!p->io_what && path)
                p->io_what = pp_strf(p, "Could not read file %s", path);
            p->io_error = true;
            return;
        }
        int64_t off;
        size_t n;
        if (ends_with(f->name, ".deleted") && !ends_with(f->name, ".checkpoint.deleted")) {
            drop(p, f, "marked for deletion (.deleted) before the broker stopped");
        } else if (ends_with(f->name, ".cleaned")) {
            if (!offset_of(f->name, &off, &n)) {
                number_format(p, f->name, n);
                return;
            }
            if (off < min_cleaned)
                min_cleaned = off;
        }
    }
    /* .swap files at or above the smallest .cleaned offset: a split that did not finish */
    for (size_t i = 0; i < p->nfiles; i++) {
        pp_file *f = &p->files[i];
        int64_t off;
        size_t n;
        if (f->gone || !f->is_file || !ends_with(f->name, ".swap"))
            continue;
        if (!offset_of(f->name, &off, &n)) {
            number_format(p, f->name, n);
            return;
        }
        if (off >= min_cleaned)
            drop(p, f, pp_strf(p, "part of a segment split that did not finish (.swap at or above the "
                                  "smallest .cleaned offset %" PRId64 ")", min_cleaned));
    }
    for (size_t i = 0; i < p->nfiles; i++) {
        pp_file *f = &p->files[i];
        if (!f->gone && f->is_file && ends_with(f->name, ".cleaned"))
            drop(p, f, "output of the log cleaner or of a segment split left behind (.cleaned)");
    }
    /* the range the valid .log.swap segments cover */
    int64_t min_swap = INT64_MAX, max_swap = INT64_MIN;
    for (size_t i = 0; i < p->nfiles; i++) {
        pp_file *f = &p->files[i];
        int64_t off;
        size_t n;
        if (f->gone || !f->is_file || !ends_with(f->name, ".log.swap") || !offset_of(f->name, &off, &n))
            continue;
        pp_seg s = {.base = off, .path = file_path(p, f->name), .size = f->size};
        if (!s.path || pp_read_segment(p, &s, true) != KF_OK || p->io_error)
            return;
        int64_t next = s.has_any ? s.any_last + 1 : off;
        if (off < min_swap)
            min_swap = off;
        if (next > max_swap)
            max_swap = next;
    }
    for (size_t i = 0; i < p->nfiles && min_swap < max_swap; i++) {
        pp_file *f = &p->files[i];
        int64_t off;
        size_t n;
        if (f->gone || !f->is_file || ends_with(f->name, ".swap") || !offset_of(f->name, &off, &n))
            continue;
        if (off >= min_swap && off < max_swap)
            drop(p, f, pp_strf(p, "replaced by the .swap segments of offsets %" PRId64 " to %" PRId64
                                  " (compacted or split, the old files not yet deleted)", min_swap, max_swap));
    }
    for (size_t i = 0; i < p->nfiles; i++) {
        pp_file *f = &p->files[i];
        if (f->gone || !f->is_file || !ends_with(f->name, ".swap"))
            continue;
        size_t n = strlen(f->name) - strlen(".swap");
        char *to = pp_strf(p, "%.*s", (int)n, f->name);
        if (!to)
            return;
        pp_file *old = find_file(p, to);
        pp_act(p, KF_ACT_REPLACE_WITH_SWAP, file_path(p, f->name),
               pp_strf(p, "renamed to %s (an interrupted swap of cleaned or split segments)", to), f->size);
        if (old)
            old->gone = true;
        free(f->name);
        f->name = strdup(to);
        if (!f->name) {
            p->rc = KF_ERR_NOMEM;
            f->gone = true;
        }
    }
}

/* TransactionIndex.sanityCheck, and its iterator's version check: the words
 * of the first failing entry, NULL when it passes (or there is no file). */
static const char *txn_index_check(pp_part *p, int64_t base, bool *fatal)
{
    char name[64];
    pp_offset_name(base, ".txnindex", name, sizeof name);
    if (!find_file(p, name))
        return NULL;
    char *path = file_path(p, name);
    if (!path)
        return NULL;
    kf_index ix; /* read in pieces, whatever its size */
    int rc = kf_index_open_path(&ix, path, KF_TXN_ENTRY_SIZE, base);
    if (rc == KF_ERR_NOMEM) {
        p->rc = rc;
        return NULL;
    }
    if (rc != KF_OK) {
        pp_io_error(p, path, kf_error_last()->err_no);
        return NULL;
    }
    const char *why = NULL;
    for (uint64_t i = 0; i < ix.entries && !why; i++) {
        kf_txn_entry e;
        kf_txn_index_entry(&ix, i, &e);
        if (e.version > 0) {
            *fatal = true;
            why = pp_strf(p, "Unexpected aborted transaction version %d in transaction index %s, current version is 0",
                          (int)e.version, path);
        } else if (e.last_offset < base) {
            why = pp_strf(p, "Last offset of aborted transaction AbortedTxn(version=%d, producerId=%" PRId64
                             ", firstOffset=%" PRId64 ", lastOffset=%" PRId64 ", lastStableOffset=%" PRId64
                             ") in index %s is less than start offset %" PRId64,
                          (int)e.version, e.producer_id, e.first_offset, e.last_offset, e.last_stable_offset, path,
                          base);
        }
    }
    if (kf_index_read_status(&ix) != KF_OK)
        pp_io_error(p, path, kf_error_last()->err_no ? kf_error_last()->err_no : EIO);
    kf_index_close(&ix);
    return why;
}

static pp_seg *add_seg(pp_part *p, int64_t base, const pp_file *f)
{
    if (!KF_GROW(p->segs, p->nsegs, p->capsegs, 8)) {
        p->rc = KF_ERR_NOMEM;
        return NULL;
    }
    pp_seg *s = &p->segs[p->nsegs++];
    *s = (pp_seg){.base = base, .path = file_path(p, f->name), .size = f->size, .mtime_ms = f->mtime_ms,
                  .kept_max_ts = -1, .largest_ts = -1};
    return s;
}

/* loadSegmentFiles: orphan indexes deleted, each .log a segment, checked. */
static void load_segments(pp_part *p)
{
    qsort(p->files, p->nfiles, sizeof *p->files, cmp_file);
    for (size_t i = 0; i < p->nfiles && p->rc == KF_OK && !p->io_error && !p->fatal_what; i++) {
        pp_file *f = &p->files[i];
        int64_t off;
        size_t n;
        char canon[64];
        if (f->gone || !f->is_file)
            continue;
        bool index = is_index_name(f->name), log = ends_with(f->name, ".log");
        if (!index && !log)
            continue;
        if (!offset_of(f->name, &off, &n)) {
            number_format(p, f->name, n);
            return;
        }
        pp_offset_name(off, ".log", canon, sizeof canon);
        if (index) {
            if (!find_file(p, canon))
                drop(p, f, pp_strf(p, "orphaned index file: no %s beside it", canon));
            continue;
        }
        if (strcmp(f->name, canon) != 0)
            continue; /* the broker opens the segment under the canonical name only */
        pp_seg *s = add_seg(p, off, f);
        if (!s)
            return;
        char ix[64];
        pp_offset_name(off, ".index", ix, sizeof ix);
        if (!find_file(p, ix)) {
            pp_recover_segment(p, p->nsegs - 1,
                               pp_strf(p, "Could not find offset index file corresponding to log file %s, "
                                          "recovering segment and rebuilding index files...", s->path),
                               KF_ACT_RECOVER_SEGMENT);
            continue;
        }
        bool fatal = false;
        const char *why = txn_index_check(p, off, &fatal);
        if (fatal) {
            if (!p->fatal_what)
                p->fatal_what = pp_strf(p, "There was an error in one of the threads during logs loading: "
                                           "org.apache.kafka.common.KafkaException: %s", why);
            return;
        }
        if (why)
            pp_recover_segment(p, p->nsegs - 1,
                               pp_strf(p, "Found a corrupted index file corresponding to log file %s due to %s, "
                                          "recovering segment and rebuilding index files...", s->path, why),
                               KF_ACT_RECOVER_SEGMENT);
    }
}

/* The producer-state snapshots among the files left. */
static void collect_snapshots(pp_part *p)
{
    for (size_t i = 0; i < p->nfiles; i++) {
        pp_file *f = &p->files[i];
        int64_t off;
        size_t n;
        if (f->gone || !f->is_file || !ends_with(f->name, ".snapshot") || !offset_of(f->name, &off, &n) ||
            n + strlen(".snapshot") != strlen(f->name))
            continue;
        char *path = file_path(p, f->name);
        kf_producer_snapshot s = {0}; /* its CRC checked a block at a time, whatever its size */
        bool valid = path && kf_producer_snapshot_open(&s, path) == KF_OK;
        kf_producer_snapshot_close(&s);
        pp_snap_put(p, off, valid);
    }
}

int pp_load_files(pp_part *p)
{
    int rc = list_files(p);
    if (rc != KF_OK || p->io_error)
        return rc;
    if (special_files(p))
        return p->rc;
    temp_and_swap_files(p);
    if (p->rc == KF_OK && !p->io_error && !p->fatal_what) {
        /* snapshots are listed before any recovery: recoverSegment's
         * producer-state rebuilds work on the files as the load found them */
        qsort(p->files, p->nfiles, sizeof *p->files, cmp_file);
        collect_snapshots(p);
    }
    if (p->rc == KF_OK && !p->io_error && !p->fatal_what)
        load_segments(p);
    return p->rc;
}
