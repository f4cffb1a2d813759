/* walk.c: directory listing and path helpers for the commands. */
#include "cli/walk.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kfsck/names.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("kfsck: out of memory\n", stderr);
        exit(3);
    }
    return p;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int list_dir(const char *dir, name_list *out)
{
    out->names = NULL;
    out->n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(out->names, cap * sizeof *nn);
            if (!nn) {
                fputs("kfsck: out of memory\n", stderr);
                exit(3);
            }
            out->names = nn;
        }
        size_t len = strlen(e->d_name);
        out->names[out->n] = xmalloc(len + 1);
        memcpy(out->names[out->n], e->d_name, len + 1);
        out->n++;
    }
    closedir(d);
    if (out->n)
        qsort(out->names, out->n, sizeof *out->names, cmp_names);
    return 0;
}

void name_list_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->n = 0;
}

char *path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    bool slash = a > 0 && dir[a - 1] == '/';
    char *p = xmalloc(a + b + 2);
    memcpy(p, dir, a);
    if (!slash)
        p[a++] = '/';
    memcpy(p + a, name, b + 1);
    return p;
}

const char *path_base(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *s = path;
    for (size_t i = 0; i + 1 < n; i++)
        if (path[i] == '/')
            s = path + i + 1;
    return s;
}

char *path_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        char *d = xmalloc(2);
        strcpy(d, ".");
        return d;
    }
    size_t n = (size_t)(slash - path);
    if (n == 0)
        n = 1;
    char *d = xmalloc(n + 1);
    memcpy(d, path, n);
    d[n] = 0;
    return d;
}

path_kind classify_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return PATH_MISSING;
    if (!S_ISDIR(st.st_mode))
        return PATH_FILE;
    name_list l;
    if (list_dir(path, &l) != 0)
        return PATH_OTHER_DIR;
    path_kind k = PATH_OTHER_DIR;
    bool has_partition_dir = false, has_meta = false;
    for (size_t i = 0; i < l.n; i++) {
        kf_name_info ni = kf_classify_name(l.names[i]);
        if (ni.kind == KF_FILE_LOG || ni.kind == KF_FILE_PARTITION_METADATA || ni.kind == KF_FILE_LEADER_EPOCH) {
            k = PATH_PARTITION;
            break;
        }
        if (ni.kind == KF_FILE_META_PROPERTIES || ni.kind == KF_FILE_OFFSET_CHECKPOINT)
            has_meta = true;
        char topic[256];
        int32_t part;
        if (kf_parse_partition_dir(l.names[i], topic, sizeof topic, &part)) {
            char *sub = path_join(path, l.names[i]);
            struct stat s2;
            if (stat(sub, &s2) == 0 && S_ISDIR(s2.st_mode))
                has_partition_dir = true;
            free(sub);
        }
    }
    if (k == PATH_OTHER_DIR && (has_partition_dir || has_meta))
        k = PATH_DATADIR;
    if (k == PATH_OTHER_DIR) {
        char topic[256];
        int32_t part;
        if (kf_parse_partition_dir(path_base(path), topic, sizeof topic, &part))
            k = PATH_PARTITION;
    }
    name_list_free(&l);
    return k;
}

bool looks_like_log(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint8_t h[17];
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    if (n < sizeof h)
        return false;
    int32_t len = (int32_t)((uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11]);
    return h[16] <= 2 && len >= 14;
}
