/* yamldoc.h — a YAML file as a small bounded tree that remembers where every node is,
 * and typed reads of its scalars that fail with FILE:LINE:COLUMN diagnostics.
 *
 * rtm_yamldoc_load() reads the file with libyaml's event parser into a caller-provided
 * rtm_yamldoc_t (fixed arrays, no allocation of ours; libyaml allocates internally and
 * is freed before return). What it refuses, with the position of the problem:
 *   - files that are not regular, larger than RTM_CONFIG_BYTES_MAX, contain a NUL byte
 *     or invalid UTF-8 (checked before parsing);
 *   - files writable by others, or below a directory writable by others (fsperm.h:
 *     RTM_E_CFG_PERM, the offending path named);
 *   - YAML syntax errors (libyaml's problem mark);
 *   - aliases (*a, at the alias) and anchors (&a), tags (!!str), several documents;
 *   - nesting deeper than RTM_CONFIG_DEPTH_MAX, more than RTM_CONFIG_NODES_MAX nodes;
 *   - mapping keys that are not scalars, duplicate keys in one mapping.
 *
 * Node 0 is the document root. Children of a collection are linked by `first`/`next`;
 * a value in a mapping carries its key's text and position.
 *
 * Everything here is init-only (load phase) and not reentrant per document. */
#ifndef RTM_YAMLDOC_H
#define RTM_YAMLDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "limits.h"
#include "status.h"
#include "units.h"

/* Scalar text of one file: about its size in bytes (parsed text is no longer than the
 * source, except for the rare escapes \L and \P) plus a NUL for each key and value. A
 * file that needs more fails with RTM_E_CFG_LIMIT. */
#define RTM_YAMLDOC_TEXT_MAX (RTM_CONFIG_BYTES_MAX + 2 * RTM_CONFIG_NODES_MAX)
#define RTM_YAMLDOC_NONE UINT32_MAX

typedef enum { RTM_YNODE_SCALAR = 1, RTM_YNODE_MAP, RTM_YNODE_SEQ } rtm_ynode_kind_t;

typedef struct {
    uint8_t kind;              /* rtm_ynode_kind_t */
    uint8_t plain;             /* scalar written without quotes */
    int32_t line, column;      /* 1-based start of the node */
    int32_t key_line, key_col; /* value in a mapping: start of its key; else 0 */
    uint32_t key;              /* value in a mapping: key text offset; else RTM_YAMLDOC_NONE */
    uint32_t text;             /* scalar: text offset */
    uint32_t len;              /* scalar: bytes; collection: number of children */
    int32_t first, last, next; /* children and next sibling; -1 = none */
} rtm_ynode_t;

typedef struct {
    char path[RTM_PATH_MAX];
    uint32_t n_nodes;
    uint32_t text_used;
    rtm_ynode_t node[RTM_CONFIG_NODES_MAX];
    char text[RTM_YAMLDOC_TEXT_MAX];
} rtm_yamldoc_t;

/* Parses `path` into `doc`. Returns RTM_OK; RTM_E_CFG_IO (cannot open/stat, not a
 * regular file, too large: line 0), RTM_E_CFG_PERM (writable by others: line 0),
 * RTM_E_CFG_SYNTAX (located) or RTM_E_CFG_LIMIT. */
rtm_status_t rtm_yamldoc_load(rtm_yamldoc_t *doc, const char *path, rtm_diag_t *diag);

/* Node access: NULL / "" when out of range. */
const rtm_ynode_t *rtm_yamldoc_node(const rtm_yamldoc_t *doc, int32_t i);
/* Scalar text ("" for collections). */
const char *rtm_yamldoc_text(const rtm_yamldoc_t *doc, int32_t i);
/* Key of a value in a mapping ("" for others). */
const char *rtm_yamldoc_key(const rtm_yamldoc_t *doc, int32_t i);
/* Value of `key` in mapping `map`, or -1. */
int32_t rtm_yamldoc_get(const rtm_yamldoc_t *doc, int32_t map, const char *key);
/* "a scalar", "a mapping", "a sequence". */
const char *rtm_yamldoc_kind_name(int kind);
/* True for a plain empty scalar, ~ or null: a key written without a value. */
bool rtm_yamldoc_is_null(const rtm_yamldoc_t *doc, int32_t i);

/* Fill `diag` at a position of this document and return `st`. */
rtm_status_t rtm_yamldoc_fail(const rtm_yamldoc_t *doc, int line, int column, rtm_status_t st,
                              rtm_diag_t *diag, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* ... at node i (its value). */
rtm_status_t rtm_yamldoc_fail_at(const rtm_yamldoc_t *doc, int32_t i, rtm_status_t st,
                                 rtm_diag_t *diag, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* ... at node i's key (falls back to the node for sequence items). */
rtm_status_t rtm_yamldoc_fail_key(const rtm_yamldoc_t *doc, int32_t i, rtm_status_t st,
                                  rtm_diag_t *diag, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Index of the candidate nearest to `word` by edit distance (adjacent transpositions
 * count 1), or -1 when none is close enough to be a likely typo. */
int rtm_yamldoc_nearest(const char *word, const char *const *cands, uint32_t n);

/* Checks that `map` is a mapping whose keys all appear in keys[0..n-1]; found[k] is the
 * value node of keys[k] or -1. `where` names the mapping in messages ("task 'cpa'").
 * Unknown keys fail at the key, suggesting the nearest known one. */
rtm_status_t rtm_yamldoc_fields(const rtm_yamldoc_t *doc, int32_t map, const char *where,
                                const char *const *keys, uint32_t n, int32_t *found,
                                rtm_diag_t *diag);

/* Fails at `map`: "missing key 'KEY' in WHERE (HINT)". `hint` may be NULL. */
rtm_status_t rtm_yamldoc_missing(const rtm_yamldoc_t *doc, int32_t map, const char *key,
                                 const char *where, const char *hint, rtm_diag_t *diag);

/* Checks the kind of node i: "'tasks' must be a sequence, got a mapping". `what` names
 * the node; NULL = its key. */
rtm_status_t rtm_yamldoc_want(const rtm_yamldoc_t *doc, int32_t i, rtm_ynode_kind_t kind,
                              const char *what, rtm_diag_t *diag);

/* Typed scalar reads. Each checks that node i is a scalar with a value and names its key
 * and `where` (may be NULL) in the message on failure. */
rtm_status_t rtm_yamldoc_string(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                                bool allow_empty, char *buf, size_t len, rtm_diag_t *diag);
/* A name (task, device, board): 1..len-1 bytes of [A-Za-z0-9_.-]. */
rtm_status_t rtm_yamldoc_name(const rtm_yamldoc_t *doc, int32_t i, const char *where, char *buf,
                              size_t len, rtm_diag_t *diag);
rtm_status_t rtm_yamldoc_bool(const rtm_yamldoc_t *doc, int32_t i, const char *where, bool *out,
                              rtm_diag_t *diag);
rtm_status_t rtm_yamldoc_int(const rtm_yamldoc_t *doc, int32_t i, const char *where, int64_t min,
                             int64_t max, int64_t *out, rtm_diag_t *diag);
rtm_status_t rtm_yamldoc_u64(const rtm_yamldoc_t *doc, int32_t i, const char *where, uint64_t *out,
                             rtm_diag_t *diag);
/* One of names[0..n-1]; *out is its index. */
rtm_status_t rtm_yamldoc_enum(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                              const char *const *names, uint32_t n, int *out, rtm_diag_t *diag);
rtm_status_t rtm_yamldoc_ns(const rtm_yamldoc_t *doc, int32_t i, const char *where, int64_t *out,
                            rtm_diag_t *diag);
rtm_status_t rtm_yamldoc_bytes(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                               uint64_t *out, rtm_diag_t *diag);
rtm_status_t rtm_yamldoc_quantity(const rtm_yamldoc_t *doc, int32_t i, const char *where,
                                  rtm_unit_t unit, double *out, rtm_diag_t *diag);

#endif
