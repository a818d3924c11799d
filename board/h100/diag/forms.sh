#!/usr/bin/env bash
# Diagnostic (session 46; not built by CMake, needs the CUDA toolkit in /usr/local/cuda and
# NVIDIA's OpenCL): builds each matrix_mul loop form of forms.cl (-DMM_FORM=0..10) three ways with clptx (the
# options kexec passes: original; in-loop polls on a plain grid; the executive's persistent
# build) and times every PTX with cuh (CUDA driver API, 30 runs, min / median ms). Run from
# the repository root on the H100 machine after `. board/h100/setup.sh`:
#   bash board/h100/diag/forms.sh [N]       (N = 4000 by default)
# Nsight Compute profiles the same launches: ncu --set full -o R /tmp/rtm-forms/cuh PTX ...
set -u
W=/tmp/rtm-forms; mkdir -p $W/p
n=${1:-4000}
blocks=$(( (n * n + 255) / 256 ))
gcc -O2 -o $W/cuh board/h100/diag/cuh.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
gcc -O2 -o $W/clptx board/h100/diag/clptx.c -lOpenCL
COM="-I$PWD/kernels -DRTM_WG=256 -DRTM_VEC=1 -DRTM_POLL_LANES=1 -DRTM_COUNT_BLOCKS=0 -DRTM_HIDE_LATENCY=1 -DRTM_WG_CHECK=0 -DRTM_FLAG_COPIES=32"
O_orig="$COM -DRTM_PERSIST=0 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=1 -DRTM_NO_DONE=0 -DRTM_END_MARK=0"
O_poll="$COM -DRTM_PERSIST=0 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=0 -DRTM_NO_DONE=0 -DRTM_END_MARK=1 -DRTM_POLL_LD=1"
O_prod="$COM -DRTM_PERSIST=2 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=0 -DRTM_NO_DONE=0 -DRTM_END_MARK=1 -DRTM_FETCH_STORE=1 -DRTM_POLL_LD=1"
for m in 0 1 2 3 4 5 6 7 8 9 10; do v=mm$m
  for b in orig poll prod; do eval o=\$O_$b; $W/clptx board/h100/diag/forms.cl $W/p/$v-$b.ptx "$o -DMM_FORM=$m"; done
  for b in orig poll prod; do
    g=$blocks; [ $b = prod ] && [ $blocks -ge 16384 ] && g=1056 # kexec's persistent groups on the H100
    $W/cuh $W/p/$v-$b.ptx $g 256 $blocks $n 30 | awk -v t="$v $b n=$n groups=$g" \
      '/registers/{r=$0; sub(/.*params, /,"",r); sub(/, grid.*/,"",r)} /kernel ms/{sub(/; done.*/,""); ms=$0} /checksum/{print t": "ms" | "r" | "$3" "$4}'
  done
done
