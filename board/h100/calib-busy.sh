#!/usr/bin/env bash
# Cold calibrations of the H100 machine under the run's time limit, each beside B CPU
# burners (`yes > /dev/null`, SCHED_OTHER) running during `rtmgr calibrate` alone, each
# profile then validated on gpu0 (device 1) and ocl0 (device 0, PoCL) on a quiet host.
# From the repository root on the GPU machine, with $OUT a folder for the results:
#   BURNS="8 0" P=s56d bash board/h100/calib-busy.sh
# (session 56, README; it overwrites board/h100.yaml and clears rtmgr's, PoCL's and
# NVIDIA's program caches).
. board/h100/setup.sh
cmake -S . -B build-h -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-Wno-error >/dev/null 2>&1
cmake --build build-h -j16 --target rtmgr >/dev/null 2>&1 || { echo build failed; exit 1; }
for B in ${BURNS:-4 8}; do
  T=${P:-busy}$B
  rm -rf ~/.cache/rtmgr ~/.cache/pocl ~/.nv/ComputeCache
  pids=""
  for i in $(seq "$B"); do yes > /dev/null & pids="$pids $!"; done
  s=$(date +%s.%N)
  ./build-h/rtmgr calibrate -o board/h100.yaml > "$OUT/calibrate-$T-h100.txt" 2>&1
  e=$(date +%s.%N)
  [ -n "$pids" ] && kill $pids && wait 2>/dev/null
  echo "# $B burners (yes > /dev/null) ran during calibrate" >> "$OUT/calibrate-$T-h100.txt"
  echo "# wall $(awk "BEGIN{printf \"%.1f\", $e - $s}") s" >> "$OUT/calibrate-$T-h100.txt"
  cp board/h100.yaml "$OUT/h100-$T.yaml"
  echo "== $T"
  grep -E "done \(|finished|after the devices|not measured|abort '|wall" "$OUT/calibrate-$T-h100.txt" | cut -c1-260
  grep -E "time limit|abort response from|host load while" board/h100.yaml | cut -c1-300
  ./build-h/rtmgr calibrate --validate -b board/h100.yaml --device 1 --no-cpu > "$OUT/validate-gpu0-$T-h100.txt" 2>&1
  grep -A3 '^MAPE' "$OUT/validate-gpu0-$T-h100.txt"
  ./build-h/rtmgr calibrate --validate -b board/h100.yaml --device 0 --no-cpu > "$OUT/validate-ocl0-$T-h100.txt" 2>&1
  grep -A3 '^MAPE' "$OUT/validate-ocl0-$T-h100.txt"
done
