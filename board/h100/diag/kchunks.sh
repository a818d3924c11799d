#!/usr/bin/env bash
# Diagnostic (session 64): kchunks.c against rtmgr's library. From the repository root,
# after `. board/h100/setup.sh` and a Release build in build-h (cmake --build build-h
# --target rtmgr):
#   RTM_PLATFORM=NVIDIA bash board/h100/diag/kchunks.sh [N [REPS [ABORTS [KERNEL [FEW]]]]]
set -u
W=/tmp/rtm-kchunks; mkdir -p $W
gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -DRTM_MAX_TASKS=64 \
    -DRTM_MAX_DEVICES=8 -DRTM_MAX_TARGETS=16384 -I. -Irtmgr board/h100/diag/kchunks.c \
    build-h/librtmgr.a -lOpenCL -lyaml -lm -lpthread -lrt -o $W/kchunks || exit 1
$W/kchunks "${1:-4000}" "${2:-20}" "${3:-300}" "${4:-matrix_mul}" "${5:-0}"
