#!/usr/bin/env bash
# jobcalls.sh — the OpenCL calls a job costs on an OpenCL device of this computer:
# runs a task set with every task placed on the device (`placement: gpu`) and the abort
# flag's `write` transport (the paper's, the GPUs'; PoCL's profile says `mapped`) under
# the call timer (cltime.c), then prints each call's count per job of device ocl0 and its
# mean host time. Start-up calls (program loads, warm-up runs) are in the counts too:
# spread over a run of 10 s they are a small part.
#
#   board/cltime/jobcalls.sh [CONFIG [SECONDS]]      (default config/vessel.yaml, 10 s)
#
# Needs the build (`make build`: build/rtmgr, build/librtmgr-cltime.so; RTMGR_BUILD names
# another build directory). Session 22's figures (README): config/vessel.yaml on the
# development machine's PoCL.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
config=$(cd "$(dirname "${1:-$here/config/vessel.yaml}")" && pwd)/$(basename "${1:-config/vessel.yaml}")
secs=${2:-10}
build=${RTMGR_BUILD:-$here/build}
rtmgr=$build/rtmgr
shim=$build/librtmgr-cltime.so
if [ ! -x "$rtmgr" ] || [ ! -f "$shim" ]; then
    echo "jobcalls: build first (make build)" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the task set's board profile, with the write transport
board=$(sed -n 's/^board: *//p' "$config")
case $board in /*) ;; *) board=$(dirname "$config")/$board ;; esac
# (its devices' names blanked: any matches; a PoCL device is named after the CPU it ran on)
sed -e 's/^\(    abort: \)mapped/\1write/' -e 's/^\(    device: \)".*"/\1""/' "$board" > "$tmp/board.yaml"
# the task set: its board and log here, every task on the device
awk -v b="$tmp/board.yaml" -v l="$tmp/log.csv" '
    /^board:/ { print "board: " b; next }
    /^log:/ { print "log: {path: " l "}"; next }
    /^ *placement:/ { next }
    { print }
    /^    criticality:/ { print "    placement: gpu" }' "$config" > "$tmp/tasks.yaml"
RTM_CLTIME_OUT=$tmp/calls.txt LD_PRELOAD=$shim "$rtmgr" run -c "$tmp/tasks.yaml" \
    --duration "$secs" --no-rt > "$tmp/run.txt" 2>&1 || { cat "$tmp/run.txt" >&2; exit 1; }
jobs=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "device") d = i }
                NR > 1 && $d == "ocl0" { n++ } END { print n + 0 }' "$tmp/log.csv")
[ "$jobs" -gt 0 ] || { echo "jobcalls: no job ran on ocl0" >&2; exit 1; }
echo "$(basename "$config"), every task on ocl0 (abort: write), ${secs} s: $jobs jobs on ocl0"
awk -v j="$jobs" 'NR > 1 && $1 ~ /^cl/ {
    printf "  %-30s %8d calls  %6.2f per job  %8.2f us each\n", $1, $2, $2 / j, $4 }' \
    "$tmp/calls.txt"
