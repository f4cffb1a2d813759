/* paths.h: the walk over the PATHs given to a command. Each PATH is
 * classified once (kf_classify_path): a file (a segment, an index or another
 * Kafka file), a partition directory (also KRaft's __cluster_metadata-0), or
 * a broker data directory holding partition directories, whose entries are
 * classified in turn. What is found goes to the caller's callbacks, in the
 * order of the PATHs and, inside a data dir, in name order; every PATH that
 * cannot be used goes to one error callback (its errno and words for
 * "kfsck: <path>: <what>"). Each data dir comes with what its
 * meta.properties says (broker or node id, cluster id), and each partition
 * directory with the data dir holding it, so partitions can be grouped by
 * broker and copies of different clusters told apart. Every job that takes
 * PATHs walks them here (kf_inputs_collect, kf_kraft_inputs_collect,
 * kf_verify_paths, kf_datadir_scan), and the walk keeps the one rule about
 * clusters (below): PATHs of different clusters are refused together.
 * Nothing here reads a segment. */
#ifndef KFSCK_PATHS_H
#define KFSCK_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfsck/sys/checkpoint.h"
#include "kfsck/sys/dirs.h"
#include "kfsck/sys/names.h"
#include "kfsck/partition.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A broker data directory and its meta.properties. */
typedef struct kf_datadir_info {
    const char *path;         /* the data dir: a PATH, or a partition dir PATH's parent */
    const char *meta_path;    /* path/meta.properties when it is a regular file, else NULL */
    bool has_meta;            /* meta.properties was read and parsed */
    kf_meta_properties meta;  /* when has_meta: broker_id / node_id, cluster_id ("" when absent) */
    /* the cluster.id its meta.properties names, also when the file is not
     * one the broker would read (has_meta false); "" when none */
    const char *cluster_id;
} kf_datadir_info;

/* One path the walk met: a PATH, or an entry of a data dir PATH. */
typedef struct kf_path_entry {
    const char *path;          /* the PATH as given, or datadir/name */
    const char *name;          /* its last component */
    /* kf_classify_path's kind. Entries of a data dir passed to partition_fn
     * are KF_PATH_PARTITION, or a directory named <topic>-<n> that is
     * KF_PATH_DATADIR, or (with unreadable_partitions) KF_PATH_UNREADABLE. A data
     * dir's own files (datadir_file_fn) are only stat'ed: KF_PATH_FILE,
     * KF_PATH_SPECIAL or KF_PATH_UNREADABLE. */
    kf_path_kind kind;
    int err_no;                /* with KF_PATH_UNREADABLE: why */
    /* With KF_PATH_UNREADABLE, the one wording of why it cannot be used
     * (kf_path_why: a dangling or looping symlink named with its target),
     * valid during the call. An entry named <topic>-<n> that cannot be read
     * is never skipped in silence: it is reported through error_fn with
     * these words, or (unreadable_partitions) handed to partition_fn, which
     * reports it so. */
    const char *why;
    kf_name_info file;         /* what its name says (kf_classify_name) */
    bool partition_named;      /* the name is <topic>-<n> (also with a -delete/-future/-stray suffix) */
    char topic[256];           /* when partition_named */
    int32_t partition;         /* when partition_named, else -1 */
    bool in_datadir;           /* an entry of a data dir PATH (false: a PATH itself) */
    bool looks_like_log;       /* with sniff_logs, a file PATH: its first bytes frame as a record
                                  batch (kf_looks_like_log), whatever its name says */
    /* The data dir holding it (a data dir PATH: the PATH itself; a partition
     * dir PATH: its parent), NULL for a file PATH. Valid during the call. */
    const kf_datadir_info *datadir;
} kf_path_entry;

/* Callbacks return KF_OK, or KF_ERR_IO for a path they reported unusable
 * (the walk goes on and returns KF_ERR_IO at the end); any other kf_err
 * stops the walk and is returned. Each may be NULL (nothing done). */
typedef int (*kf_path_entry_fn)(void *ctx, const kf_path_entry *e);

#define KF_PATHS_WALK_OPTIONS_VERSION 2
#define KF_PATHS_WALK_OPTIONS_INIT KF_OPTIONS_INIT_(kf_paths_walk_opts, KF_PATHS_WALK_OPTIONS_VERSION)
typedef struct kf_paths_walk_opts {
    unsigned version;         /* KF_PATHS_WALK_OPTIONS_VERSION (kfsck.h: options) */
    kf_path_entry_fn file_fn;        /* a PATH that is a regular file */
    kf_path_entry_fn partition_fn;   /* a partition dir: a PATH, or an entry of a data dir */
    kf_path_entry_fn datadir_fn;     /* a PATH that is a data dir (e->datadir: it), before its entries */
    kf_path_entry_fn datadir_file_fn;/* a data dir's own file (meta.properties, an offset
                                        checkpoint, bootstrap.checkpoint) that is not a directory */
    /* A directory PATH that is neither a partition dir nor a data dir
     * (KF_PATH_OTHER_DIR; not with empty_dir_is_datadir when it is empty).
     * NULL: it is unusable (error_fn with other_dir_what). */
    kf_path_entry_fn other_dir_fn;
    /* Any other entry of a data dir (that want_fn wants): kf_classify_path's
     * kind, a file, special file, unreadable path or directory that is not
     * a partition (KF_PATH_DATADIR only when not named <topic>-<n>). */
    kf_path_entry_fn other_entry_fn;
    /* Which entries of a data dir to look at (NULL: all), by name, before
     * they are classified (e->kind is not set yet). */
    bool (*want_fn)(void *ctx, const kf_path_entry *e);
    bool descend;               /* walk into each data dir PATH (else datadir_fn only) */
    bool unreadable_partitions; /* a data dir's entry named <topic>-<n> that cannot be read
                                   goes to partition_fn (KF_PATH_UNREADABLE) instead of error_fn */
    bool empty_dir_is_datadir;  /* an empty directory PATH is a data dir with nothing in it */
    bool sniff_logs;            /* read the first bytes of each file PATH: e->looks_like_log */
    const char *special_what;   /* words for a PATH that is a FIFO, socket or device
                                   (NULL: "not a regular file or directory") */
    const char *other_dir_what; /* ... for a directory PATH that is neither (NULL: "neither
                                   a partition directory nor a broker data directory") */
    void *ctx;                  /* of the callbacks above */
    kf_path_error_fn error_fn;  /* each PATH (or data dir entry) that cannot be used */
    void *error_ctx;
    /* Version 2: walk PATHs of different clusters too (predict: a broker
     * whose log dirs disagree is its finding, not an input to refuse). By
     * default kf_paths_walk first keeps the cluster rule over the PATHs
     * (kf_paths_one_cluster): a conflict is one report through error_fn,
     * and nothing is walked (KF_ERR_IO). */
    bool mixed_clusters;
} kf_paths_walk_opts;

/* Fills *o as KF_PATHS_WALK_OPTIONS_INIT does: the version, every other field zero (its
 * default: nothing walked into, the usual words). Every function here taking a kf_paths_walk_opts: it may be NULL
 * (the defaults); its version must be 1..KF_PATHS_WALK_OPTIONS_VERSION, else
 * KF_ERR_UNSUPPORTED (kfsck.h, "Options"). */
void kf_paths_walk_opts_init(kf_paths_walk_opts *o);

/* Walk paths. KF_OK; KF_ERR_IO when some path could not be used (each
 * reported through error_fn), a callback said so, or the PATHs are of
 * different clusters (then nothing was walked); KF_ERR_NOMEM; or what a
 * callback stopped the walk with. */
int kf_paths_walk(char *const *paths, size_t n, const kf_paths_walk_opts *o);

/* Walk the entries of the data dir dir (partition_fn, datadir_file_fn,
 * want_fn; nothing goes to error_fn for dir itself). When dir cannot be
 * listed: KF_ERR_IO with the last error (common.h) naming dir and the
 * errno, nothing reported. Otherwise as kf_paths_walk. */
int kf_datadir_walk(const char *dir, const kf_paths_walk_opts *o);

/* ---- one cluster ------------------------------------------------------------
 *
 * Data of different clusters is never read as copies of one another, in any
 * command that takes several PATHs: that is an error naming both inputs and
 * both ids. An input names its cluster by the cluster.id line of its data
 * dir's meta.properties (KRaft's form, version=1 with node.id and
 * directory.id, and ZooKeeper's, version=0 with broker.id, alike; a file
 * whose other lines the broker would refuse still names it); a `kfsck scan
 * --json` file by its lines (replicas). An input that names none joins any.
 * The first input to name one sets it. */
typedef struct kf_one_cluster {
    char *cluster_id;   /* the first cluster.id named (NULL: none yet) */
    char *path;         /* and the input that named it */
} kf_one_cluster;

/* Adds an input: KF_OK when cluster_id (NULL or "": none) is the one named
 * before, or the first; else KF_ERR_IO after one report through fn (may be
 * NULL): path, err_no 0 and "<what> cluster.id <id>, but <first path>
 * names <first id>: data dirs of different clusters are never read as
 * copies of one another" (what says how path names it: "its
 * meta.properties names"). KF_ERR_NOMEM. Free with kf_one_cluster_free. */
int kf_one_cluster_add(kf_one_cluster *c, const char *path, const char *what, const char *cluster_id,
                       kf_path_error_fn fn, void *ctx);
void kf_one_cluster_free(kf_one_cluster *c);

/* The rule over paths, each by the data dir it belongs to (a data dir PATH
 * itself, a partition dir's parent, a segment's partition dir's parent;
 * that data dir's path is the one reported). KF_OK, KF_ERR_IO (the first
 * conflict reported through fn), or KF_ERR_NOMEM. */
int kf_paths_one_cluster(char *const *paths, size_t n, kf_path_error_fn fn, void *ctx);

/* What a data dir's meta.properties says: info->path = dir (not copied).
 * KF_OK (has_meta false when it is missing or does not parse) or
 * KF_ERR_NOMEM; free with kf_datadir_info_free. */
int kf_datadir_info_read(kf_datadir_info *info, const char *dir);
void kf_datadir_info_free(kf_datadir_info *info);

#ifdef __cplusplus
}
#endif

#endif
