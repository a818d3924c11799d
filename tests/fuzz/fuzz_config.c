/* fuzz_config.c — libFuzzer target for the task-set loader: each input is written to a
 * file in a private directory (mode 0600: the permission check passes) and loaded with
 * rtm_config_load_board() against the fixed board profile $RTM_FUZZ_BOARD (default: the
 * source tree's board/pocl-cpu.yaml), so that `board:` in the input never makes the
 * loader open an arbitrary file. Nothing else the loader reads names a file it opens
 * (input.nmea.file and log.path are only resolved). Invariants after a load are checked
 * with __builtin_trap(). Build and run: see tests/fuzz/fuzz.cmake. */
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtmgr/config.h"

#define CHECK(c)                                                                         \
    do {                                                                                 \
        if (!(c))                                                                        \
            __builtin_trap();                                                            \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static char path[128];
static const char *board = RTM_FUZZ_SOURCE_DIR "/board/pocl-cpu.yaml";

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *b = getenv("RTM_FUZZ_BOARD");
    if (b && *b)
        board = b;
    snprintf(dir, sizeof(dir), "/tmp/rtm_fuzz_config_XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(path, sizeof(path), "%s/task.yaml", dir);
    atexit(cleanup);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rtm_config_t cfg;
    static rtm_diag_t diag;
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        abort();
    for (size_t off = 0; off < size;) {
        const ssize_t w = write(fd, data + off, size - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    close(fd);
    memset(&diag, 0, sizeof(diag));
    const rtm_status_t st = rtm_config_load_board(path, board, &cfg, &diag);
    CHECK(memchr(diag.text, '\0', sizeof(diag.text)) != NULL);
    if (st != RTM_OK) {
        CHECK(st < 0);
        CHECK(diag.text[0] != '\0');             /* every refusal says why */
        CHECK(diag.line >= 0 && diag.column >= 0);
        return 0;
    }
    /* a loaded task set obeys the schema */
    CHECK(strcmp(cfg.board_path, board) == 0);
    CHECK(cfg.n_tasks >= 1 && cfg.n_tasks <= RTM_MAX_TASKS);
    CHECK(cfg.max_jobs >= cfg.n_tasks && cfg.max_jobs <= RTM_MAX_JOBS);
    for (uint32_t i = 0; i < cfg.n_tasks; i++) {
        const rtm_task_cfg_t *t = &cfg.task[i];
        CHECK(t->kernel != NULL && t->name[0] != '\0');
        CHECK(t->period_ns > 0 && t->deadline_ns > 0 && t->deadline_ns <= t->period_ns);
        CHECK(t->offset_ns >= 0 && t->offset_ns < t->period_ns);
        CHECK(rtm_config_task_find(&cfg, t->name) == (int)i);
        for (uint32_t k = 0; k < t->kernel->n_keys; k++)
            CHECK(t->size[k] >= t->kernel->keys[k].min && t->size[k] <= t->kernel->keys[k].max);
    }
    CHECK(cfg.input.kind >= RTM_INPUT_SCENARIO && cfg.input.kind <= RTM_INPUT_NMEA_FILE);
    if (cfg.output.on) {
        CHECK(cfg.output.task < cfg.n_tasks);
        CHECK(cfg.output.max_targets >= 1 && cfg.output.max_targets <= 99);
    }
    CHECK(cfg.hil.mape_budget > 0 && isfinite(cfg.hil.mape_budget));
    uint64_t bytes;
    CHECK(rtm_config_kernel_bytes(&cfg, &bytes) == RTM_OK && bytes <= cfg.arena_bytes);
    return 0;
}
