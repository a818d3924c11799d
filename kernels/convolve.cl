/* convolve.cl — 3x3 or 5x5 convolution of a camera frame, clamp-to-edge borders.
 *
 *   out[y][x] = sum_{i,c < K} w[i*K + c] * in[clamp(y+i-R)][clamp(x+c-R)],  R = K/2
 *
 * accumulated in float with fma(), taps in row-major order (i, then c) from 0.0f, so
 * the CPU twin (fmaf, same order) gives bit-identical results. uchar frames are
 * converted to float on load and back with round-to-nearest-even and saturation.
 *
 * Blocking: a block computes one tile of CV_LX * RTM_VEC columns by CV_LY * CV_RY rows.
 * Work-item (lx, ly) = (lid % CV_LX, lid / CV_LX) computes RTM_VEC adjacent columns
 * (one vector) of CV_RY adjacent rows, so each input row it reads from local memory
 * serves up to K output rows (register blocking: (CV_RY + 2R) row reads for CV_RY
 * rows). The tile and its halo of R rows / CV_HV vectors are loaded into local memory
 * once, with one vector load per vector that lies inside the frame (coalesced:
 * consecutive work-items read consecutive vectors); only vectors that touch the left
 * or right edge are gathered element by element with clamping. Local memory is read
 * as whole vectors (conflict-free); the window of RTM_VEC + 2R elements a work-item
 * needs is cut out of 2 * CV_HV + 1 neighbouring vectors with compile-time indices.
 *
 * Frames are stored with a row pitch of `pitch` elements (a multiple of 16, so every
 * row starts on a vector boundary for any RTM_VEC). A work-item writes its vector when
 * the row is inside the frame and the vector starts left of `width` (lanes past
 * `width` fall in the row padding).
 * Build options: CV_T (uchar|float), CV_K (3|5), CV_LX, CV_RY, CV_HV (convolve.c). */
#include "rtm_vec.h"

#define R (CV_K / 2)
#define LROWS (CV_LY * CV_RY + 2 * R)  /* local rows: tile + halo */
#define LCOLS (CV_LX + 2 * CV_HV)      /* local vectors per row: tile + halo */
#define CV_LY (RTM_WG / CV_LX)
#define WIN (RTM_VEC + 2 * R)          /* window of elements one output vector needs */

typedef CV_T T;
typedef RTM_V(CV_T) TV;
typedef RTM_V(float) FV;

#ifdef CV_UCHAR
#define TO_F(x) convert_float(x)
#define FROM_FV(v) RTM_VFS(convert_uchar, _sat_rte)(v)
#else
#define TO_F(x) (x)
#define FROM_FV(v) (v)
#endif

__kernel void convolve(RTM_BLOCK_ARGS, __global const T *restrict in, __global T *restrict out,
                       __constant float *restrict w, const uint width, const uint height,
                       const uint pitch, const uint tiles_x)
{
    RTM_BLOCK_BEGIN(blk);
    __local TV tile[LROWS][LCOLS];

    const int x0 = (int)(blk % tiles_x) * (CV_LX * RTM_VEC); /* first column of the tile */
    const int y0 = (int)(blk / tiles_x) * (CV_LY * CV_RY);   /* first row of the tile */
    const uint lid = get_local_id(0);

    /* 1. Tile + halo into local memory. Local vector (row, col) holds the elements of
     *    frame row clamp(y0 + row - R) at columns x0 + (col - CV_HV) * RTM_VEC + lane. */
    for (uint i = lid; i < LROWS * LCOLS; i += RTM_WG) {
        const int row = (int)(i / LCOLS), col = (int)(i % LCOLS);
        const int gy = clamp(y0 + row - R, 0, (int)height - 1);
        const int gx = x0 + (col - CV_HV) * RTM_VEC;
        __global const T *src = in + (size_t)gy * pitch;
        if (gx >= 0 && gx + RTM_VEC <= (int)width) {
            tile[row][col] = ((__global const TV *)src)[gx / RTM_VEC];
        } else {
            RTM_VUNION(CV_T) u;
#pragma unroll
            for (int e = 0; e < RTM_VEC; e++)
                u.s[e] = src[clamp(gx + e, 0, (int)width - 1)];
            tile[row][col] = u.v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* 2. Register-blocked convolution. */
    const int lx = (int)(lid % CV_LX), ly = (int)(lid / CV_LX);
    float wk[CV_K * CV_K];
#pragma unroll
    for (int t = 0; t < CV_K * CV_K; t++)
        wk[t] = w[t];
    float acc[CV_RY][RTM_VEC];
#pragma unroll
    for (int r = 0; r < CV_RY; r++)
#pragma unroll
        for (int e = 0; e < RTM_VEC; e++)
            acc[r][e] = 0.0f;

#pragma unroll
    for (int j = 0; j < CV_RY + 2 * R; j++) { /* input row ly * CV_RY + j of the tile */
        RTM_VUNION(CV_T) u[2 * CV_HV + 1];
#pragma unroll
        for (int d = 0; d < 2 * CV_HV + 1; d++)
            u[d].v = tile[ly * CV_RY + j][lx + d];
        float win[WIN];
#pragma unroll
        for (int m = 0; m < WIN; m++) {
            /* element lx * RTM_VEC - R + m: vector d (from lx - CV_HV), lane e */
            const int off = m - R + CV_HV * RTM_VEC;
            win[m] = TO_F(u[off / RTM_VEC].s[off % RTM_VEC]);
        }
#pragma unroll
        for (int i = 0; i < CV_K; i++) {
            const int r = j - i; /* output row fed by kernel row i */
            if (r >= 0 && r < CV_RY) {
#pragma unroll
                for (int c = 0; c < CV_K; c++)
#pragma unroll
                    for (int e = 0; e < RTM_VEC; e++)
                        acc[r][e] = fma(wk[i * CV_K + c], win[e + c], acc[r][e]);
            }
        }
    }

    /* 3. Store one vector per output row. */
    const int gx = x0 + lx * RTM_VEC;
#pragma unroll
    for (int r = 0; r < CV_RY; r++) {
        const int gy = y0 + ly * CV_RY + r;
        if (gy < (int)height && gx < (int)width) {
            RTM_VUNION(float) o;
#pragma unroll
            for (int e = 0; e < RTM_VEC; e++)
                o.s[e] = acc[r][e];
            ((__global TV *)(out + (size_t)gy * pitch))[gx / RTM_VEC] = FROM_FV(o.v);
        }
    }
    RTM_BLOCK_END(blk);
}
