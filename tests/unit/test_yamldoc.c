/* test_yamldoc.c — the bounded YAML tree: positions, keys, refusals, typed reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rtmgr/yamldoc.h"

static rtm_yamldoc_t doc;
static rtm_diag_t diag;
static char path[64];

static rtm_status_t load_text(const char *text)
{
    snprintf(path, sizeof(path), "/tmp/rtmgr-test-yamldoc-XXXXXX");
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_yamldoc_load(&doc, path, &diag);
    unlink(path);
    return st;
}

static void test_tree_and_positions(void **state)
{
    (void)state;
    assert_int_equal(load_text("a: 1\nb:\n  - x\n  - 'y z'\nc: {d: ~, e: \"\"}\n"), RTM_OK);
    const rtm_ynode_t *root = rtm_yamldoc_node(&doc, 0);
    assert_int_equal(root->kind, RTM_YNODE_MAP);
    assert_int_equal(root->len, 3);
    const int32_t a = rtm_yamldoc_get(&doc, 0, "a"), b = rtm_yamldoc_get(&doc, 0, "b"),
                  c = rtm_yamldoc_get(&doc, 0, "c");
    assert_string_equal(rtm_yamldoc_text(&doc, a), "1");
    assert_int_equal(doc.node[a].line, 1);
    assert_int_equal(doc.node[a].column, 4);
    assert_int_equal(doc.node[a].key_line, 1);
    assert_int_equal(doc.node[a].key_col, 1);
    assert_int_equal(doc.node[b].kind, RTM_YNODE_SEQ);
    assert_int_equal(doc.node[b].len, 2);
    const int32_t y = doc.node[doc.node[b].first].next;
    assert_string_equal(rtm_yamldoc_text(&doc, y), "y z");
    assert_false(doc.node[y].plain);
    assert_int_equal(doc.node[y].line, 4);
    assert_int_equal(doc.node[y].column, 5);
    assert_string_equal(rtm_yamldoc_key(&doc, y), "");
    assert_true(rtm_yamldoc_is_null(&doc, rtm_yamldoc_get(&doc, c, "d")));
    assert_false(rtm_yamldoc_is_null(&doc, rtm_yamldoc_get(&doc, c, "e")));
    assert_int_equal(rtm_yamldoc_get(&doc, c, "zz"), -1);
    assert_int_equal(rtm_yamldoc_get(&doc, a, "x"), -1);
}

static void test_refusals(void **state)
{
    (void)state;
    assert_int_equal(load_text("a: &x 1\nb: *x\n"), RTM_E_CFG_SCHEMA);
    assert_int_equal(diag.line, 2);
    assert_int_equal(diag.column, 4);
    assert_int_equal(load_text("a: 1\na: 2\n"), RTM_E_CFG_SCHEMA);
    assert_non_null(strstr(diag.text, "duplicate key 'a'"));
    assert_int_equal(load_text("a: [1, 2\n"), RTM_E_CFG_SYNTAX);
    assert_int_equal(load_text("a: \"\\0\"\n"), RTM_E_CFG_SYNTAX); /* escaped NUL */
    assert_non_null(strstr(diag.text, "NUL"));
    assert_int_equal(load_text("\xef\xbb\xbf" "a: 1\n"), RTM_OK); /* UTF-8 BOM is fine */
    assert_int_equal(load_text("a: \xed\xa0\x80\n"), RTM_E_CFG_SYNTAX); /* surrogate */
    assert_int_equal(load_text("a: \xc3\n"), RTM_E_CFG_SYNTAX);
    assert_int_equal(load_text("a: \xe2\x82\xac\n"), RTM_OK); /* euro sign */
}

static void test_fields_and_reads(void **state)
{
    (void)state;
    assert_int_equal(load_text("period: 10ms\nn: 12\nok: true\nmode: hrad\nbig: 99999999999999999999\n"),
                     RTM_OK);
    static const char *const keys[] = {"period", "n", "ok", "mode", "big"};
    int32_t f[5];
    assert_int_equal(rtm_yamldoc_fields(&doc, 0, "test", keys, 5, f, &diag), RTM_OK);
    int64_t ns, n;
    bool ok;
    assert_int_equal(rtm_yamldoc_ns(&doc, f[0], NULL, &ns, &diag), RTM_OK);
    assert_true(ns == 10000000);
    assert_int_equal(rtm_yamldoc_int(&doc, f[1], NULL, 0, 100, &n, &diag), RTM_OK);
    assert_int_equal(n, 12);
    assert_int_equal(rtm_yamldoc_int(&doc, f[1], "x", 0, 10, &n, &diag), RTM_E_CFG_VALUE);
    assert_string_equal(diag.text, "n must be in 0..10 (got 12) in x");
    assert_int_equal(rtm_yamldoc_bool(&doc, f[2], NULL, &ok, &diag), RTM_OK);
    assert_true(ok);
    static const char *const modes[] = {"hard", "firm", "soft"};
    int e;
    assert_int_equal(rtm_yamldoc_enum(&doc, f[3], NULL, modes, 3, &e, &diag), RTM_E_CFG_VALUE);
    assert_non_null(strstr(diag.text, "did you mean 'hard'"));
    assert_int_equal(rtm_yamldoc_int(&doc, f[4], NULL, INT64_MIN, INT64_MAX, &n, &diag),
                     RTM_E_CFG_VALUE);
    static const char *const fewer[] = {"period", "n", "ok", "mode"};
    assert_int_equal(rtm_yamldoc_fields(&doc, 0, "test", fewer, 4, f, &diag), RTM_E_CFG_SCHEMA);
    assert_int_equal(diag.line, 5);
    assert_int_equal(diag.column, 1);
}

static void test_nearest(void **state)
{
    (void)state;
    static const char *const c[] = {"period", "deadline", "offset", "name"};
    assert_int_equal(rtm_yamldoc_nearest("perod", c, 4), 0);
    assert_int_equal(rtm_yamldoc_nearest("perido", c, 4), 0);
    assert_int_equal(rtm_yamldoc_nearest("dedline", c, 4), 1);
    assert_int_equal(rtm_yamldoc_nearest("nmae", c, 4), 3);
    assert_int_equal(rtm_yamldoc_nearest("xyzzy", c, 4), -1);
    assert_int_equal(rtm_yamldoc_nearest("", c, 4), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_and_positions),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_fields_and_reads),
        cmocka_unit_test(test_nearest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
