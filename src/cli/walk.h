/* walk.h: turning command-line PATHs into files, partitions and data dirs. */
#ifndef KFSCK_CLI_WALK_H
#define KFSCK_CLI_WALK_H

#include <stdbool.h>
#include <stddef.h>

/* A sorted list of the names in a directory (no "." / ".."). */
typedef struct name_list {
    char **names;
    size_t n;
} name_list;

/* Returns 0, or -1 with errno set. */
int list_dir(const char *dir, name_list *out);
void name_list_free(name_list *l);

/* dir + "/" + name, malloc'd (never fails: aborts the process on OOM). */
char *path_join(const char *dir, const char *name);
const char *path_base(const char *path);
/* The directory part of path ("." when none), malloc'd. */
char *path_dir(const char *path);

typedef enum path_kind { PATH_MISSING, PATH_FILE, PATH_PARTITION, PATH_DATADIR, PATH_OTHER_DIR } path_kind;
/* What a PATH is: a file, a partition dir (holds .log files or is named
 * <topic>-<n>), a data dir (holds partition dirs or meta.properties). */
path_kind classify_path(const char *path);

/* A file with a name kfsck does not know, named on the command line: does it
 * start like a .log segment (size field >= 14, magic 0..2)? Captured fetch
 * responses cut to their records are read this way. */
bool looks_like_log(const char *path);

#endif
