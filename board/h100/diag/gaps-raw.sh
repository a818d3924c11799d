#!/usr/bin/env bash
# gaps-raw.sh — a diagnostic, not part of rtmgr (session 57): every kept H100 profile of
# sessions 53-56 with a gpu0 validation beside it, predicted again (repredict.c) with
# gap_host_k and gap_host_o as calibration measured them (the lower quartiles its note
# gives) instead of brought to the pace (session 57's code keeps them as measured).
# Prints each profile's gpu0 MAPE as calibrated and again, then the mean and the count
# under 5 %. Run from the repository root after `make build`:
#   bash board/h100/diag/gaps-raw.sh
set -euo pipefail
gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -I. board/h100/diag/repredict.c \
    build/librtmgr.a -lOpenCL -lyaml -lm -lpthread -lrt -o /tmp/repredict
R=board/h100/results
for y in $R/h100-s5[3456]*.yaml; do
    r=${y##*/h100-}; r=${r%.yaml}
    v=$R/validate-gpu0-$r-h100.txt
    [ -f "$v" ] || continue
    # session 56's run c8 squeezed seven gpu0 kernels (code since changed): left out
    [ "$r" = s56c8 ] && continue
    g=$(grep -o 'gpu0: phase_gap.*gap_host_k [0-9.]*us, gap_host_o [0-9.]*us' "$y" |
        sed 's/.*gap_host_k \([0-9.]*\)us, gap_host_o \([0-9.]*\)us/\1e-6 \2e-6/')
    set -- $g
    /tmp/repredict "$y" "$v" gpu0 gap_host_k="$1" gap_host_o="$2" | tail -1 |
        awk -v r="$r" '{print r, $4, $8}'
done | awk '{printf "%-6s %5.2f %% -> %5.2f %%\n", $1, $2, $3; a += $2; b += $3; n++;
             ua += $2 <= 5; ub += $3 <= 5}
            END {printf "mean %.2f %% -> %.2f %%; under 5 %%: %d -> %d of %d\n", a / n, b / n, ua, ub, n}'
