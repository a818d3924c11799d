/* diag_cl.h — the diagnostics' OpenCL error check (board/h100/diag, not part of rtmgr):
 * a failing cl* call prints where and its code, and exits. */
#ifndef RTM_DIAG_CL_H
#define RTM_DIAG_CL_H

#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cl_int e_ = (x);                                                                   \
        if (e_ != CL_SUCCESS) {                                                            \
            fprintf(stderr, "%s:%d %s: %d\n", __FILE__, __LINE__, #x, e_);                 \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#endif
