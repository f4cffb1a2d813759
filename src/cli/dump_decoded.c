/* dump_decoded.c: the decoded key and value of a record of an internal
 * topic in `kfsck dump` (what kf_dump_paths decoded, kf_dump_record):
 * key_decoded / value_decoded objects of __consumer_offsets,
 * __transaction_state and __share_group_state records; record_type,
 * record_version and value_decoded of KRaft-envelope records and KRaft
 * control records; Connect offsets' JSON keys and values embedded as they
 * are. In text, " key: {...} payload: {...}" as kafka-dump-log's decoders
 * print them. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/dtree_json.h"
#include "cli/dump_print.h"

/* A writer into the same stream for the JSON objects of a text line. */
static void text_json(const out *o, out *jo)
{
    out_init(jo, o->f, true);
    jo->show_secrets = o->show_secrets;
}

void dump_print_kraft(const dump_printer *pr, const kf_dump_record *dr)
{
    out *o = pr->o;
    out jo;
    text_json(o, &jo);
    out *w = o->json ? o : &jo;
    const kf_kraft_record *kr = &dr->kraft;
    const kf_dtree *t = dr->tree;
    /* unknown types and versions are listed undecoded; a malformed record
     * shows what could be read */
    bool shown = dr->decode_rc != KF_ERR_UNSUPPORTED && kr->root != KF_DNODE_NONE;
    const kf_dnode *value = shown ? &t->nodes[kr->root] : NULL;
    if (o->json) {
        kf_jsonl_fields(&o->w, KF_JS("record_type", kr->record_type),
                        KF_JOPT("record_version", kr->version >= 0, kr->version));
        if (kr->layout)
            kf_jsonl_str(&o->w, "value_layout", kr->layout);
        dtree_json_object(o, "value_decoded", t, value);
        return;
    }
    out_text(o, " payload: ");
    kf_jsonl_obj_open(&w->w, NULL);
    if (kr->record_type)
        kf_jsonl_str(&w->w, "type", kr->record_type);
    else
        kf_jsonl_int(&w->w, "type", kr->api_key);
    kf_jsonl_int(&w->w, "version", kr->version);
    dtree_json_object(w, "data", t, value);
    kf_jsonl_obj_close(&w->w);
}

/* Connect keys and values are JSON already: embedded when they are. */
static void print_connect(const dump_printer *pr, const kf_record *r, out *w)
{
    out *o = pr->o;
    bool kjson = r->key_len > 0 && r->key && (r->key[0] == '[' || r->key[0] == '{') &&
                 kf_utf8_valid(r->key, (size_t)r->key_len) && kf_json_valid(r->key, (size_t)r->key_len);
    bool vjson = r->value_len > 0 && r->value && r->value[0] == '{' && kf_utf8_valid(r->value, (size_t)r->value_len) &&
                 kf_json_valid(r->value, (size_t)r->value_len);
    if (o->json) {
        if (kjson)
            out_json(w, "key_decoded", (const char *)r->key, (size_t)r->key_len);
        else
            kf_jsonl_null(&w->w, "key_decoded");
        if (vjson)
            out_json(w, "value_decoded", (const char *)r->value, (size_t)r->value_len);
        else
            kf_jsonl_null(&w->w, "value_decoded");
        return;
    }
    out_text(o, " key: ");
    if (kjson)
        esc_write(o->f, (const char *)r->key, (size_t)r->key_len);
    else
        fputs("null", o->f);
    out_text(o, " payload: ");
    if (vjson)
        esc_write(o->f, (const char *)r->value, (size_t)r->value_len);
    else if (r->value_len < 0)
        fputs("<DELETE>", o->f);
    else
        fputs("null", o->f);
}

/* A coordinator record's key: key_type and record_type, then its fields. */
static void print_coord_key(const dump_printer *pr, const kf_dump_record *dr, out *w)
{
    out *o = pr->o;
    const kf_coord_record *cr = &dr->coord;
    if (!cr->known_type) {
        if (o->json)
            kf_jsonl_null(&w->w, "key_decoded");
        else
            out_text(o, "{\"type\":%d,\"record_type\":null}", cr->key_type);
        return;
    }
    kf_jsonl_obj_open(&w->w, o->json ? "key_decoded" : NULL);
    if (!o->json)
        kf_jsonl_int(&w->w, "type", cr->key_type);
    kf_jsonl_str(&w->w, "record_type", cr->record_type);
    if (cr->key_root != KF_DNODE_NONE)
        dtree_json_fields(w, dr->tree, &dr->tree->nodes[cr->key_root]);
    kf_jsonl_obj_close(&w->w);
}

static void print_coord(const dump_printer *pr, const kf_dump_record *dr, out *w, out *jo)
{
    out *o = pr->o;
    const kf_coord_record *cr = &dr->coord;
    const kf_dtree *t = dr->tree;
    bool has_value = !cr->tombstone && cr->known_type && cr->value_root != KF_DNODE_NONE;
    const kf_dnode *value = has_value ? &t->nodes[cr->value_root] : NULL;
    if (o->json) {
        kf_jsonl_fields(&o->w, KF_JI("key_type", cr->key_type), KF_JS("record_type", cr->record_type),
                        KF_JOPT("value_version", has_value && cr->value_version >= 0, cr->value_version));
        if (dr->decoder == KF_DECODE_SHARE) {
            /* as the KRaft decoders name it */
            kf_jsonl_opt_int(&o->w, "record_version", has_value && cr->value_version >= 0, cr->value_version);
            if (cr->value_layout)
                kf_jsonl_str(&o->w, "value_layout", cr->value_layout);
        }
    } else {
        out_text(o, " key: ");
    }
    print_coord_key(pr, dr, w);
    if (!o->json)
        out_text(o, " payload: ");
    if (o->json) {
        dtree_json_object(w, "value_decoded", t, value);
    } else if (cr->tombstone) {
        out_text(o, "<DELETE>");
    } else if (!value) {
        out_text(o, "null");
    } else {
        jo->w.comma = false;
        kf_jsonl_obj_open(&w->w, NULL);
        kf_jsonl_int(&w->w, "version", cr->value_version);
        dtree_json_object(w, "data", t, value);
        kf_jsonl_obj_close(&w->w);
    }
}

void dump_print_decoded(const dump_printer *pr, const kf_dump_record *dr)
{
    out *o = pr->o;
    if (dr->decoded == KF_DUMP_KRAFT) {
        dump_print_kraft(pr, dr);
        return;
    }
    out jo;
    text_json(o, &jo);
    if (!o->json)
        jo.w.comma = false;
    out *w = o->json ? o : &jo;
    if (dr->decoder == KF_DECODE_CONNECT)
        print_connect(pr, dr->record, w);
    else if (dr->decoded == KF_DUMP_COORD)
        print_coord(pr, dr, w, &jo);
}
