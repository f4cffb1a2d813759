// api_cpp.cpp: the public headers from C++: every header compiles as C++
// (g++ -Wall -Wextra -Werror, through kfsck.h), the functions link without
// name mangling, and a fixture partition reads as one log through the
// partition reader. Usage: api_cpp FIXTURES_DIR
#include <kfsck/kfsck.h>

#include <cstdio>
#include <string>
#include <vector>

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
    kf_part_reader_opts o;
    kf_part_reader_opts_init(&o);
    kf_part_reader *r = nullptr;
    if (kf_part_reader_open(&r, &in.parts[0], &o) != KF_OK)
        return 1;
    kf_batch b;
    long long batches = 0, records = 0, last = -1;
    bool in_order = true;
    while (kf_part_reader_next(r, &b) == 1) {
        batches++;
        in_order = in_order && b.base_offset > last;
        last = b.last_offset;
        kf_record_iter it;
        if (kf_part_reader_records(r, &b, &it) == KF_OK) {
            kf_record rec;
            while (kf_records_next(&it, &rec) == 1)
                records++;
        }
    }
    kf_part_result res;
    kf_part_reader_close(r, &res);
    kf_inputs_free(&in);
    if (!in_order || batches == 0 || records < batches || res.errors != 0) {
        std::fprintf(stderr, "api_cpp: unexpected: %lld batches, %lld records, %llu errors\n", batches, records,
                     (unsigned long long)res.errors);
        return 1;
    }
    std::printf("api_cpp: ok (%lld batches, %lld records, offsets up to %lld; libkfsck %s)\n", batches, records, last,
                kf_version());
    return 0;
}
