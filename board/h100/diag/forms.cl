/* forms.cl — diagnostic (session 46, board/h100/diag/forms.sh): kernels/matrix_mul.cl with
 * its step loop written in equivalent other ways, chosen by -DMM_FORM=N (0: as committed).
 * The same loads and fmas in the same order: every form gives the same bits. */
#if MM_FORM == 1 || MM_FORM == 8 /* A indexed along its row, B walked by a pointer */
#define MM_LOOP                                                                     \
    const __global float *ar = a + (size_t)ty * n;                                  \
    const __global float *bp = b + tx;                                              \
    RTM_POLL_LOOP(k, 0, n, value = fma(ar[k], *bp, value); bp += n)
#elif MM_FORM == 2 /* A by row pointer, B by a 64-bit index */
#define MM_LOOP                                                                     \
    const __global float *ar = a + (size_t)ty * n;                                  \
    RTM_POLL_LOOP(k, 0, n, value = fma(ar[k], b[(ulong)k * n + tx], value))
#elif MM_FORM == 5 /* row and column base pointers, B by a 64-bit index */
#define MM_LOOP                                                                     \
    const __global float *ar = a + (ulong)ty * n, *bc = b + tx;                     \
    RTM_POLL_LOOP(k, 0, n, value = fma(ar[k], bc[(ulong)k * n], value))
#elif MM_FORM == 3 || MM_FORM == 7 /* A and B walked by pointers */
#define MM_LOOP                                                                     \
    const __global float *ap = a + (size_t)ty * n;                                  \
    const __global float *bp = b + tx;                                              \
    RTM_POLL_LOOP(k, 0, n, value = fma(*ap, *bp, value); ap++; bp += n)
#elif MM_FORM == 6 /* row pointers, B by the loop's own index */
#define MM_LOOP                                                                     \
    const __global float *ar = a + (ulong)ty * n, *bc = b + tx;                     \
    RTM_POLL_LOOP(k, 0, n, value = fma(ar[k], bc[k * n], value))
#elif MM_FORM == 9 /* 64-bit row offset */
#define MM_LOOP                                                                     \
    const ulong row = (ulong)ty * n;                                                \
    RTM_POLL_LOOP(k, 0, n, value = fma(a[row + k], b[(ulong)k * n + tx], value))
#elif MM_FORM == 10 /* signed indices (no wrap: offsets fold) */
#define MM_LOOP                                                                     \
    const int nn = (int)n, row = (int)ty * nn, col = (int)tx;                       \
    RTM_POLL_LOOP(k, 0, nn, value = fma(a[row + k], b[k * nn + col], value))
#endif
/* the loop index type: 64-bit in forms 4, 6, 7, 8; int in 10 */
#if MM_FORM == 4 || MM_FORM == 6 || MM_FORM == 7 || MM_FORM == 8
#define RTM_POLL_INDEX ulong
#elif MM_FORM == 10
#define RTM_POLL_INDEX int
#endif
#ifndef MM_FORMS_ONLY /* mmitems.cl takes the forms and writes its own kernel */
#include "matrix_mul.cl"
#endif
