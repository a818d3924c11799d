#!/usr/bin/env bash
# gaps-raw.sh — a diagnostic, not part of rtmgr (session 57): every kept H100 profile of
# sessions 53-56 with a gpu0 validation beside it, predicted again (repredict.c) with
# gap_host_k and gap_host_o as calibration measured them (the lower quartiles its note
# gives) instead of brought to the pace (session 57's code keeps them as measured).
# Prints each profile's gpu0 MAPE as calibrated and again, then the mean and the count
# under 5 %. Session 57's library gave 4.63 -> 4.35 %; from session 58 (the host's lead in
# the model) both columns come out lower, 4.47 -> 4.16 %. Run from the repository root
# after `make build`:
#   bash board/h100/diag/gaps-raw.sh
set -euo pipefail
. board/h100/diag/kept-profiles.sh
gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -I. board/h100/diag/repredict.c \
    build/librtmgr.a -lOpenCL -lyaml -lm -lpthread -lrt -o /tmp/repredict
kept_profiles | while read -r r y v; do
    case $r in s5[3456]*) ;; *) continue ;; esac
    g=$(grep -o 'gpu0: phase_gap.*gap_host_k [0-9.]*us, gap_host_o [0-9.]*us' "$y" |
        sed 's/.*gap_host_k \([0-9.]*\)us, gap_host_o \([0-9.]*\)us/\1e-6 \2e-6/')
    set -- $g
    /tmp/repredict "$y" "$v" gpu0 gap_host_k="$1" gap_host_o="$2" | tail -1 |
        awk -v r="$r" '{print r, $4, $8}'
done | mape_summary
