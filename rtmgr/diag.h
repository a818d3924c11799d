/* diag.h — a diagnostic that knows where it came from: FILE:LINE:COLUMN: error: text.
 * Filled by the loaders (config, board) and printed by the CLI. */
#ifndef RTM_DIAG_H
#define RTM_DIAG_H

#include <stddef.h>

#include "limits.h"

typedef struct {
    char file[RTM_PATH_MAX];
    int line;   /* 1-based; 0 when the problem is the file as a whole */
    int column; /* 1-based; 0 when unknown */
    char text[512];
} rtm_diag_t;

/* Fills `diag` (may be NULL: then nothing happens). Text is printf-formatted and
 * truncated to fit. Init only (formats with vsnprintf). */
void rtm_diag_set(rtm_diag_t *diag, const char *file, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Writes "FILE:LINE:COLUMN: error: text" ("FILE: error: text" when line is 0,
 * "FILE:LINE: error: text" when only the column is 0) into buf; returns as snprintf. */
int rtm_diag_format(const rtm_diag_t *diag, char *buf, size_t len);

#endif
