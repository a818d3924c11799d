#!/usr/bin/env bash
# Diagnostic (session 65): flagpos.c against rtmgr's library. From the repository root,
# after `. board/h100/setup.sh` and a Release build in build-h (cmake --build build-h
# --target librtmgr):
#   RTM_PLATFORM=NVIDIA bash board/h100/diag/flagpos.sh [N [K [REPS [C1,C2,...]]]]
set -u
W=/tmp/rtm-flagpos; mkdir -p $W
gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -DRTM_MAX_TASKS=64 \
    -DRTM_MAX_DEVICES=8 -DRTM_MAX_TARGETS=16384 -I. -Irtmgr board/h100/diag/flagpos.c \
    ${RTM_LIB:-build-h/librtmgr.a} -lOpenCL -lyaml -lm -lpthread -lrt -o $W/flagpos || exit 1
$W/flagpos "${1:-4000}" "${2:-8}" "${3:-8}" "${4:-32,1,128}"
