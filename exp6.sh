#!/usr/bin/env bash
set -u
R=$OUT; mkdir -p $R
OUT=$R board/h100/bench.sh build >/dev/null 2>&1
OUT=$R board/h100/bench.sh preempt-overhead-b 2>&1 | tail -22
cd $R && tar czf res.tgz *.txt && rm -f *.txt
