/* coord_consumer.c: the consumer protocol of classic groups
 * (docs/formats.md §1.2): decoding a member's subscription and assignment
 * bytes (ConsumerProtocolSubscription / ConsumerProtocolAssignment, an int16
 * version then the fields), and expanding them in place in a decoded
 * GroupMetadataValue whose protocol type is "consumer". */
#include <string.h>

#include "bytes/error.h"
#include "records/coord_walk.h"
#include "kfsck/sys/coord.h"

static int consumer_decode(const cs_message *m, const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root)
{
    if (root)
        *root = KF_DNODE_NONE;
    if (!t)
        return KF_ERR_CORRUPT;
    cs_tables_ready();
    cs_dctx d;
    cs_dctx_init(&d, t, p, p ? n : 0, 0);
    int16_t v = kf_cur_i16(&d.c);
    if (!cs_walk_ok(&d))
        return d.err;
    if (v < 0)
        return KF_ERR_CORRUPT;
    int16_t lv = v > m->v_max ? m->v_max : v; /* newer versions only append fields */
    uint32_t r = cs_walk_node(&d, KF_V_STRUCT, NULL);
    uint32_t vn = cs_walk_node(&d, KF_V_INT, "version");
    if (r == KF_DNODE_NONE || vn == KF_DNODE_NONE)
        return d.err;
    t->nodes[vn].i = v;
    cs_walk_struct(&d, m->root, lv, false, r);
    t->nodes[vn].next = t->nodes[r].first_child;
    t->nodes[r].first_child = vn;
    t->nodes[r].n_children++;
    if (root)
        *root = r;
    /* Bytes after the known fields are ignored, as Kafka's ConsumerProtocol does. */
    return d.err;
}

/* rc, as the last error when it is an error. */
static int consumer_decoded(int rc, const char *what)
{
    return rc == KF_OK ? rc : kf_error_set(rc, 0, NULL, "consumer protocol %s: %s", what, kf_err_str(rc));
}

int kf_consumer_subscription_decode(const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root)
{
    return consumer_decoded(consumer_decode(&kf_cs_consumer_subscription, p, n, t, root), "subscription");
}

int kf_consumer_assignment_decode(const uint8_t *p, size_t n, kf_dtree *t, uint32_t *root)
{
    return consumer_decoded(consumer_decode(&kf_cs_consumer_assignment, p, n, t, root), "assignment");
}

static uint32_t field_index(const kf_dtree *t, uint32_t st, const char *name)
{
    for (uint32_t c = t->nodes[st].first_child; c != KF_DNODE_NONE; c = t->nodes[c].next)
        if (t->nodes[c].name && strcmp(t->nodes[c].name, name) == 0)
            return c;
    return KF_DNODE_NONE;
}

/* Turns a member's bytes field `name` into the decoded struct and adds the
 * raw bytes after it as `bytes_name`. Undecodable bytes stay as they are. */
static void expand_member_field(kf_dtree *t, uint32_t member, const char *name, const char *bytes_name,
                                int (*fn)(const uint8_t *, size_t, kf_dtree *, uint32_t *))
{
    uint32_t s = field_index(t, member, name);
    if (s == KF_DNODE_NONE || t->nodes[s].kind != KF_V_BYTES)
        return;
    uint32_t mark = t->n, r = KF_DNODE_NONE;
    int rc = fn(t->nodes[s].p, t->nodes[s].len, t, &r);
    if (rc != KF_OK || r == KF_DNODE_NONE) {
        t->n = mark;
        return;
    }
    /* The new root's slot becomes the bytes node; the field's slot the struct. */
    kf_dnode bytes = t->nodes[s];
    kf_dnode st = t->nodes[r];
    t->nodes[s].kind = KF_V_STRUCT;
    t->nodes[s].p = NULL;
    t->nodes[s].len = 0;
    t->nodes[s].first_child = st.first_child;
    t->nodes[s].n_children = st.n_children;
    t->nodes[r] = bytes;
    t->nodes[r].name = bytes_name;
    t->nodes[r].next = bytes.next;
    t->nodes[s].next = r;
    t->nodes[member].n_children++;
}

void cs_expand_consumer_protocol(kf_dtree *t, uint32_t root)
{
    uint32_t pt = field_index(t, root, "protocol_type");
    if (pt == KF_DNODE_NONE || t->nodes[pt].kind != KF_V_STRING || t->nodes[pt].len != 8 ||
        memcmp(t->nodes[pt].p, "consumer", 8) != 0)
        return;
    uint32_t ms = field_index(t, root, "members");
    if (ms == KF_DNODE_NONE || t->nodes[ms].kind != KF_V_ARRAY)
        return;
    for (uint32_t m = t->nodes[ms].first_child; m != KF_DNODE_NONE; m = t->nodes[m].next) {
        if (t->nodes[m].kind != KF_V_STRUCT)
            continue;
        expand_member_field(t, m, "subscription", "subscription_bytes", kf_consumer_subscription_decode);
        expand_member_field(t, m, "assignment", "assignment_bytes", kf_consumer_assignment_decode);
    }
}
