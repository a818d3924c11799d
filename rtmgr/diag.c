/* diag.c — filling and formatting located diagnostics (see diag.h). Owns nothing. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void rtm_diag_set(rtm_diag_t *diag, const char *file, int line, int column, const char *fmt, ...)
{
    if (!diag)
        return;
    if (file != diag->file)
        snprintf(diag->file, sizeof(diag->file), "%s", file ? file : "");
    diag->line = line > 0 ? line : 0;
    diag->column = line > 0 && column > 0 ? column : 0;
    va_list ap;
    va_start(ap, fmt);
    /* NOLINT: clang-tidy 14 valist false positive in multi-file runs (see yamldoc.c). */
    vsnprintf(diag->text, sizeof(diag->text), fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized)
    va_end(ap);
}

int rtm_diag_format(const rtm_diag_t *diag, char *buf, size_t len)
{
    const char *file = diag->file[0] ? diag->file : "<config>";
    if (diag->line <= 0)
        return snprintf(buf, len, "%s: error: %s", file, diag->text);
    if (diag->column <= 0)
        return snprintf(buf, len, "%s:%d: error: %s", file, diag->line, diag->text);
    return snprintf(buf, len, "%s:%d:%d: error: %s", file, diag->line, diag->column, diag->text);
}
