#!/bin/sh
# How much randomised Tukey HSD's tie rule matters on TREC 2003 Robust (docs/stats.md,
# docs/meta.md): the same permutations (same seed) counted with '>=' (--tie-rule ge) and with
# Sakai's '>' (--tie-rule gt). Run from the repository root; the runs go into a scratch
# warehouse, never into git. SEEDS and MEASURES can be overridden.
set -e
DATA=../shared/realdata/trec2003_robust
W=${W:-/tmp/irw-trec2003-ties.duckdb}
IRW=${IRW:-irw}
SEEDS=${SEEDS:-"1 2 3 4 5"}
MEASURES=${MEASURES:-"P@10 RR nDCG@10 AP"}
OUT=$(mktemp -d)
if [ ! -f "$W" ]; then
    $IRW init -w "$W" >/dev/null
    $IRW ingest qrels "$DATA/qrels/robust03_qrels.txt" -C robust03 -w "$W" >/dev/null
    for run in "$DATA"/runs/input.*.gz; do
        $IRW ingest run "$run" -C robust03 -w "$W" >/dev/null
    done
fi
M=""
for m in $MEASURES; do M="$M -m $m"; done
$IRW eval --campaign robust03 $M --store -w "$W" >/dev/null
for seed in $SEEDS; do
    for rule in ge gt; do
        $IRW meta discpower -w "$W" -C robust03 $M --test tukey -B 5000 --seed "$seed" \
            --tie-rule "$rule" --pairs -f csv > "$OUT/$seed-$rule.csv"
    done
done
python3 - "$OUT" $SEEDS <<'PY'
import csv, sys
out, seeds = sys.argv[1], sys.argv[2:]
def read(path):
    with open(path) as f:
        return {(r["measure"], r["run_a"], r["run_b"]): float(r["asl"]) for r in csv.DictReader(f)}
print("measure   seed  pairs  significant ge  significant gt  decisions changed  pairs with "
      "ASL shift  largest shift")
for measure in dict.fromkeys(k[0] for k in read(f"{out}/{seeds[0]}-ge.csv")):
    for seed in seeds:
        ge, gt = read(f"{out}/{seed}-ge.csv"), read(f"{out}/{seed}-gt.csv")
        keys = [k for k in ge if k[0] == measure]
        shift = [ge[k] - gt[k] for k in keys]
        changed = sum((ge[k] < 0.05) != (gt[k] < 0.05) for k in keys)
        print(f"{measure:<9} {seed:>4}  {len(keys):>5}  {sum(ge[k] < 0.05 for k in keys):>14}  "
              f"{sum(gt[k] < 0.05 for k in keys):>14}  {changed:>17}  "
              f"{sum(s > 0 for s in shift):>21}  {max(shift):>13.4f}")
PY
rm -rf "$OUT"
