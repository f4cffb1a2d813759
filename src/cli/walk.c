/* walk.c: the CLI's path helpers (walk.h): the library's, exiting on out of
 * memory so the commands need no check at every join or allocation, and
 * the printing of an unusable PATH. */
#include "cli/walk.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"

void cli_oom(void)
{
    fputs("kfsck: out of memory\n", stderr);
    exit(EXIT_FAIL);
}

void *must(void *p)
{
    if (!p)
        cli_oom();
    return p;
}

void print_path_error(void *ctx, const char *path, int err_no, const char *what)
{
    (void)ctx;
    (void)err_no;
    cli_error(path, "%s", what);
}

char *path_join(const char *dir, const char *name) { return must(kf_path_join(dir, name)); }

char *path_dir(const char *path) { return must(kf_path_dir(path)); }
