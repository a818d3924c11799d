#!/usr/bin/env bash
# repredict-ab.sh — a diagnostic, not part of rtmgr (session 58): every kept H100 profile
# of sessions 53-58 with a gpu0 validation beside it (kept-profiles.sh), its validation
# predicted again (repredict.c) by the library at REV (default e063946, before the host's
# lead, model.c host_lead) and by this checkout's build/librtmgr.a. Prints each profile's
# gpu0 MAPE by both, then the mean and the count under 5 %. Run from the repository root
# after `make build`:
#   bash board/h100/diag/repredict-ab.sh [REV]
set -euo pipefail
. board/h100/diag/kept-profiles.sh
rev=${1:-e063946}
wt=$(mktemp -d)
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$wt"' EXIT
git worktree add -q --detach "$wt" "$rev"
cmake -S "$wt" -B "$wt/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$wt/build" -j"$(nproc)" --target librtmgr >/dev/null
cc() { gcc -O2 -std=c11 -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=300 -I. \
          board/h100/diag/repredict.c "$1" -lOpenCL -lyaml -lm -lpthread -lrt -o "$2"; }
cc "$wt/build/librtmgr.a" "$wt/repredict-a"
cc build/librtmgr.a "$wt/repredict-b"
kept_profiles | while read -r r y v; do
    a=$("$wt/repredict-a" "$y" "$v" gpu0 | tail -1 | awk '{print $4}')
    b=$("$wt/repredict-b" "$y" "$v" gpu0 | tail -1 | awk '{print $4}')
    echo "$r $a $b"
done | mape_summary
