/* file.c: read-only mapping of input files and sparse-hole queries.
 * Inputs are opened O_RDONLY and mapped PROT_READ/MAP_PRIVATE, so nothing can
 * ever be written back, and memory use does not grow with the file size. */
#include "kfsck/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfsck/common.h"

int kf_map_open(kf_map *m, const char *path, uint64_t max_bytes)
{
    m->data = NULL;
    m->size = 0;
    m->err_no = 0;
    m->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (m->fd < 0) {
        m->err_no = errno;
        return KF_ERR_IO;
    }
    struct stat st;
    if (fstat(m->fd, &st) != 0) {
        m->err_no = errno;
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        m->err_no = EISDIR;
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        m->err_no = EINVAL;
        goto fail;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (max_bytes && size > max_bytes)
        size = max_bytes;
    if (size > 0) {
        void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, m->fd, 0);
        if (p == MAP_FAILED) {
            m->err_no = errno;
            goto fail;
        }
        m->data = p;
    }
    m->size = size;
    return KF_OK;
fail:
    close(m->fd);
    m->fd = -1;
    return KF_ERR_IO;
}

void kf_map_close(kf_map *m)
{
    if (m->data)
        munmap((void *)m->data, (size_t)m->size);
    if (m->fd >= 0)
        close(m->fd);
    m->data = NULL;
    m->size = 0;
    m->fd = -1;
}

char *kf_path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    size_t k = a;
    if (a && dir[a - 1] != '/')
        p[k++] = '/';
    memcpy(p + k, name, b + 1);
    return p;
}

void kf_map_sequential(const kf_map *m)
{
    if (m->data && m->size)
        madvise((void *)m->data, (size_t)m->size, MADV_SEQUENTIAL);
}

int kf_map_next_hole(const kf_map *m, uint64_t from, uint64_t end, uint64_t *hole_start, uint64_t *hole_end)
{
#if defined(SEEK_HOLE) && defined(SEEK_DATA)
    if (m->fd < 0 || from >= end)
        return 0;
    off_t h = lseek(m->fd, (off_t)from, SEEK_HOLE);
    if (h < 0 || (uint64_t)h >= end)
        return 0;
    off_t d = lseek(m->fd, h, SEEK_DATA);
    uint64_t he = (d < 0) ? end : (uint64_t)d; /* ENXIO: hole runs to EOF */
    if (he > end)
        he = end;
    if (he <= (uint64_t)h)
        return 0;
    *hole_start = (uint64_t)h;
    *hole_end = he;
    return 1;
#else
    (void)m; (void)from; (void)end; (void)hole_start; (void)hole_end;
    return 0;
#endif
}
