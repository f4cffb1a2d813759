/* walk.h: path helpers of the command-line tool that exit on out of memory
 * (the library's kf_path_join / kf_path_dir return NULL instead), the
 * out-of-memory exit itself, and the commands' start of the library's walk
 * (kfsck/paths.h): its options and the printing of a PATH it could not use. */
#ifndef KFSCK_CLI_WALK_H
#define KFSCK_CLI_WALK_H

#include "kfsck/paths.h"

/* "kfsck: out of memory" on stderr, then exit 3. */
void cli_oom(void) __attribute__((noreturn));
/* p, or cli_oom() when it is NULL: x = must(malloc(n)). */
void *must(void *p);

/* The words for a PATH that is a FIFO, socket or device (the walk's special_what). */
#define CLI_SPECIAL_WHAT KF_PATH_SPECIAL_WHAT

/* The walk's options as a command starts them: kf_paths_walk_opts_init's,
 * a FIFO or device said in CLI_SPECIAL_WHAT's words, every unusable PATH
 * printed (print_path_error), ctx the callbacks'. */
void cli_walk_opts_init(kf_paths_walk_opts *o, void *ctx);

/* A kf_path_error_fn: "kfsck: <path>: <what>" on stderr (ctx unused). */
void print_path_error(void *ctx, const char *path, int err_no, const char *what);

/* The directories a walk found among the PATHs, in their order (pointing
 * into the PATHs); free paths. cli_add_dir is a kf_path_entry_fn adding
 * e->path to the cli_dirs its ctx is; cli_count_path_error a
 * kf_path_error_fn that prints as print_path_error and counts in the
 * uint64_t its ctx is (scan's DATADIRs, predict's log dirs). */
typedef struct cli_dirs {
    char **paths;
    size_t n;
} cli_dirs;
int cli_add_dir(void *ctx, const kf_path_entry *e);
void cli_count_path_error(void *ctx, const char *path, int err_no, const char *what);

/* The cluster rule over a command's PATHs (kf_paths_one_cluster): true
 * when they are of different clusters, said in one line on stderr; the
 * command then exits EXIT_FAIL having read nothing. */
bool cli_mixed_clusters(char *const *paths, int n);

/* dir + "/" + name, malloc'd. */
char *path_join(const char *dir, const char *name);
/* The directory part of path ("." when none), malloc'd. */
char *path_dir(const char *path);

#endif
