/* paths.h: the library's own shorthand for the walk over PATHs of
 * kfsck/paths.h (paths.c). Internal to the library. */
#ifndef KFSCK_FORMAT_PATHS_H
#define KFSCK_FORMAT_PATHS_H

#include "kfsck/paths.h"

/* kf_paths_walk_opts_init, then the fields most walks set: file_fn on a file
 * PATH, partition_fn on a partition dir, datadir_fn on a data dir, called
 * with ctx; each unusable PATH to error_fn with error_ctx. Any of them may be
 * NULL. */
void kf_paths_walk_opts_on(kf_paths_walk_opts *o, kf_path_entry_fn file_fn, kf_path_entry_fn partition_fn,
                           kf_path_entry_fn datadir_fn, void *ctx, kf_path_error_fn error_fn, void *error_ctx);

#endif
