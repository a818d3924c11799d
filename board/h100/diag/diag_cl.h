/* diag_cl.h — the diagnostics' OpenCL helpers (board/h100/diag, not part of rtmgr): the
 * error check (a failing cl* call prints where and its code, and exits) and the platform
 * chosen by a part of its name. */
#ifndef RTM_DIAG_CL_H
#define RTM_DIAG_CL_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cl_int e_ = (x);                                                                   \
        if (e_ != CL_SUCCESS) {                                                            \
            fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, e_);                 \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* The first platform whose name contains `part` (NULL: none); with or_first, the first
 * platform where none does or `part` is NULL. */
static cl_platform_id diag_cl_platform(const char *part, bool or_first)
{
    cl_platform_id pl[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, pl, &np) != CL_SUCCESS || np == 0)
        return NULL;
    for (cl_uint i = 0; i < np && part; i++) {
        char name[256] = "";
        clGetPlatformInfo(pl[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (strstr(name, part))
            return pl[i];
    }
    return or_first ? pl[0] : NULL;
}

#endif
