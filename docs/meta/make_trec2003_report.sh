#!/bin/sh
# Rebuild docs/meta/trec2003_robust/ from ../shared/realdata (run from the repository root).
# The runs are TREC participant submissions: they go into a scratch warehouse, never into git.
set -e
DATA=../shared/realdata/trec2003_robust
W=${W:-/tmp/irw-trec2003.duckdb}
OUT=${OUT:-docs/meta/trec2003_robust}
IRW=${IRW:-irw}
rm -f "$W"
$IRW init -w "$W"
$IRW ingest qrels "$DATA/qrels/robust03_qrels.txt" -C robust03 -w "$W"
for run in "$DATA"/runs/input.*.gz; do $IRW ingest run "$run" -C robust03 -w "$W"; done
$IRW meta report -w "$W" -C robust03 -m AP -m nDCG@10 -m P@10 -m Q -m RR -m ntcir:ERR@20 -m bpref \
    --seed 1 --loo-depth 100 --team-pattern '^[A-Za-z]+' --gold AP --out "$OUT"
rm -f "$OUT"/*.svg "$OUT"/pairs.csv     # keep the committed copy small: Markdown, JSON, PNG
