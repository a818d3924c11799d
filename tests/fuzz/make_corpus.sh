#!/bin/sh
# make_corpus.sh OUT DATA — seed corpus for fuzz_nmea: the hand-written seeds of
# tests/fuzz/seeds plus the NMEA/AIS logs of DATA (../shared/data/ais) cut into
# 40-line pieces (at most 100 per log). Generated at run time; never committed.
set -eu
out=$1
data=$2
here=$(dirname "$0")
mkdir -p "$out"
cp "$here"/seeds/* "$out"/
for f in "$data"/*.nmea "$data"/*.aivdm "$data"/*.log; do
    [ -f "$f" ] || continue
    head -n 4000 "$f" | split -l 40 -a 3 - "$out/$(basename "$f")."
done
echo "fuzz_nmea corpus: $(ls "$out" | wc -l) files in $out"
