#!/usr/bin/env bash
# Diagnostic (session 77; not built by CMake, needs the CUDA toolkit in /usr/local/cuda and
# NVIDIA's OpenCL): builds grid_path's original, check, +done[] and production (plain grid,
# in-loop polls) builds with clptx (the options kexec passes on the H100), times them with
# cugp (the bench's job through the CUDA driver API, 20 interleaved jobs each, the device
# idle 3 job times before each: min / median ms) with the end mark in host memory and with
# none, then profiles launches 40-43 of each build's job with Nsight Compute (--set full;
# details, raw and per-SASS-line CSV into OUT). Run from the repository root on the H100
# machine after `. board/h100/setup.sh` and `cmake --build BUILD --target librtmgr`:
#   bash board/h100/diag/cugp.sh BUILD OUT [WG]     (WG = 256 by default; extra clptx
#                                                   options in CUGP_OPTS)
# Session 77: board/h100/results/grid_path-ncu-s77-h100.txt.
set -u
B=${1:?build directory}; R=${2:?output directory}; wg=${3:-256}
W=/tmp/rtm-cugp; mkdir -p $W "$R"
gcc -O2 -o $W/clptx board/h100/diag/clptx.c -lOpenCL || exit 1
eval "$(sed -n 's/^\(C_DEFINES\|C_INCLUDES\) = \(.*\)/\1="\2"/p' $B/CMakeFiles/librtmgr.dir/flags.make)"
gcc $C_DEFINES $C_INCLUDES -O2 -I. -Irtmgr -I/usr/local/cuda/include -o $W/cugp board/h100/diag/cugp.c \
  $B/librtmgr.a -L/usr/local/cuda/lib64 -lcuda -lOpenCL -lyaml -lpthread -lrt -lm || exit 1
K="-I$PWD/kernels -DRTM_WG=$wg -DRTM_VEC=1 -DRTM_PERSIST=0 -DRTM_POLL_LANES=1 -DRTM_NO_DONE=0 -DRTM_COUNT_BLOCKS=0 -DRTM_HIDE_LATENCY=1 -DRTM_FLAG_COPIES=1 ${CUGP_OPTS:-}"
declare -A O
O[orig]="$K -DRTM_POLL_EVERY=256 -DRTM_NO_ABORT=1 -DRTM_WG_CHECK=0 -DRTM_END_MARK=0"
O[check]="$K -DRTM_POLL_EVERY=256 -DRTM_NO_ABORT=0 -DRTM_WG_CHECK=1 -DRTM_END_MARK=0"
O[done]="$K -DRTM_POLL_EVERY=0 -DRTM_NO_ABORT=0 -DRTM_WG_CHECK=0 -DRTM_END_MARK=1"
O[fullp]="$K -DRTM_POLL_EVERY=256 -DRTM_NO_ABORT=0 -DRTM_WG_CHECK=0 -DRTM_END_MARK=1 -DRTM_POLL_LD=1"
for n in orig check done fullp; do
  $W/clptx kernels/grid_path.cl $W/$n.ptx "${O[$n]}" || exit 1
done
cd $W
export CUGP_WG=$wg
echo "== end mark in host memory"; ./cugp 20 3 1 orig.ptx check.ptx done.ptx fullp.ptx | tee "$R/time-end1.txt"
echo "== no end mark"; ./cugp 20 3 0 orig.ptx check.ptx done.ptx fullp.ptx | tee "$R/time-end0.txt"
NCU=/usr/local/cuda/bin/ncu
for n in orig check done fullp; do
  $NCU --launch-skip 40 --launch-count 4 --set full --import-source no -f -o $W/rep-$n ./cugp 1 0 1 $n.ptx > "$R/ncu-$n.log" 2>&1
  $NCU --import $W/rep-$n.ncu-rep --page raw --csv > "$R/raw-$n.csv"
  $NCU --import $W/rep-$n.ncu-rep --page details --csv > "$R/details-$n.csv"
  $NCU --import $W/rep-$n.ncu-rep --page source --print-source sass --csv > "$R/sass-$n.csv"
done
