/* fuzz_scan_lines.c: fuzz target for the reader of `kfsck scan --json`
 * files that `kfsck replicas` takes (src/jobs/replicas/replicas_scanfile.c): the
 * input is the file (held in a memfd and opened by its /proc path, so the
 * reader's own open, pread line reader, line cap and Jansson parsing all
 * run): the first-line sniff, the first read (runs, bad lines, cluster
 * ids), then every run's stream to its end. Any crash, sanitizer report or
 * hang is a bug; the results themselves are ignored.
 *
 * Built as build/fuzz/replay_scan_lines by `make` (see replay.c), and as a
 * libFuzzer binary by `make fuzz`:
 *   build/fuzz-lf/fuzz_scan_lines -max_len=8192 tests/fuzz/corpus/scan_lines
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobs/replicas/replicas_internal.h"
#include "kfsck/kfsck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void on_problem(void *ctx, const kf_problem *p)
{
    (void)ctx;
    sink += strlen(p->message) + p->position;
}

static int on_cluster(void *ctx, const char *path, const char *cluster_id)
{
    (void)ctx;
    (void)path;
    sink += strlen(cluster_id);
    return KF_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("scan_lines", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int err_no;
    sink += rp_scan_file_sniff(path, &err_no);
    rp_scan_file *f;
    if (rp_scan_file_open(&f, path, on_problem, NULL, on_cluster, NULL) == KF_OK) {
        for (size_t i = 0; i < rp_scan_file_runs(f); i++) {
            rp_stream s = rp_scan_file_stream(f, i);
            rp_rec r = {0};
            while (s.next(s.self, &r) == 1) {
                sink += r.nepochs + strlen(r.topic) + (size_t)r.partition;
                rp_rec_free(&r);
            }
            rp_rec_free(&r);
        }
        rp_scan_file_close(f);
    }
    close(fd);
    return 0;
}
