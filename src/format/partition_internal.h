/* partition_internal.h: what the walk over PATHs for KRaft metadata
 * (jobs/kraft_inputs.c) shares with the one of partition.c, so both report
 * an unusable path alike. Private to libkfsck. */
#ifndef KFSCK_FORMAT_PARTITION_INTERNAL_H
#define KFSCK_FORMAT_PARTITION_INTERNAL_H

#include "kfsck/dirs.h"
#include "kfsck/partition.h"

/* A path of kind KF_PATH_ERROR (err_no says why) or KF_PATH_SPECIAL is
 * reported through fn (when set) and gives KF_ERR_IO; any other kind gives
 * KF_OK, nothing reported. */
int kf_path_unusable(const char *path, kf_path_kind kind, int err_no, kf_path_error_fn fn, void *ctx);

#endif
