/* Unit tests of the schema tables' field notation (cs_parse_fields,
 * src/records/cs_notation.c): each element of the notation against the
 * cs_field it must make, written out by hand; the faults it must refuse;
 * and that every struct of every table builds (schema_tables.c). */
#include "testutil.h"
#include "records/coord_internal.h"

#include <string.h>

typedef struct parsed {
    cs_field f[8];
    char names[256];
    size_t names_used;
    char err[160];
    int n;
} parsed;

static cs_struct endpoint = {.name = "Endpoint", .spec = "host:string port:uint16"};
static cs_struct voter = {.name = "Voter", .spec = "id:int32"};

static void parse(parsed *p, const char *spec)
{
    struct cs_struct *const uses[CS_MAX_USES] = {&endpoint, &voter};
    memset(p, 0, sizeof *p);
    p->n = cs_parse_fields(spec, uses, p->f, 8, p->names, sizeof p->names, &p->names_used, p->err, sizeof p->err);
}

/* The one field spec makes. */
static const cs_field *one(parsed *p, const char *spec)
{
    parse(p, spec);
    if (p->n != 1)
        fail_msg("%s: %d fields (%s)", spec, p->n, p->err);
    return &p->f[0];
}

/* Every member of f, in words. */
static void describe(const cs_field *f, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s kind %d elem %d sub %s v %d-%d null %d-%d tag %d (%d-%d) def %lld flags %d",
             f->name ? f->name : "(null)", f->kind, f->elem, f->sub ? f->sub->name : "-", f->v_min, f->v_max,
             f->null_min, f->null_max, f->tag, f->tag_min, f->tag_max, (long long)f->def, f->flags);
}

static void assert_field(const cs_field *f, const char *name, int kind, int elem, const cs_struct *sub, int v_min,
                         int v_max, int null_min, int null_max, int tag, int tag_min, int tag_max, int64_t def,
                         int flags)
{
    cs_field want = {name, (uint8_t)kind, (uint8_t)elem, (int16_t)v_min, (int16_t)v_max, (int16_t)null_min,
                     (int16_t)null_max, (int16_t)tag, (int16_t)tag_min, (int16_t)tag_max, def, sub, (uint8_t)flags};
    char got_words[200], want_words[200];
    describe(f, got_words, sizeof got_words);
    describe(&want, want_words, sizeof want_words);
    assert_string_equal(got_words, want_words);
    assert_ptr_equal(f->sub, sub);
}

#define X CS_VMAX

static void test_types(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int kind;
    } prims[] = {{"int8", CS_INT8},   {"int16", CS_INT16}, {"uint16", CS_UINT16}, {"int32", CS_INT32},
                 {"int64", CS_INT64}, {"float64", CS_FLOAT64}, {"bool", CS_BOOL}, {"string", CS_STRING},
                 {"bytes", CS_BYTES}, {"uuid", CS_UUID}};
    parsed p;
    char spec[64];
    for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++) {
        snprintf(spec, sizeof spec, "a_1:%s", prims[i].name);
        assert_field(one(&p, spec), "a_1", prims[i].kind, 0, NULL, 0, X, 1, 0, -1, 1, 0, 0, 0);
        snprintf(spec, sizeof spec, "list:[%s]", prims[i].name);
        assert_field(one(&p, spec), "list", CS_ARRAY, prims[i].kind, NULL, 0, X, 1, 0, -1, 1, 0, 0, 0);
    }
    assert_field(one(&p, "ep:Endpoint"), "ep", CS_STRUCT, 0, &endpoint, 0, X, 1, 0, -1, 1, 0, 0, 0);
    assert_field(one(&p, "voters:[Voter]"), "voters", CS_ARRAY, CS_STRUCT, &voter, 0, X, 1, 0, -1, 1, 0, 0, 0);
}

static void test_modifiers(void **state)
{
    (void)state;
    parsed p;
    assert_field(one(&p, "rack:string?"), "rack", CS_STRING, 0, NULL, 0, X, 0, X, -1, 1, 0, 0, 0);
    assert_field(one(&p, "e:int64@1"), "e", CS_INT64, 0, NULL, 1, 1, 1, 0, -1, 1, 0, 0, 0);
    assert_field(one(&p, "e:int64@3+"), "e", CS_INT64, 0, NULL, 3, X, 1, 0, -1, 1, 0, 0, 0);
    assert_field(one(&p, "e:int64@2-5"), "e", CS_INT64, 0, NULL, 2, 5, 1, 0, -1, 1, 0, 0, 0);
    /* nullable in the versions the field has */
    assert_field(one(&p, "g:string?@3+"), "g", CS_STRING, 0, NULL, 3, X, 3, X, -1, 1, 0, 0, 0);
    assert_field(one(&p, "g:[Voter]?@1-2"), "g", CS_ARRAY, CS_STRUCT, &voter, 1, 2, 1, 2, -1, 1, 0, 0, 0);
    /* tagged in the versions the field has */
    assert_field(one(&p, "t:uuid#0"), "t", CS_UUID, 0, NULL, 0, X, 1, 0, 0, 0, X, 0, 0);
    assert_field(one(&p, "t:[int32]?@2+#17"), "t", CS_ARRAY, CS_INT32, NULL, 2, X, 2, X, 17, 2, X, 0, 0);
    assert_field(one(&p, "d:int32=-1"), "d", CS_INT32, 0, NULL, 0, X, 1, 0, -1, 1, 0, -1, 0);
    assert_field(one(&p, "d:bool=1"), "d", CS_BOOL, 0, NULL, 0, X, 1, 0, -1, 1, 0, 1, 0);
    assert_field(one(&p, "d:int64=-9223372036854775807"), "d", CS_INT64, 0, NULL, 0, X, 1, 0, -1, 1, 0,
                 -INT64_MAX, 0);
    assert_field(one(&p, "k:bytes!"), "k", CS_BYTES, 0, NULL, 0, X, 1, 0, -1, 1, 0, 0, CS_F_SECRET);
    /* every element at once, in their order */
    assert_field(one(&p, "all:int32?@1+#4=-2!"), "all", CS_INT32, 0, NULL, 1, X, 1, X, 4, 1, X, -2, CS_F_SECRET);
}

static void test_lists(void **state)
{
    (void)state;
    parsed p;
    parse(&p, "");
    assert_int_equal(p.n, 0);
    parse(&p, "  a:int8   b:[Endpoint]?  c:string@1+ ");
    assert_int_equal(p.n, 3);
    assert_field(&p.f[0], "a", CS_INT8, 0, NULL, 0, X, 1, 0, -1, 1, 0, 0, 0);
    assert_field(&p.f[1], "b", CS_ARRAY, CS_STRUCT, &endpoint, 0, X, 0, X, -1, 1, 0, 0, 0);
    assert_field(&p.f[2], "c", CS_STRING, 0, NULL, 1, X, 1, 0, -1, 1, 0, 0, 0);
    assert_int_equal(p.names_used, strlen("a") + strlen("b") + strlen("c") + 3);
}

static void refused(const char *spec, const char *words)
{
    parsed p;
    parse(&p, spec);
    if (p.n != -1 || !strstr(p.err, words))
        fail_msg("%s: %d, '%s' (wanted an error with '%s')", spec, p.n, p.err, words);
}

static void test_faults(void **state)
{
    (void)state;
    refused("a", "name: expected");
    refused(":int8", "name: expected");
    refused("a:", "a type expected");
    refused("a:int7", "unknown type int7");
    refused("a:Topic", "unknown type Topic");
    refused("a:[int8", "']' expected");
    refused("a:[[int8]]", "a type expected");
    refused("a:int8@", "a number expected");
    refused("a:int8@x", "a number expected");
    refused("a:int8@3-1", "run backwards");
    refused("a:int8@32767", "number past 32766");
    refused("a:int8#", "a number expected");
    refused("a:int8=", "a number expected");
    refused("a:int8=99999999999999999999", "number past");
    refused("a:int8 b:int8%", "at 13: '%' unexpected");
    refused("a:int8!?", "'?' unexpected");
    refused("a:int8 b:int8 c:int8 d:int8 e:int8 f:int8 g:int8 h:int8 i:int8", "more than 8 fields");
    /* names past the room given */
    parsed p;
    memset(&p, 0, sizeof p);
    struct cs_struct *const uses[CS_MAX_USES] = {NULL};
    p.n = cs_parse_fields("abcdef:int8", uses, p.f, 8, p.names, 6, &p.names_used, p.err, sizeof p.err);
    assert_int_equal(p.n, -1);
    assert_non_null(strstr(p.err, "out of room for names"));
}

/* Every struct that a record of a table reaches, built. */
static void check_built(const cs_struct *st, int depth)
{
    assert_true(depth < 8);
    assert_non_null(st->fields);
    size_t words = 0;
    for (const char *c = st->spec; *c; c++)
        words += *c != ' ' && (c == st->spec || c[-1] == ' ');
    if (words != st->n_fields)
        fail_msg("%s: %zu words, %u fields", st->name, words, st->n_fields);
    for (uint16_t i = 0; i < st->n_fields; i++)
        if (st->fields[i].sub)
            check_built(st->fields[i].sub, depth + 1);
}

static void check_message(const cs_message *m)
{
    if (m)
        check_built(m->root, 0);
}

static void test_every_table_builds(void **state)
{
    (void)state;
    if (kf_cs_build_error())
        fail_msg("%s", kf_cs_build_error());
    const cs_record *(*const tables[])(uint32_t *) = {kf_cs_share_records, kf_cs_metadata_records,
                                                        kf_cs_control_records, kf_cs_remote_records};
    for (int t = 0; t < 6; t++) {
        uint32_t n;
        const cs_record *recs = t < 2 ? kf_cs_records(t ? KF_COORD_TXN : KF_COORD_OFFSETS, &n) : tables[t - 2](&n);
        for (uint32_t i = 0; i < n; i++) {
            check_message(recs[i].key);
            check_message(recs[i].value);
            check_message(recs[i].fallback);
            for (uint8_t a = 0; a < recs[i].n_alts; a++)
                check_message(recs[i].alts[a]);
        }
    }
    check_message(&kf_cs_consumer_subscription);
    check_message(&kf_cs_consumer_assignment);
    /* a sample against the fields written out by hand: OffsetCommitValue */
    const cs_struct *oc = kf_cs_lookup(KF_COORD_OFFSETS, 1)->value->root;
    assert_int_equal(oc->n_fields, 6);
    assert_field(&oc->fields[1], "leader_epoch", CS_INT32, 0, NULL, 3, X, 1, 0, -1, 1, 0, -1, 0);
    assert_field(&oc->fields[4], "expire_timestamp", CS_INT64, 0, NULL, 1, 1, 1, 0, -1, 1, 0, -1, 0);
    assert_field(&oc->fields[5], "topic_id", CS_UUID, 0, NULL, 4, X, 1, 0, 0, 4, X, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_modifiers),
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_every_table_builds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
