# kept-profiles.sh — sourced by the re-prediction diagnostics (gaps-raw.sh, repredict-ab.sh;
# not part of rtmgr): the kept H100 profiles of sessions 53-58 with a gpu0 validation beside
# them, and the summary of two MAPE columns.
# kept_profiles: one line "RUN PROFILE VALIDATION" each (session 56's c8 left out: that code
# squeezed seven gpu0 kernels and has since changed).
kept_profiles() {
    local R=board/h100/results y r v
    for y in $R/h100-s5[345678]*.yaml; do
        r=${y##*/h100-}; r=${r%.yaml}
        v=$R/validate-gpu0-$r-h100.txt
        [ -f "$v" ] && [ "$r" != s56c8 ] || continue
        echo "$r $y $v"
    done
}
# mape_summary: reads "RUN A B" lines (MAPE %, before and after); prints each, then the
# means and the counts under 5 %.
mape_summary() {
    awk '{printf "%-6s %5.2f %% -> %5.2f %%\n", $1, $2, $3; a += $2; b += $3; n++;
          ua += $2 <= 5; ub += $3 <= 5}
         END {printf "mean %.2f %% -> %.2f %%; under 5 %%: %d -> %d of %d\n", a / n, b / n, ua, ub, n}'
}
