#!/usr/bin/env bash
# Diagnostic (session 62; needs what forms.sh needs): matrix_mul with 1, 2 and 4 outputs
# per work-item (mmitems.cl, the items loop unrolled) in loop forms 0, 4, 7, 8, each built
# as the original (no abort code) and with in-loop polls on a plain grid (kexec's options
# for a grid under 16 384 blocks), timed with cuh (30 runs, min / median ms). The question:
# does a plain grid of 15 625 blocks of 4 items keep the polled plain grid's schedule
# (-1.5..-5 % against the original) where the persistent groups' block loop costs 4-6 %?
#   bash board/h100/diag/mmitems.sh [N]       (N = 4000 by default)
set -u
W=/tmp/rtm-forms; mkdir -p $W/p
n=${1:-4000}
gcc -O2 -o $W/cuh board/h100/diag/cuh.c -I/usr/local/cuda/include -L/usr/local/cuda/lib64/stubs -lcuda
gcc -O2 -o $W/clptx board/h100/diag/clptx.c -lOpenCL
COM="-I$PWD/kernels -I$PWD/board/h100/diag -DRTM_WG=256 -DRTM_VEC=1 -DRTM_POLL_LANES=1 -DRTM_COUNT_BLOCKS=0 -DRTM_HIDE_LATENCY=1 -DRTM_WG_CHECK=0 -DRTM_FLAG_COPIES=32"
O_orig="$COM -DRTM_PERSIST=0 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=1 -DRTM_NO_DONE=0 -DRTM_END_MARK=0"
O_poll="$COM -DRTM_PERSIST=0 -DRTM_POLL_EVERY=16 -DRTM_NO_ABORT=0 -DRTM_NO_DONE=0 -DRTM_END_MARK=1 -DRTM_POLL_LD=1"
for m in 0 4 7 8; do
  for it in 1 2 4; do v=mm$m-i$it
    blocks=$(( (n * n + 256 * it - 1) / (256 * it) ))
    for b in orig poll; do eval o=\$O_$b
      $W/clptx board/h100/diag/mmitems.cl $W/p/$v-$b.ptx "$o -DMM_FORM=$m -DMM_ITEMS=$it" || continue
      $W/cuh $W/p/$v-$b.ptx $blocks 256 $blocks $n 30 | awk -v t="form $m items $it $b n=$n blocks=$blocks" \
        '/registers/{r=$0; sub(/.*params, /,"",r); sub(/, grid.*/,"",r)} /kernel ms/{sub(/; done.*/,""); ms=$0} /checksum/{print t": "ms" | "r" | "$3" "$4}'
    done
  done
done
