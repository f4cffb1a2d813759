/* schema_tables.c: the schema tables handed out built. The tables
 * (coord_schema.c, share_schema.c, kraft_schema.c, remote_schema.c) write
 * each struct's fields in the notation of cs_notation.c; the first use of
 * any table turns every struct they reach into its cs_field array, once for
 * the process (pthread_once), in static pools: nothing is allocated, and a
 * fault in a notation (which the unit tests rule out) leaves that struct
 * with no fields and is told by kf_cs_build_error. */
#include <pthread.h>
#include <stdio.h>

#include "records/coord_internal.h"
#include "kfsck/sys/coord.h"

/* The pools every struct's fields and their names are built into: the
 * tables hold about 400 fields with 5.3 KB of names (test_schema checks
 * that every struct builds). */
#define FIELD_POOL 640
#define NAME_POOL 8192

static cs_field field_pool[FIELD_POOL];
static char name_pool[NAME_POOL];
static size_t fields_used, names_used;
static char build_err[200];
static pthread_once_t built = PTHREAD_ONCE_INIT;

/* Builds st's fields, and first those of the structs it uses (a struct can
 * use only those defined above it: there is no cycle). */
static void build_struct(cs_struct *st)
{
    if (st->fields)
        return;
    for (size_t i = 0; i < CS_MAX_USES && st->uses[i]; i++)
        build_struct(st->uses[i]);
    st->fields = field_pool + fields_used; /* built (or failed) from here on: not again */
    char err[160];
    int n = cs_parse_fields(st->spec, st->uses, field_pool + fields_used, FIELD_POOL - fields_used, name_pool,
                            NAME_POOL, &names_used, err, sizeof err);
    if (n < 0) {
        if (!build_err[0])
            snprintf(build_err, sizeof build_err, "%s: %s", st->name, err);
        return;
    }
    st->n_fields = (uint16_t)n;
    fields_used += (size_t)n;
}

static void build_message(const cs_message *m)
{
    if (m)
        build_struct(m->root);
}

static void build_all(void)
{
    const cs_table *const tables[] = {&cs_offsets_table,  &cs_txn_table,     &cs_share_table,
                                      &cs_metadata_table, &cs_control_table, &cs_remote_table};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (uint32_t i = 0; i < tables[t]->n; i++) {
            const cs_record *r = &tables[t]->recs[i];
            build_message(r->key);
            build_message(r->value);
            build_message(r->fallback);
            for (uint8_t a = 0; a < r->n_alts; a++)
                build_message(r->alts[a]);
        }
    build_message(&kf_cs_consumer_subscription);
    build_message(&kf_cs_consumer_assignment);
}

void cs_tables_ready(void) { pthread_once(&built, build_all); }

const char *kf_cs_build_error(void)
{
    cs_tables_ready();
    return build_err[0] ? build_err : NULL;
}

/* The table's records, built. */
static const cs_record *records_of(const cs_table *t, uint32_t *n)
{
    cs_tables_ready();
    *n = t->n;
    return t->recs;
}

const cs_record *kf_cs_records(int topic, uint32_t *n)
{
    if (topic == KF_COORD_SHARE)
        return records_of(&cs_share_table, n);
    return records_of(topic == KF_COORD_TXN ? &cs_txn_table : &cs_offsets_table, n);
}

const cs_record *kf_cs_share_records(uint32_t *n) { return records_of(&cs_share_table, n); }
const cs_record *kf_cs_metadata_records(uint32_t *n) { return records_of(&cs_metadata_table, n); }
const cs_record *kf_cs_control_records(uint32_t *n) { return records_of(&cs_control_table, n); }
const cs_record *kf_cs_remote_records(uint32_t *n) { return records_of(&cs_remote_table, n); }

const cs_record *kf_cs_find(const cs_record *recs, uint32_t n, int16_t type)
{
    /* every table is sorted by type, strictly (test_coord checks it), and
     * mostly dense from 0: the entry at index type is mostly the one */
    if (type >= 0 && (uint32_t)type < n && recs[type].type == type)
        return &recs[type];
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (recs[mid].type < type)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && recs[lo].type == type ? &recs[lo] : NULL;
}

const cs_record *kf_cs_lookup(int topic, int16_t type)
{
    if (topic != KF_COORD_OFFSETS && topic != KF_COORD_TXN && topic != KF_COORD_SHARE)
        return NULL;
    uint32_t n;
    const cs_record *r = kf_cs_records(topic, &n);
    return kf_cs_find(r, n, type);
}
