/* diag.h — a diagnostic that knows where it came from: FILE:LINE:COLUMN: error: text.
 * Filled by the loaders (config, board) and printed by the CLI. */
#ifndef RTM_DIAG_H
#define RTM_DIAG_H

#include "limits.h"

typedef struct {
    char file[RTM_PATH_MAX];
    int line;   /* 1-based; 0 when the problem is the file as a whole */
    int column; /* 1-based; 0 when unknown */
    char text[512];
} rtm_diag_t;

#endif
