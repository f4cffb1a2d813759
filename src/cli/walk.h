/* walk.h: path helpers of the command-line tool that exit on out of memory
 * (the library's kf_path_join / kf_path_dir return NULL instead). */
#ifndef KFSCK_CLI_WALK_H
#define KFSCK_CLI_WALK_H

/* dir + "/" + name, malloc'd. */
char *path_join(const char *dir, const char *name);
/* The directory part of path ("." when none), malloc'd. */
char *path_dir(const char *path);

#endif
