// api_cpp.cpp: the public headers from C++: every header compiles as C++
// (g++ -Wall -Wextra -Werror, through kfsck.h), the functions link without
// name mangling, and a fixture partition reads as one log through the
// partition reader, the same with KF_PART_READER_OPTIONS_INIT and with NULL
// options (the defaults). Usage: api_cpp FIXTURES_DIR
#include <kfsck/kfsck.h>

#include <cstdio>
#include <string>
#include <vector>

struct counts {
    long long batches = 0, records = 0, last = -1;
    bool in_order = true;
    unsigned long long errors = 0;
};

// Read the partition through the partition reader with options o.
static bool read_log(const kf_partition *p, const kf_part_reader_opts *o, counts *c)
{
    kf_part_reader *r = nullptr;
    if (kf_part_reader_open(&r, p, o) != KF_OK)
        return false;
    kf_batch b;
    while (kf_part_reader_next(r, &b) == 1) {
        c->batches++;
        c->in_order = c->in_order && b.base_offset > c->last;
        c->last = b.last_offset;
        kf_record_iter it;
        if (kf_part_reader_records(r, &b, &it) == KF_OK) {
            kf_record rec;
            while (kf_records_next(&it, &rec) == 1)
                c->records++;
        }
    }
    kf_part_result res;
    kf_part_reader_close(r, &res);
    c->errors = res.errors;
    return true;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: api_cpp FIXTURES_DIR\n");
        return 2;
    }
    std::string dir = std::string(argv[1]) + "/partition/orders-0";
    std::vector<char *> paths{&dir[0]};
    kf_inputs in;
    if (kf_inputs_collect(&in, paths.data(), paths.size(), nullptr, nullptr) != KF_OK || in.n != 1) {
        std::fprintf(stderr, "api_cpp: the partition was not found\n");
        return 1;
    }
    kf_part_reader_opts o = KF_PART_READER_OPTIONS_INIT;
    counts c, d;
    bool read = read_log(&in.parts[0], &o, &c) && read_log(&in.parts[0], nullptr, &d);
    kf_inputs_free(&in);
    if (!read || !c.in_order || c.batches == 0 || c.records < c.batches || c.errors != 0 || d.batches != c.batches ||
        d.records != c.records || d.last != c.last || d.errors != 0) {
        std::fprintf(stderr, "api_cpp: unexpected: %lld batches, %lld records, %llu errors (NULL options: %lld, %lld)\n",
                     c.batches, c.records, c.errors, d.batches, d.records);
        return 1;
    }
    std::printf("api_cpp: ok (%lld batches, %lld records, offsets up to %lld; libkfsck %s)\n", c.batches, c.records,
                c.last, kf_version());
    return 0;
}
