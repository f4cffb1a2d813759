/* replay.c: standalone driver for kfsck's fuzz targets.
 *
 * Every tests/fuzz/fuzz_<name>.c defines the libFuzzer entry point
 * LLVMFuzzerTestOneInput() (and may define LLVMFuzzerInitialize()). Linked
 * with clang's -fsanitize=fuzzer (`make fuzz`) a target is a real fuzzer.
 * Linked with this file instead (`make` builds build/fuzz/replay_<name>,
 * `make SAN=1` build-san/fuzz/replay_<name>) it becomes a regression test
 * that needs no libFuzzer: main() walks the files and directories given on
 * the command line (recursively, in sorted order), reads each file into an
 * exactly-sized heap buffer (so the sanitizers see any read past its end)
 * and calls the target once per file. Files over 16 MiB are skipped.
 *
 * tests/run.sh runs each replay binary on its corpus, tests/fuzz/corpus/<name>/,
 * and on every file under fixtures/, under the normal and the ASan+UBSan
 * build. The target's return value is ignored, as libFuzzer does: the only
 * failure is a crash or a sanitizer report, which aborts the process.
 *
 * Usage: replay_<name> FILE|DIR...   (prints "replayed N inputs", exits 0)
 * To reproduce a crash found by `make fuzz`: replay_<name> crash-<sha1>
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPLAY_MAX_INPUT ((size_t)16 << 20)
#define REPLAY_MAX_DEPTH 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static unsigned long replayed, skipped;

static int run_file(const char *path, const struct stat *st)
{
    if ((uint64_t)st->st_size > REPLAY_MAX_INPUT) {
        fprintf(stderr, "replay: %s: skipped (%lld bytes, over 16 MiB)\n", path, (long long)st->st_size);
        skipped++;
        return 0;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = (size_t)st->st_size;
    /* malloc(0) may return NULL; give the target a valid pointer anyway. */
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) {
        fclose(f);
        fprintf(stderr, "replay: %s: out of memory\n", path);
        return -1;
    }
    size_t n = cap ? fread(buf, 1, cap, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "replay: %s: read error\n", path);
        free(buf);
        return -1;
    }
    if (n < cap) {
        /* File shrank while reading: hand over an exactly-sized copy. */
        uint8_t *b2 = malloc(n ? n : 1);
        if (!b2) {
            free(buf);
            return -1;
        }
        memcpy(b2, buf, n);
        free(buf);
        buf = b2;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    replayed++;
    return 0;
}

static int run_path(const char *path, int depth);

static int run_dir(const char *path, int depth)
{
    if (depth > REPLAY_MAX_DEPTH) {
        fprintf(stderr, "replay: %s: too deep, skipped\n", path);
        return 0;
    }
    struct dirent **ents = NULL;
    int n = scandir(path, &ents, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = ents[i]->d_name;
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && rc == 0) {
            size_t len = strlen(path) + 1 + strlen(name) + 1;
            char *child = malloc(len);
            if (!child) {
                rc = -1;
            } else {
                snprintf(child, len, "%s/%s", path, name);
                rc = run_path(child, depth + 1);
                free(child);
            }
        }
        free(ents[i]);
    }
    free(ents);
    return rc;
}

static int run_path(const char *path, int depth)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        /* Follow links to files; never follow links to directories (loops). */
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            return 0;
    }
    if (S_ISDIR(st.st_mode))
        return run_dir(path, depth);
    if (S_ISREG(st.st_mode))
        return run_file(path, &st);
    return 0; /* fifos, sockets, devices: not inputs */
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (run_path(argv[i], 0) != 0)
            return 1;
    }
    printf("replayed %lu inputs", replayed);
    if (skipped)
        printf(" (%lu over 16 MiB skipped)", skipped);
    printf("\n");
    return 0;
}
