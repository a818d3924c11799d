#!/usr/bin/env bash
# Diagnostic (session 63; NVIDIA's OpenCL): matrix_mul at n x n as one plain launch, on
# persistent groups, and as a plain grid in gated chunks over two queues (chunks.c), with
# kexec's options for each build; min / median job ms over REPS, then the drain after
# ABORTS raises at random instants. Run from the repository root after
# `. board/h100/setup.sh`:
#   bash board/h100/diag/chunks.sh [N [REPS [ABORTS [C1,C2,...]]]]
set -u
W=/tmp/rtm-chunks; mkdir -p $W
# rtmgr's own clock and percentiles (rtmgr/os.c, rtmgr/stats.c: no other part of rtmgr)
gcc -O2 -std=c11 -D_GNU_SOURCE -I. -Irtmgr -o $W/chunks board/h100/diag/chunks.c rtmgr/stats.c rtmgr/os.c \
    -lOpenCL -lm -lpthread -lrt || exit 1
COM="-I$PWD/kernels -DRTM_WG=256 -DRTM_VEC=1 -DRTM_POLL_LANES=1 -DRTM_COUNT_BLOCKS=0 -DRTM_HIDE_LATENCY=1 -DRTM_WG_CHECK=0 -DRTM_FLAG_COPIES=32"
O_orig="$COM -DRTM_PERSIST=0 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=1 -DRTM_NO_DONE=0 -DRTM_END_MARK=0"
O_poll="$COM -DRTM_PERSIST=0 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=0 -DRTM_NO_DONE=0 -DRTM_END_MARK=1 -DRTM_POLL_LD=1"
O_prod="$COM -DRTM_PERSIST=2 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=0 -DRTM_NO_DONE=0 -DRTM_END_MARK=1 -DRTM_FETCH_STORE=1 -DRTM_POLL_LD=1"
$W/chunks kernels/matrix_mul.cl "${1:-4000}" "${2:-30}" "${3:-300}" "$O_orig" "$O_poll" "$O_prod" "${4:-4096,8192,16384}"
