/* walk.c: the CLI's path helpers (walk.h): the library's, exiting on out of
 * memory so the commands need no check at every join or allocation, the
 * walk's options as the commands start them and the printing of an
 * unusable PATH. */
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

int cli_add_dir(void *ctx, const kf_path_entry *e)
{
    cli_dirs *f = ctx;
    f->paths = must(realloc(f->paths, (f->n + 1) * sizeof *f->paths));
    f->paths[f->n++] = (char *)e->path;
    return KF_OK;
}

void cli_count_path_error(void *ctx, const char *path, int err_no, const char *what)
{
    ++*(uint64_t *)ctx;
    print_path_error(NULL, path, err_no, what);
}

void cli_walk_opts_init(kf_paths_walk_opts *o, void *ctx)
{
    kf_paths_walk_opts_init(o);
    o->special_what = CLI_SPECIAL_WHAT;
    o->error_fn = print_path_error;
    o->ctx = ctx;
}

bool cli_mixed_clusters(char *const *paths, int n)
{
    int rc = kf_paths_one_cluster(paths, (size_t)n, print_path_error, NULL);
    if (rc == KF_ERR_NOMEM)
        cli_oom();
    return rc != KF_OK;
}

char *path_join(const char *dir, const char *name) { return must(kf_path_join(dir, name)); }

char *path_dir(const char *path) { return must(kf_path_dir(path)); }
