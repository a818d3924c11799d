#!/bin/sh
# smoke.sh FUZZER SECONDS WORKDIR DICT SEED... — a short libFuzzer run for CTest: copies
# the seeds (files or directories) into WORKDIR/corpus, fuzzes for SECONDS, keeps crash
# artifacts in WORKDIR/artifacts, and prints the last status line. Non-zero exit on a
# crash, a leak, a timeout or an invariant (libFuzzer's own exit status).
set -eu
fuzzer=$1
secs=$2
work=$3
dict=$4
shift 4
mkdir -p "$work/corpus" "$work/artifacts"
for s in "$@"; do
    if [ -d "$s" ]; then
        find "$s" -type f -exec cp {} "$work/corpus/" \;
    elif [ -f "$s" ]; then
        cp "$s" "$work/corpus/"
    fi
done
rc=0
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/log" 2>&1 || rc=$?
grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/log" || true
if [ "$rc" -ne 0 ]; then
    tail -n 60 "$work/log"
    echo "smoke.sh: $(basename "$fuzzer") failed (exit $rc); artifacts in $work/artifacts"
fi
exit "$rc"
