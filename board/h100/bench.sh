#!/usr/bin/env bash
# Builds rtmgr on the GPU machine and runs the test suite and the kernel benchmarks
# there. Usage (from the repository root, .debs/ carried): board/h100/bench.sh [STEP...]
# Steps: build test devices kernels kernels-bw nav calibrate calibrate-warm calibrate-threads
# validate placement run preempt
# (quick) preempt-overhead preempt-overhead-a preempt-overhead-b preempt-response preempt-resume preempt-prewake preempt-poll preempt-json preempt-eager
# (quick response part with the old eager output reads: reproduces the missed aborts).
# Results go to $OUT (or ./h100-out).
set -u
. board/h100/setup.sh
out=${OUT:-h100-out}; mkdir -p "$out"
steps=${*:-build test devices kernels nav}
for s in $steps; do
  case $s in
  build)
    # Warnings are errors everywhere else; here they are collected so that a newer gcc's
    # findings are reported instead of stopping the measurements.
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-Wno-error >/dev/null &&
      cmake --build build -j16 2>&1 | grep -E "warning" | sort -u | tee "$out/warnings.txt" ;;
  test)
    (cd build && RTM_PLATFORM=NVIDIA timeout 400 ctest -j8 --output-on-failure > "$out/ctest.txt" 2>&1; tail -5 "$out/ctest.txt"; grep -E "Failed|\*\*\*" "$out/ctest.txt" | head -20) ;;
  devices)
    ./build/rtmgr devices | tee "$out/devices.txt" | grep -E "^\s*\[|platform" ;;
  kernels)
    # Every kernel's table; --sweep first tunes copy and the memory-bound kernels (vec x wg,
    # then items per work-item) at >= 256 MiB and runs their large rows at the best point.
    s0=$(date +%s)
    RTM_PLATFORM=NVIDIA timeout 470 ./build/rtmgr bench kernels --device 0 --sweep > "$out/bench-gpu.txt" 2>&1; echo "bench rc=$? in $(( $(date +%s) - s0 )) s"
    grep -E "best:|bandwidth the|class|large|>= 256|^    [a-z_0-9]+ .*%$" "$out/bench-gpu.txt" ;;
  kernels-bw)
    # Issue 3's bandwidth targets alone (about 3 minutes): copy and the memory-bound kernels,
    # swept, with the table and the ">= 256 MiB" summary.
    s0=$(date +%s)
    RTM_PLATFORM=NVIDIA timeout 420 ./build/rtmgr bench kernels --device 0 --sweep \
      --kernel copy,matrix_add,matrix_add3,threshold,convolve > "$out/bench-bw-gpu.txt" 2>&1; echo "bench rc=$? in $(( $(date +%s) - s0 )) s"
    grep -vE "^    (wg|items|  )" "$out/bench-bw-gpu.txt" ;;
  nav)
    for spec in "cpa_pairs ships=16384" "manoeuvre targets=4096" "cpa_tcpa targets=16384" "trajectory targets=4096" "radix_sort n=33554432" "sort n=33554432"; do
      set -- $spec
      echo "== $1 $2"; RTM_PLATFORM=NVIDIA ./build/rtmgr eval "$1" --device 0 --fill 1 --size "$2" --repeat 20 --out /dev/null 2>&1 | tail -3
    done 2>&1 | tee "$out/eval-gpu.txt" ;;
  calibrate)
    # Every device (the GPU and PoCL on the 16 host cores) and the CPU. On a fresh machine
    # the program cache is cold: the summary line says how much of the time was builds.
    /usr/bin/time -f "calibrate wall %e s" ./build/rtmgr calibrate -o board/h100.yaml > "$out/calibrate.txt" 2>&1
    tail -3 "$out/calibrate.txt"; grep -E "^#   [a-z0-9]+: time " board/h100.yaml
    # the GPU's last-level cache, measured (the read sweep's result and curves)
    grep -E "cache (measured|read sweep)|knee at" board/h100.yaml
    cp board/h100.yaml "$out/h100.yaml" ;;
  calibrate-warm)
    # The same again, after `calibrate`: the programs come from the binary cache.
    /usr/bin/time -f "calibrate (warm) wall %e s" ./build/rtmgr calibrate -o /tmp/h100-warm.yaml > "$out/calibrate-warm.txt" 2>&1
    tail -3 "$out/calibrate-warm.txt"; cp /tmp/h100-warm.yaml "$out/h100-warm.yaml" ;;
  calibrate-threads)
    # Cold caches again (fresh directories), prebuilds in threads as before session 3
    # (RTM_CALIB_PREBUILD=threads): against `calibrate`, what the worker processes save.
    d=$(mktemp -d)
    RTM_CALIB_PREBUILD=threads RTM_CACHE_DIR=$d/rtm POCL_CACHE_DIR=$d/pocl CUDA_CACHE_PATH=$d/cuda \
      /usr/bin/time -f "calibrate (threads, cold) wall %e s" ./build/rtmgr calibrate -o /tmp/h100-threads.yaml > "$out/calibrate-threads.txt" 2>&1
    tail -3 "$out/calibrate-threads.txt"; grep -E "^#   [a-z0-9]+: time " /tmp/h100-threads.yaml; rm -rf "$d" ;;
  validate)
    # one run gives both: the table on stdout, the JSON lines through --json-out
    /usr/bin/time -f "validate wall %e s" timeout 420 ./build/rtmgr calibrate --validate \
      -b board/h100.yaml --json-out "$out/validate.json" > "$out/validate.txt" 2>&1
    grep -E 'MAPE|validate wall' "$out/validate.txt"; grep -E '"summary"' "$out/validate.json" ;;
  placement)
    timeout 300 ./build/rtmgr bench placement > "$out/placement.txt" 2>&1; tail -25 "$out/placement.txt" ;;
  run)
    timeout 120 ./build/rtmgr run -c config/vessel-gpu.yaml --duration 30 > "$out/run.txt" 2>&1
    tail -16 "$out/run.txt"
    ./build/rtmgr report rtmgr-vessel-gpu.csv --no-plot > "$out/report.txt" 2>&1; tail -20 "$out/report.txt" ;;
  preempt)
    # quick, all parts (< 3 min); the full parts are their own steps (each < 9 min)
    RTM_PLATFORM=NVIDIA timeout 500 ./build/rtmgr bench preempt --device 0 --quick > "$out/preempt-quick.txt" 2>&1; echo "rc=$?"; tail -30 "$out/preempt-quick.txt" ;;
  preempt-prewake)
    # the response part with the series' thread spinning 5 ms before each raise (against
    # preempt-response's default 200 us): does a host core kept awake shorten the
    # response at kernels of 100 ms and more?
    RTM_PLATFORM=NVIDIA timeout 530 ./build/rtmgr bench preempt --device 0 --part response --prewake 5000 > "$out/$s.txt" 2>&1; echo "rc=$?"; tail -40 "$out/$s.txt" ;;
  preempt-overhead-a|preempt-overhead-b)
    # the overhead part in two calls (whole, it ran past 470 s in session 14: the NVIDIA
    # occupancy guard's rebuilds and the largest kernels' sizing)
    k=matrix_add,trajectory,cpa_tcpa,cpa_pairs
    [ "$s" = preempt-overhead-b ] && k=manoeuvre,last_chance,threshold,convolve,matrix_mov,matrix_add3,matrix_loop_add,matrix_mul,empty,grid_path,sort,radix_sort
    RTM_PLATFORM=NVIDIA timeout 530 ./build/rtmgr bench preempt --device 0 --part overhead --kernels "$k" > "$out/$s.txt" 2>&1; echo "rc=$?"; tail -20 "$out/$s.txt" ;;
  preempt-overhead|preempt-response|preempt-resume)
    RTM_PLATFORM=NVIDIA timeout 530 ./build/rtmgr bench preempt --device 0 --part "${s#preempt-}" > "$out/$s.txt" 2>&1; echo "rc=$?"; tail -40 "$out/$s.txt" ;;
  preempt-poll)
    # section 6: each looping kernel's poll period as calibrate chooses it (every candidate's
    # overhead vs the no-poll build), with ptxas register counts of every build
    RTM_PLATFORM=NVIDIA RTM_CL_OPTIONS=-cl-nv-verbose RTM_CL_LOG=1 timeout 300 ./build/rtmgr bench preempt --device 0 --quick --part poll > "$out/$s.txt" 2> "$out/$s-log.txt"; echo "rc=$?"
    grep -E "^rtmgr: built|registers" "$out/$s-log.txt" | sed -E 's/-I[^ ]+ //; s/-DRTM_(NO_ABORT|NO_DONE|COUNT_BLOCKS|WG_CHECK|FLAG_COPIES|POLL_LANES)=[0-9]+ //g' > "$out/$s-regs.txt"
    tail -40 "$out/$s.txt"; echo "-- builds and registers:"; tail -40 "$out/$s-regs.txt" ;;
  preempt-eager)
    RTM_PLATFORM=NVIDIA timeout 300 ./build/rtmgr bench preempt --device 0 --quick --part response --read eager > "$out/$s.txt" 2>&1; echo "rc=$?"; tail -24 "$out/$s.txt" ;;
  preempt-json)
    RTM_PLATFORM=NVIDIA timeout 530 ./build/rtmgr bench preempt --device 0 --quick --json 2>&1 | tail -1 | tee "$out/preempt.json" ;;
  esac
done
