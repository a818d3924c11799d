/* yamldoc.c — YAML file -> bounded node tree with positions, and typed scalar reads
 * (see yamldoc.h).
 *
 * Owns the conversion from libyaml events to rtm_yamldoc_t. The tree is built without
 * recursion: an explicit stack of open collections, at most RTM_CONFIG_DEPTH_MAX deep.
 * Before libyaml sees a byte, the file is checked whole: regular file, size within
 * RTM_CONFIG_BYTES_MAX (stat), no NUL byte, valid UTF-8 (one streaming pass); the read
 * handler given to libyaml enforces the size limit again, in case the file grows.
 * libyaml's parser allocates internally; it is deleted on every path before return. */
#include "yamldoc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

#include "fsperm.h"

/* ---- positions and messages ------------------------------------------------------ */

#define WHERE(w) ((w) && *(w) ? " in " : ""), ((w) ? (w) : "")

static rtm_status_t vfail(const rtm_yamldoc_t *doc, int line, int column, rtm_status_t st,
                          rtm_diag_t *diag, const char *fmt, va_list ap)
{
    char text[sizeof(diag->text)];
    /* clang-tidy 14 reports every va_list as uninitialised once it has analysed another
     * file in the same run (checker state kept across files); alone this file is clean. */
    vsnprintf(text, sizeof(text), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    rtm_diag_set(diag, doc->path, line, column, "%s", text);
    return st;
}

rtm_status_t rtm_yamldoc_fail(const rtm_yamldoc_t *doc, int line, int column, rtm_status_t st,
                              rtm_diag_t *diag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(doc, line, column, st, diag, fmt, ap);
    va_end(ap);
    return st;
}

rtm_status_t rtm_yamldoc_fail_at(const rtm_yamldoc_t *doc, int32_t i, rtm_status_t st,
                                 rtm_diag_t *diag, const char *fmt, ...)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    va_list ap;
    va_start(ap, fmt);
    vfail(doc, n ? n->line : 0, n ? n->column : 0, st, diag, fmt, ap);
    va_end(ap);
    return st;
}

rtm_status_t rtm_yamldoc_fail_key(const rtm_yamldoc_t *doc, int32_t i, rtm_status_t st,
                                  rtm_diag_t *diag, const char *fmt, ...)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    int line = 0, column = 0;
    if (n) {
        line = n->key != RTM_YAMLDOC_NONE ? n->key_line : n->line;
        column = n->key != RTM_YAMLDOC_NONE ? n->key_col : n->column;
    }
    va_list ap;
    va_start(ap, fmt);
    vfail(doc, line, column, st, diag, fmt, ap);
    va_end(ap);
    return st;
}

/* ---- file checks before parsing -------------------------------------------------- */

/* One streaming pass over the file: NUL bytes and invalid UTF-8 fail with a position
 * (line, column counted in characters as libyaml does). */
static rtm_status_t prescan(const rtm_yamldoc_t *doc, FILE *f, rtm_diag_t *diag)
{
    unsigned char buf[4096];
    int line = 1, col = 1, seq_line = 1, seq_col = 1;
    unsigned need = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        for (size_t i = 0; i < n; i++) {
            const unsigned char c = buf[i];
            if (need) {
                if (c < lo || c > hi)
                    return rtm_yamldoc_fail(doc, seq_line, seq_col, RTM_E_CFG_SYNTAX, diag,
                                            "invalid UTF-8 (byte 0x%02x); configuration files "
                                            "must be UTF-8 text",
                                            c);
                lo = 0x80;
                hi = 0xBF;
                if (--need == 0)
                    col++;
                continue;
            }
            if (c == 0)
                return rtm_yamldoc_fail(doc, line, col, RTM_E_CFG_SYNTAX, diag,
                                        "file contains a NUL byte: not a YAML text file "
                                        "(binary?)");
            if (c < 0x80) {
                if (c == '\n') {
                    line++;
                    col = 1;
                } else {
                    col++;
                }
                continue;
            }
            seq_line = line;
            seq_col = col;
            if (c >= 0xC2 && c <= 0xDF) {
                need = 1;
            } else if (c == 0xE0) {
                need = 2;
                lo = 0xA0;
            } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
                need = 2;
            } else if (c == 0xED) {
                need = 2;
                hi = 0x9F;
            } else if (c == 0xF0) {
                need = 3;
                lo = 0x90;
            } else if (c >= 0xF1 && c <= 0xF3) {
                need = 3;
            } else if (c == 0xF4) {
                need = 3;
                hi = 0x8F;
            } else {
                return rtm_yamldoc_fail(doc, line, col, RTM_E_CFG_SYNTAX, diag,
                                        "invalid UTF-8 (byte 0x%02x); configuration files must "
                                        "be UTF-8 text",
                                        c);
            }
        }
    }
    if (ferror(f))
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_IO, diag, "cannot read: %s", strerror(errno));
    if (need)
        return rtm_yamldoc_fail(doc, seq_line, seq_col, RTM_E_CFG_SYNTAX, diag,
                                "invalid UTF-8 (truncated sequence at end of file)");
    return RTM_OK;
}

typedef struct {
    FILE *f;
    size_t total;
    bool too_big;
} source_t;

static int read_handler(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
    source_t *s = data;
    const size_t n = fread(buffer, 1, size, s->f);
    if (ferror(s->f))
        return 0;
    s->total += n;
    if (s->total > RTM_CONFIG_BYTES_MAX) {
        s->too_big = true;
        return 0;
    }
    *size_read = n;
    return 1;
}

/* ---- tree building --------------------------------------------------------------- */

typedef struct {
    int32_t node;
    bool want_key; /* mapping: the next event is a key */
    uint32_t key;
    int32_t key_line, key_col;
} frame_t;

typedef struct {
    rtm_yamldoc_t *doc;
    rtm_diag_t *diag;
    frame_t stack[RTM_CONFIG_DEPTH_MAX];
    uint32_t depth;
    uint32_t documents;
    bool have_anchor;
    char anchor[RTM_NAME_MAX];
    int anchor_line, anchor_col;
} builder_t;

static int mline(const yaml_mark_t *m) { return (int)m->line + 1; }
static int mcol(const yaml_mark_t *m) { return (int)m->column + 1; }

static rtm_status_t store_text(builder_t *b, const yaml_mark_t *m, const char *s, size_t len,
                               uint32_t *off)
{
    rtm_yamldoc_t *doc = b->doc;
    if (memchr(s, '\0', len))
        return rtm_yamldoc_fail(doc, mline(m), mcol(m), RTM_E_CFG_SYNTAX, b->diag,
                                "string contains a NUL character");
    if (len + 1 > RTM_YAMLDOC_TEXT_MAX - doc->text_used)
        return rtm_yamldoc_fail(doc, mline(m), mcol(m), RTM_E_CFG_LIMIT, b->diag,
                                "too much text in one file (limit %d bytes)", RTM_YAMLDOC_TEXT_MAX);
    memcpy(doc->text + doc->text_used, s, len);
    doc->text[doc->text_used + len] = '\0';
    *off = doc->text_used;
    doc->text_used += (uint32_t)len + 1;
    return RTM_OK;
}

/* Anchors are remembered (refused at the end if no alias came first); tags refused. */
static rtm_status_t check_props(builder_t *b, const yaml_mark_t *m, const yaml_char_t *anchor,
                                const yaml_char_t *tag)
{
    if (tag)
        return rtm_yamldoc_fail(b->doc, mline(m), mcol(m), RTM_E_CFG_SCHEMA, b->diag,
                                "YAML tag '%.60s' is not supported: remove it", (const char *)tag);
    if (anchor && !b->have_anchor) {
        b->have_anchor = true;
        snprintf(b->anchor, sizeof(b->anchor), "%s", (const char *)anchor);
        b->anchor_line = mline(m);
        b->anchor_col = mcol(m);
    }
    return RTM_OK;
}

static rtm_status_t new_node(builder_t *b, rtm_ynode_kind_t kind, const yaml_mark_t *m,
                             int32_t *out)
{
    rtm_yamldoc_t *doc = b->doc;
    *out = -1;
    if (doc->n_nodes >= RTM_CONFIG_NODES_MAX) {
        (void)rtm_yamldoc_fail(doc, mline(m), mcol(m), RTM_E_CFG_LIMIT, b->diag,
                               "more than RTM_CONFIG_NODES_MAX (%d) YAML nodes in one file",
                               RTM_CONFIG_NODES_MAX);
        return RTM_E_CFG_LIMIT;
    }
    const int32_t i = (int32_t)doc->n_nodes++;
    rtm_ynode_t *n = &doc->node[i];
    memset(n, 0, sizeof(*n));
    n->kind = (uint8_t)kind;
    n->line = mline(m);
    n->column = mcol(m);
    n->key = RTM_YAMLDOC_NONE;
    n->first = n->last = n->next = -1;
    if (b->depth > 0) {
        frame_t *top = &b->stack[b->depth - 1];
        rtm_ynode_t *p = &doc->node[top->node];
        if (p->kind == RTM_YNODE_MAP) {
            n->key = top->key;
            n->key_line = top->key_line;
            n->key_col = top->key_col;
            top->want_key = true;
        }
        if (p->first < 0)
            p->first = i;
        else
            doc->node[p->last].next = i;
        p->last = i;
        p->len++;
    }
    *out = i;
    return RTM_OK;
}

/* A scalar in key position: must not repeat a key of the same mapping. */
static rtm_status_t take_key(builder_t *b, frame_t *top, const yaml_event_t *ev)
{
    rtm_yamldoc_t *doc = b->doc;
    const char *s = (const char *)ev->data.scalar.value;
    const size_t len = ev->data.scalar.length;
    for (int32_t c = doc->node[top->node].first; c >= 0; c = doc->node[c].next) {
        const char *k = doc->text + doc->node[c].key;
        if (strlen(k) == len && memcmp(k, s, len) == 0)
            return rtm_yamldoc_fail(doc, mline(&ev->start_mark), mcol(&ev->start_mark),
                                    RTM_E_CFG_SCHEMA, b->diag,
                                    "duplicate key '%.60s' (first at line %d, column %d)", k,
                                    doc->node[c].key_line, doc->node[c].key_col);
    }
    rtm_status_t st = store_text(b, &ev->start_mark, s, len, &top->key);
    if (st != RTM_OK)
        return st;
    top->key_line = mline(&ev->start_mark);
    top->key_col = mcol(&ev->start_mark);
    top->want_key = false;
    return RTM_OK;
}

static rtm_status_t on_event(builder_t *b, const yaml_event_t *ev, bool *done)
{
    rtm_yamldoc_t *doc = b->doc;
    const yaml_mark_t *m = &ev->start_mark;
    frame_t *top = b->depth ? &b->stack[b->depth - 1] : NULL;
    const bool key_pos = top && doc->node[top->node].kind == RTM_YNODE_MAP && top->want_key;
    rtm_status_t st;
    int32_t i;

    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++b->documents > 1)
            return rtm_yamldoc_fail(doc, mline(m), mcol(m), RTM_E_CFG_SCHEMA, b->diag,
                                    "more than one YAML document in the file (a second '---')");
        return RTM_OK;
    case YAML_ALIAS_EVENT:
        return rtm_yamldoc_fail(doc, mline(m), mcol(m), RTM_E_CFG_SCHEMA, b->diag,
                                "YAML alias '*%.60s' is not supported: write the value out in full",
                                (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT:
        st = check_props(b, m, ev->data.scalar.anchor, ev->data.scalar.tag);
        if (st != RTM_OK)
            return st;
        if (key_pos)
            return take_key(b, top, ev);
        st = new_node(b, RTM_YNODE_SCALAR, m, &i);
        if (st != RTM_OK)
            return st;
        doc->node[i].plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        doc->node[i].len = (uint32_t)ev->data.scalar.length;
        return store_text(b, m, (const char *)ev->data.scalar.value, ev->data.scalar.length,
                          &doc->node[i].text);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        const bool map = ev->type == YAML_MAPPING_START_EVENT;
        st = check_props(b, m, map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor,
                         map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
        if (st != RTM_OK)
            return st;
        if (key_pos)
            return rtm_yamldoc_fail(doc, mline(m), mcol(m), RTM_E_CFG_SCHEMA, b->diag,
                                    "mapping keys must be plain scalars, not %s",
                                    map ? "mappings" : "sequences");
        if (b->depth >= RTM_CONFIG_DEPTH_MAX)
            return rtm_yamldoc_fail(doc, mline(m), mcol(m), RTM_E_CFG_LIMIT, b->diag,
                                    "nesting deeper than RTM_CONFIG_DEPTH_MAX (%d) levels",
                                    RTM_CONFIG_DEPTH_MAX);
        st = new_node(b, map ? RTM_YNODE_MAP : RTM_YNODE_SEQ, m, &i);
        if (st != RTM_OK)
            return st;
        b->stack[b->depth++] = (frame_t){.node = i, .want_key = map};
        return RTM_OK;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (b->depth)
            b->depth--;
        return RTM_OK;
    case YAML_STREAM_END_EVENT:
        *done = true;
        return RTM_OK;
    default:
        return RTM_OK;
    }
}

static rtm_status_t syntax_error(rtm_yamldoc_t *doc, const yaml_parser_t *p, rtm_diag_t *diag)
{
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->error == YAML_READER_ERROR || p->error == YAML_MEMORY_ERROR)
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_SYNTAX, diag, "YAML reader error: %s", problem);
    if (p->context)
        return rtm_yamldoc_fail(doc, mline(&p->problem_mark), mcol(&p->problem_mark),
                                RTM_E_CFG_SYNTAX, diag,
                                "YAML syntax error: %s (%s at line %d, column %d)", problem,
                                p->context, mline(&p->context_mark), mcol(&p->context_mark));
    return rtm_yamldoc_fail(doc, mline(&p->problem_mark), mcol(&p->problem_mark), RTM_E_CFG_SYNTAX,
                            diag, "YAML syntax error: %s", problem);
}

static rtm_status_t parse(rtm_yamldoc_t *doc, FILE *f, rtm_diag_t *diag)
{
    builder_t b;
    memset(&b, 0, sizeof(b));
    b.doc = doc;
    b.diag = diag;
    source_t src = {.f = f};
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_NOMEM, diag, "cannot initialise the YAML parser");
    yaml_parser_set_input(&parser, read_handler, &src);
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);

    rtm_status_t st = RTM_OK;
    bool done = false;
    while (st == RTM_OK && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            if (src.too_big)
                st = rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_LIMIT, diag,
                                      "file grew beyond RTM_CONFIG_BYTES_MAX (%d bytes) while "
                                      "being read",
                                      RTM_CONFIG_BYTES_MAX);
            else
                st = syntax_error(doc, &parser, diag);
            break;
        }
        st = on_event(&b, &ev, &done);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    if (st != RTM_OK)
        return st;
    if (doc->n_nodes == 0)
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_SCHEMA, diag,
                                "file is empty: expected a mapping (key: value lines)");
    if (b.have_anchor)
        return rtm_yamldoc_fail(doc, b.anchor_line, b.anchor_col, RTM_E_CFG_SCHEMA, diag,
                                "YAML anchor '&%s' is not supported: write the value out in full",
                                b.anchor);
    return RTM_OK;
}

rtm_status_t rtm_yamldoc_load(rtm_yamldoc_t *doc, const char *path, rtm_diag_t *diag)
{
    if (!doc || !path)
        return RTM_E_ARG;
    doc->n_nodes = 0;
    doc->text_used = 0;
    snprintf(doc->path, sizeof(doc->path), "%s", path);
    if (strlen(path) >= sizeof(doc->path))
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_IO, diag, "path is too long (limit %d bytes)",
                                RTM_PATH_MAX - 1);

    struct stat sb;
    if (stat(path, &sb) != 0)
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_IO, diag, "cannot read: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_IO, diag, "cannot read: not a regular file");
    if (sb.st_size > RTM_CONFIG_BYTES_MAX)
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_LIMIT, diag,
                                "file is %lld bytes, larger than RTM_CONFIG_BYTES_MAX (%d bytes)",
                                (long long)sb.st_size, RTM_CONFIG_BYTES_MAX);
    char why[RTM_PATH_MAX + 64];
    if (rtm_fsperm_check(path, why, sizeof(why)) == RTM_E_OS_PERM)
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_PERM, diag,
                                "refused: %s; anyone could change what rtmgr runs "
                                "(chmod o-w it)",
                                why);
    FILE *f = fopen(path, "rb");
    if (!f)
        return rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_IO, diag, "cannot read: %s", strerror(errno));
    rtm_status_t st = prescan(doc, f, diag);
    if (st == RTM_OK && fseek(f, 0, SEEK_SET) != 0)
        st = rtm_yamldoc_fail(doc, 0, 0, RTM_E_CFG_IO, diag, "cannot read: %s", strerror(errno));
    if (st == RTM_OK)
        st = parse(doc, f, diag);
    fclose(f);
    return st;
}

/* ---- access ---------------------------------------------------------------------- */

const rtm_ynode_t *rtm_yamldoc_node(const rtm_yamldoc_t *doc, int32_t i)
{
    return doc && i >= 0 && (uint32_t)i < doc->n_nodes ? &doc->node[i] : NULL;
}

const char *rtm_yamldoc_text(const rtm_yamldoc_t *doc, int32_t i)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    return n && n->kind == RTM_YNODE_SCALAR ? doc->text + n->text : "";
}

const char *rtm_yamldoc_key(const rtm_yamldoc_t *doc, int32_t i)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    return n && n->key != RTM_YAMLDOC_NONE ? doc->text + n->key : "";
}

int32_t rtm_yamldoc_get(const rtm_yamldoc_t *doc, int32_t map, const char *key)
{
    const rtm_ynode_t *m = rtm_yamldoc_node(doc, map);
    if (!m || m->kind != RTM_YNODE_MAP)
        return -1;
    for (int32_t c = m->first; c >= 0; c = doc->node[c].next)
        if (strcmp(doc->text + doc->node[c].key, key) == 0)
            return c;
    return -1;
}

const char *rtm_yamldoc_kind_name(int kind)
{
    switch (kind) {
    case RTM_YNODE_SCALAR:
        return "a single value";
    case RTM_YNODE_MAP:
        return "a mapping (key: value)";
    case RTM_YNODE_SEQ:
        return "a sequence (- item)";
    default:
        return "nothing";
    }
}

bool rtm_yamldoc_is_null(const rtm_yamldoc_t *doc, int32_t i)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    if (!n || n->kind != RTM_YNODE_SCALAR || !n->plain)
        return false;
    const char *t = doc->text + n->text;
    return !*t || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 || strcmp(t, "Null") == 0 ||
           strcmp(t, "NULL") == 0;
}

/* ---- schema helpers -------------------------------------------------------------- */

/* Optimal-string-alignment distance over the first 63 bytes of each word. */
static unsigned edit_distance(const char *a, const char *b)
{
    enum { W = 64 };
    unsigned rows[3][W];
    size_t la = strlen(a), lb = strlen(b);
    la = la < W - 1 ? la : W - 1;
    lb = lb < W - 1 ? lb : W - 1;
    unsigned *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= lb; j++)
        p[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        c[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            const unsigned cost = a[i - 1] != b[j - 1];
            unsigned v = p[j] + 1;
            if (c[j - 1] + 1 < v)
                v = c[j - 1] + 1;
            if (p[j - 1] + cost < v)
                v = p[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            c[j] = v;
        }
        unsigned *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[lb];
}

int rtm_yamldoc_nearest(const char *word, const char *const *cands, uint32_t n)
{
    int best = -1;
    unsigned best_d = ~0u;
    const size_t lw = strlen(word);
    for (uint32_t i = 0; i < n; i++) {
        const size_t lc = strlen(cands[i]);
        const unsigned limit = lc <= 3 ? 1u : lc <= 6 ? 2u : 3u;
        const unsigned d = edit_distance(word, cands[i]);
        if (d <= limit && d < lw + (lw == 0) && d < best_d) {
            best = (int)i;
            best_d = d;
        }
    }
    return best;
}

/* "a, b or c" into buf. */
static void join_names(const char *const *names, uint32_t n, const char *last_sep, char *buf,
                       size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? last_sep : ", ";
        const int w = snprintf(buf + used, len - used, "%s%s", sep, names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

rtm_status_t rtm_yamldoc_want(const rtm_yamldoc_t *doc, int32_t i, rtm_ynode_kind_t kind,
                              const char *what, rtm_diag_t *diag)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    if (n && n->kind == kind)
        return RTM_OK;
    char name[RTM_NAME_MAX + 8];
    if (what)
        snprintf(name, sizeof(name), "%s", what);
    else
        snprintf(name, sizeof(name), "'%s'", rtm_yamldoc_key(doc, i));
    return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_SCHEMA, diag, "%s must be %s, got %s", name,
                               rtm_yamldoc_kind_name(kind),
                               rtm_yamldoc_is_null(doc, i) ? "no value"
                                                           : rtm_yamldoc_kind_name(n ? n->kind : 0));
}

rtm_status_t rtm_yamldoc_fields(const rtm_yamldoc_t *doc, int32_t map, const char *where,
                                const char *const *keys, uint32_t n, int32_t *found,
                                rtm_diag_t *diag)
{
    for (uint32_t k = 0; k < n; k++)
        found[k] = -1;
    const rtm_ynode_t *m = rtm_yamldoc_node(doc, map);
    if (!m || m->kind != RTM_YNODE_MAP) {
        char what[RTM_NAME_MAX * 2];
        snprintf(what, sizeof(what), "%s", where);
        return rtm_yamldoc_want(doc, map, RTM_YNODE_MAP, what, diag);
    }
    for (int32_t c = m->first; c >= 0; c = doc->node[c].next) {
        const char *key = doc->text + doc->node[c].key;
        uint32_t k = 0;
        while (k < n && strcmp(keys[k], key) != 0)
            k++;
        if (k == n) {
            const int near = rtm_yamldoc_nearest(key, keys, n);
            if (near >= 0)
                return rtm_yamldoc_fail_key(doc, c, RTM_E_CFG_SCHEMA, diag,
                                            "unknown key '%.60s' in %s; did you mean '%s'?", key,
                                            where, keys[near]);
            char list[320];
            join_names(keys, n, " or ", list, sizeof(list));
            return rtm_yamldoc_fail_key(doc, c, RTM_E_CFG_SCHEMA, diag,
                                        "unknown key '%.60s' in %s; expected %s", key, where, list);
        }
        if (found[k] >= 0) /* the builder refuses duplicates; kept as a guard */
            return rtm_yamldoc_fail_key(doc, c, RTM_E_CFG_SCHEMA, diag, "duplicate key '%s' in %s",
                                        key, where);
        found[k] = c;
    }
    return RTM_OK;
}

rtm_status_t rtm_yamldoc_missing(const rtm_yamldoc_t *doc, int32_t map, const char *key,
                                 const char *where, const char *hint, rtm_diag_t *diag)
{
    return rtm_yamldoc_fail_at(doc, map, RTM_E_CFG_SCHEMA, diag, "missing key '%s' in %s%s%s%s",
                               key, where, hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

/* ---- typed scalars --------------------------------------------------------------- */

/* Node i must be a scalar with a value; *text is its text. */
static rtm_status_t scalar(const rtm_yamldoc_t *doc, int32_t i, const char *where, bool allow_null,
                           const char **text, rtm_diag_t *diag)
{
    const rtm_ynode_t *n = rtm_yamldoc_node(doc, i);
    const char *key = rtm_yamldoc_key(doc, i);
    if (!*key)
        key = "value";
    *text = "";
    if (!n || n->kind != RTM_YNODE_SCALAR) {
        (void)rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_SCHEMA, diag, "%s must be %s, got %s%s%s", key,
                                  rtm_yamldoc_kind_name(RTM_YNODE_SCALAR),
                                  rtm_yamldoc_kind_name(n ? n->kind : 0), WHERE(where));
        return RTM_E_CFG_SCHEMA;
    }
    if (!allow_null && rtm_yamldoc_is_null(doc, i)) {
        (void)rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag, "%s needs a value%s%s", key,
                                  WHERE(where));
        return RTM_E_CFG_VALUE;
    }
    *text = doc->text + n->text;
    return RTM_OK;
}

static const char *name_of(const rtm_yamldoc_t *doc, int32_t i)
{
    const char *key = rtm_yamldoc_key(doc, i);
    return *key ? key : "value";
}

rtm_status_t rtm_yamldoc_string(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                                bool allow_empty, char *buf, size_t len, rtm_diag_t *diag)
{
    const char *t;
    rtm_status_t st = scalar(doc, i, where, allow_empty, &t, diag);
    if (st != RTM_OK)
        return st;
    if (rtm_yamldoc_is_null(doc, i))
        t = "";
    if (!allow_empty && !*t)
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag, "%s must not be empty%s%s",
                                   name_of(doc, i), WHERE(where));
    if (strlen(t) >= len)
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_LIMIT, diag,
                                   "%s is too long (%zu bytes, at most %zu)%s%s", name_of(doc, i),
                                   strlen(t), len - 1, WHERE(where));
    memcpy(buf, t, strlen(t) + 1);
    return RTM_OK;
}

rtm_status_t rtm_yamldoc_name(const rtm_yamldoc_t *doc, int32_t i, const char *where, char *buf,
                              size_t len, rtm_diag_t *diag)
{
    rtm_status_t st = rtm_yamldoc_string(doc, i, where, false, buf, len, diag);
    if (st != RTM_OK)
        return st;
    for (const char *c = buf; *c; c++) {
        const bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                        (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.';
        if (!ok)
            return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                                       "%s '%s' may only use letters, digits, '_', '-' and '.'%s%s",
                                       name_of(doc, i), buf, WHERE(where));
    }
    return RTM_OK;
}

rtm_status_t rtm_yamldoc_bool(const rtm_yamldoc_t *doc, int32_t i, const char *where, bool *out,
                              rtm_diag_t *diag)
{
    const char *t;
    rtm_status_t st = scalar(doc, i, where, false, &t, diag);
    if (st != RTM_OK)
        return st;
    if (strcmp(t, "true") == 0 || strcmp(t, "True") == 0 || strcmp(t, "TRUE") == 0) {
        *out = true;
        return RTM_OK;
    }
    if (strcmp(t, "false") == 0 || strcmp(t, "False") == 0 || strcmp(t, "FALSE") == 0) {
        *out = false;
        return RTM_OK;
    }
    return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                               "%s must be true or false (got '%.60s')%s%s", name_of(doc, i), t,
                               WHERE(where));
}

/* Parses an optionally signed decimal integer; false when not one. */
static bool parse_integer(const char *t, bool allow_sign, bool *neg, uint64_t *mag, bool *overflow)
{
    size_t i = 0;
    *neg = false;
    *mag = 0;
    *overflow = false;
    if (allow_sign && (t[0] == '-' || t[0] == '+'))
        *neg = t[i++] == '-';
    if (!t[i])
        return false;
    for (; t[i]; i++) {
        if (t[i] < '0' || t[i] > '9')
            return false;
        const uint64_t d = (uint64_t)(t[i] - '0');
        if (*mag > (UINT64_MAX - d) / 10u)
            *overflow = true;
        else
            *mag = *mag * 10u + d;
    }
    return true;
}

rtm_status_t rtm_yamldoc_int(const rtm_yamldoc_t *doc, int32_t i, const char *where, int64_t min,
                             int64_t max, int64_t *out, rtm_diag_t *diag)
{
    const char *t;
    rtm_status_t st = scalar(doc, i, where, false, &t, diag);
    if (st != RTM_OK)
        return st;
    bool neg, overflow;
    uint64_t mag;
    if (!parse_integer(t, true, &neg, &mag, &overflow))
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                                   "%s must be a whole number without a unit (got '%.60s')%s%s",
                                   name_of(doc, i), t, WHERE(where));
    int64_t v = 0;
    if (!overflow && mag <= (uint64_t)INT64_MAX)
        v = neg ? -(int64_t)mag : (int64_t)mag;
    if (overflow || mag > (uint64_t)INT64_MAX || v < min || v > max)
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                                   "%s must be in %lld..%lld (got %.60s)%s%s", name_of(doc, i),
                                   (long long)min, (long long)max, t, WHERE(where));
    *out = v;
    return RTM_OK;
}

rtm_status_t rtm_yamldoc_u64(const rtm_yamldoc_t *doc, int32_t i, const char *where, uint64_t *out,
                             rtm_diag_t *diag)
{
    const char *t;
    rtm_status_t st = scalar(doc, i, where, false, &t, diag);
    if (st != RTM_OK)
        return st;
    bool neg, overflow;
    uint64_t mag;
    if (!parse_integer(t, false, &neg, &mag, &overflow) || overflow)
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                                   "%s must be a whole number in 0..%llu (got '%.60s')%s%s",
                                   name_of(doc, i), (unsigned long long)UINT64_MAX, t, WHERE(where));
    *out = mag;
    return RTM_OK;
}

rtm_status_t rtm_yamldoc_enum(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                              const char *const *names, uint32_t n, int *out, rtm_diag_t *diag)
{
    const char *t;
    rtm_status_t st = scalar(doc, i, where, false, &t, diag);
    if (st != RTM_OK)
        return st;
    for (uint32_t k = 0; k < n; k++) {
        if (strcmp(names[k], t) == 0) {
            *out = (int)k;
            return RTM_OK;
        }
    }
    char list[256];
    join_names(names, n, " or ", list, sizeof(list));
    const int near = rtm_yamldoc_nearest(t, names, n);
    if (near >= 0)
        return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag,
                                   "%s must be %s (got '%.60s'; did you mean '%s'?)%s%s",
                                   name_of(doc, i), list, t, names[near], WHERE(where));
    return rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag, "%s must be %s (got '%.60s')%s%s",
                               name_of(doc, i), list, t, WHERE(where));
}

rtm_status_t rtm_yamldoc_ns(const rtm_yamldoc_t *doc, int32_t i, const char *where, int64_t *out,
                            rtm_diag_t *diag)
{
    const char *t;
    char why[160];
    rtm_status_t st = scalar(doc, i, where, false, &t, diag);
    if (st == RTM_OK && rtm_units_parse_ns(t, out, why, sizeof(why)) != RTM_OK)
        st = rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag, "%s %s (got '%.60s')%s%s",
                                 name_of(doc, i), why, t, WHERE(where));
    return st;
}

rtm_status_t rtm_yamldoc_bytes(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                               uint64_t *out, rtm_diag_t *diag)
{
    const char *t;
    char why[160];
    rtm_status_t st = scalar(doc, i, where, false, &t, diag);
    if (st == RTM_OK && rtm_units_parse_bytes(t, out, why, sizeof(why)) != RTM_OK)
        st = rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag, "%s %s (got '%.60s')%s%s",
                                 name_of(doc, i), why, t, WHERE(where));
    return st;
}

rtm_status_t rtm_yamldoc_quantity(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                                  rtm_unit_t unit, double *out, rtm_diag_t *diag)
{
    const char *t;
    char why[160];
    rtm_status_t st = scalar(doc, i, where, false, &t, diag);
    if (st == RTM_OK && rtm_units_parse(t, unit, out, why, sizeof(why)) != RTM_OK)
        st = rtm_yamldoc_fail_at(doc, i, RTM_E_CFG_VALUE, diag, "%s %s (got '%.60s')%s%s",
                                 name_of(doc, i), why, t, WHERE(where));
    return st;
}
