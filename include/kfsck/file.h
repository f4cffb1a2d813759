/* file.h: read-only access to input files. Files are mapped, never copied to
 * the heap, so memory stays bounded whatever the size; holes in sparse files
 * (SEEK_DATA/SEEK_HOLE) can be listed so a damaged disk's zeroed ranges are
 * found without reading them. */
#ifndef KFSCK_FILE_H
#define KFSCK_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct kf_map {
    const uint8_t *data; /* NULL when size == 0 */
    uint64_t size;
    int fd;              /* kept open (read-only) for hole queries; -1 if none */
    int err_no;          /* errno of the failure, when kf_map_open fails */
} kf_map;

/* Open `path` read-only and map it (a limit of max_bytes > 0 maps only the
 * first max_bytes). Returns KF_OK, or KF_ERR_IO with m->err_no set. */
int kf_map_open(kf_map *m, const char *path, uint64_t max_bytes);
void kf_map_close(kf_map *m);

/* Find the first hole (a range with no data on disk) at or after `from`,
 * before `end`. Returns 1 and sets [*hole_start, *hole_end) if one exists,
 * 0 if none (or the file system cannot tell). */
int kf_map_next_hole(const kf_map *m, uint64_t from, uint64_t end, uint64_t *hole_start, uint64_t *hole_end);

/* dir + "/" + name (no doubled slash), malloc'd; NULL when out of memory. */
char *kf_path_join(const char *dir, const char *name);

/* Advise the kernel the mapping will be read sequentially. */
void kf_map_sequential(const kf_map *m);

#endif
