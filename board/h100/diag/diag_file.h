/* diag_file.h — the diagnostics' file reading (board/h100/diag, not part of rtmgr): a
 * whole file read into a NUL-terminated buffer. */
#ifndef RTM_DIAG_FILE_H
#define RTM_DIAG_FILE_H

#include <stdio.h>
#include <stdlib.h>

/* The contents of `path` (caller frees), or NULL with a message on stderr. */
static char *diag_read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    char *buf = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = calloc(1, (size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf)
        fprintf(stderr, "%s: not read\n", path);
    return buf;
}

#endif
